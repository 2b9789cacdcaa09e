"""The ``cdcwire`` command. Each subcommand is a module in this package with
``add_parser(subparsers)`` and ``run(args) -> int``; COMMANDS lists them in help order.

The command modules import only light core modules at the top (Spark, Kafka and the
plugins load inside ``run``), so importing all of them here costs little, and a command
module that fails to import fails loudly instead of vanishing from the help."""

from __future__ import annotations

import argparse
import os
import sys
import time
from types import ModuleType
from typing import Optional, Sequence

from ..foundation.errors import CdcwireError
from ..sinks.installed import core_info
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


#: When the running command started (``time.monotonic()``, key "at"): its progress display says how
#: long it took from there, Spark's start-up included.
COMMAND_STARTED: dict[str, float] = {}


def main(argv: Optional[Sequence[str]] = None) -> int:
    COMMAND_STARTED["at"] = time.monotonic()
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
        print(f"cdcwire {args.command}: error: {os_error_line(exc)}", file=sys.stderr)
        return 2


#: What to do about the commonest reasons a file cannot be used (by errno name).
_WHAT_TO_DO = {
    "ENOENT": "check the path",
    "EACCES": "check its permissions",
    "EPERM": "check its permissions",
    "EISDIR": "give a file, not a directory",
    "ENOTDIR": "a part of the path is a file, not a directory",
    "ENOSPC": "free some space",
    "EROFS": "give a path on a writable file system",
}


def os_error_line(exc: OSError) -> str:
    """An OSError as one line: the file, the reason and what to do, without ``[Errno N]``."""
    import errno

    reason = (exc.strerror or str(exc)).rstrip(".")
    if exc.filename is None:
        return reason[:1].lower() + reason[1:]
    what = _WHAT_TO_DO.get(errno.errorcode.get(exc.errno or 0, ""), "")
    line = f"{exc.filename}: {reason[:1].lower() + reason[1:]}"
    return f"{line}: {what}" if what else line


if __name__ == "__main__":
    raise SystemExit(main())
