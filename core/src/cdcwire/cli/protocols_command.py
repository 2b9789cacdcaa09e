"""``cdcwire protocols``: each installed protocol with its distribution and version."""

from __future__ import annotations

import argparse
import os

from ..sinks.installed import get_registry
from ..contract.registry import ALLOW_ENV


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("protocols", help="list installed protocols with their distribution and version")
    p.add_argument("--verbose", "-v", action="store_true", help="also list each protocol's URI parameters")
    return p


def run(args: argparse.Namespace) -> int:
    reg = get_registry()
    rows = [(c.name, ", ".join(c.aliases), info.distribution, info.version) for c, info in reg.codecs()]
    if not rows:
        allowed = os.environ.get(ALLOW_ENV)
        if allowed is not None:
            print(f"no protocol loaded: {ALLOW_ENV}={allowed!r} lets only those entry points load")
        else:
            print("no protocols installed: pip install cdcwire-open (or another protocol plugin)")
        return 1
    widths = [max(len(r[i]) for r in rows + [("protocol", "aliases", "distribution", "version")]) for i in range(4)]
    header = ("protocol", "aliases", "distribution", "version")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip())
    for r in rows:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip())
    if args.verbose:
        for codec, _ in reg.codecs():
            print(f"\n{codec.name} parameters:")
            for p in codec.parameters:
                print(f"  {p.name} ({p.kind}, default {p.default!r}): {p.help}")
    return 0
