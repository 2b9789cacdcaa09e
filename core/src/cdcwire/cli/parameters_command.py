"""``cdcwire parameters``: every sink-URI parameter of the installed core, transports and protocols."""

from __future__ import annotations

import argparse

from ..sinks.parameter_table import markdown_table, parameter_rows, plain_table


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("parameters", help="list every sink-URI parameter, where it applies and its default")
    p.add_argument("--markdown", action="store_true", help="print the table as Markdown (docs/sink-uris.md's)")
    return p


def run(args: argparse.Namespace) -> int:
    rows = parameter_rows()
    print(markdown_table(rows) if args.markdown else plain_table(rows))
    return 0
