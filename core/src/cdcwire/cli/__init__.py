"""The ``cdcwire`` command. Each subcommand is a module in this package with
``add_parser(subparsers)`` and ``run(args) -> int``; COMMANDS lists them in help order."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Sequence

from ..errors import CdcwireError

COMMANDS = ("protocols", "plugins", "parameters", "encode", "inspect", "generate", "run", "demo")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cdcwire", description="TiCDC wire protocols: encode, decode, pipeline")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}_command")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}_command":
                continue  # a command not built yet
            raise
        p = module.add_parser(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except CdcwireError as exc:
        print(f"cdcwire {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a missing input, a full disk: the file and the reason, not a traceback
        print(f"cdcwire {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
