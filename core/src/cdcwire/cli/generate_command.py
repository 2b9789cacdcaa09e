"""``cdcwire generate --events N --seed S --out FILE.jsonl``: a realistic change stream as event JSON Lines."""

from __future__ import annotations

import argparse
import sys

from ..workload import DDL_KINDS, Workload, write_workload


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("generate", help="write a generated change stream (event JSON Lines)")
    p.add_argument("--events", type=int, required=True, help="how many events")
    p.add_argument("--seed", type=int, default=0, help="random seed: the same seed gives the same stream")
    p.add_argument("--out", required=True, help="output file (.jsonl)")
    p.add_argument("--tables", type=int, default=4, help="how many tables (default 4; the 4th has every column type)")
    p.add_argument("--resolved-every", type=int, default=10, help="a resolved ts every N commits (0: none)")
    p.add_argument("--ddl-every", type=int, default=500, help="a DDL every N commits (default 500; 0: none)")
    p.add_argument("--ddls", default="", metavar="KIND[=WEIGHT],...",
                   help=f"the DDL mix, kinds drawn by weight (default 1): {', '.join(DDL_KINDS)};"
                        " default: ADD / DROP COLUMN only")
    return p


def parse_ddls(text: str) -> dict[str, float]:
    """``truncate=2,drop_create`` -> ``{"truncate": 2.0, "drop_create": 1.0}``; ValueError naming
    a kind or weight that is not one."""
    mix: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        kind, _, weight = item.partition("=")
        if kind not in DDL_KINDS:
            raise ValueError(f"--ddls: unknown DDL kind {kind!r}; known: {', '.join(DDL_KINDS)}")
        try:
            mix[kind] = float(weight) if weight else 1.0
        except ValueError:
            raise ValueError(f"--ddls: the weight of {kind} is {weight!r}, not a number") from None
    return mix


def run(args: argparse.Namespace) -> int:
    if args.events < 0 or args.tables < 1 or args.resolved_every < 0:
        print("cdcwire generate: --events >= 0, --tables >= 1, --resolved-every >= 0", file=sys.stderr)
        return 2
    try:
        ddls = parse_ddls(args.ddls)
    except ValueError as e:
        print(f"cdcwire generate: {e}", file=sys.stderr)
        return 2
    w = Workload(args.events, seed=args.seed, tables=args.tables, resolved_every=args.resolved_every,
                 ddl_every=max(0, args.ddl_every), ddls=ddls)
    n = write_workload(w, args.out)
    print(f"wrote {n} events to {args.out}")
    return 0
