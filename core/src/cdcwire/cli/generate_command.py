"""``cdcwire generate --events N --seed S --out FILE.jsonl``: a realistic change stream as event JSON Lines."""

from __future__ import annotations

import argparse
import sys

from ..workload import Workload, write_workload


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("generate", help="write a generated change stream (event JSON Lines)")
    p.add_argument("--events", type=int, required=True, help="how many events")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same stream")
    p.add_argument("--out", required=True, help="output file (.jsonl)")
    p.add_argument("--tables", type=int, default=4, help="how many tables (default 4; the 4th has every column type)")
    p.add_argument("--resolved-every", type=int, default=10, help="a resolved ts every N commits (0: none)")
    return p


def run(args: argparse.Namespace) -> int:
    if args.events < 0 or args.tables < 1 or args.resolved_every < 0:
        print("cdcwire generate: --events >= 0, --tables >= 1, --resolved-every >= 0", file=sys.stderr)
        return 2
    w = Workload(args.events, seed=args.seed, tables=args.tables, resolved_every=args.resolved_every)
    n = write_workload(w, args.out)
    print(f"wrote {n} events to {args.out}")
    return 0
