"""The ``cdcwire`` command. Each subcommand is a module in this package with
``add_parser(subparsers)`` and ``run(args) -> int``; COMMANDS lists them in help order.

The command modules import only light core modules at the top (Spark, Kafka and the
plugins load inside ``run``), so importing all of them here costs little, and a command
module that fails to import fails loudly instead of vanishing from the help."""

from __future__ import annotations

import argparse
import os
import sys
from types import ModuleType
from typing import Optional, Sequence

from ..errors import CdcwireError
from ..registry import core_info
from .reading_flags import apply_skip_damaged
from . import (
    demo_command,
    encode_command,
    follow_command,
    generate_command,
    inspect_command,
    materialize_command,
    parameters_command,
    plugins_command,
    protocols_command,
    run_command,
)

COMMANDS: tuple[ModuleType, ...] = (
    protocols_command,
    plugins_command,
    parameters_command,
    encode_command,
    inspect_command,
    follow_command,
    generate_command,
    run_command,
    materialize_command,
    demo_command,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cdcwire", description="TiCDC wire protocols: encode, decode, pipeline")
    parser.add_argument("--version", action="version", version=f"cdcwire {core_info().version}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        p = module.add_parser(sub)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        apply_skip_damaged(args)
        return int(args._run(args) or 0)
    except CdcwireError as exc:
        print(f"cdcwire {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `cdcwire inspect URI | head`: the reader has all it wanted
        # what is still buffered would fail again when Python flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a missing input, a full disk: the file and the reason, not a traceback
        print(f"cdcwire {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
