"""The flags every command that runs Spark shares: where Spark runs, how much memory and which
settings it gets, and how much of Spark and of cdcwire's progress shows.

One place for them, so ``run``, ``run --stream``, ``materialize`` and ``demo`` take the same
``--master``, ``--driver-memory`` and ``--conf KEY=VALUE`` and say the same in ``--help``: a
job out of memory is told to use ``--driver-memory``, which must then exist on every command.

By default Spark's own console logging is off (its start-up lines and a failed task's
executor stack traces say nothing a user of the command needs: the command's own error
line says what failed) and cdcwire's progress display shows. ``--verbose`` gives Spark's
usual warnings and errors back; ``--quiet`` drops the progress display too, leaving only
results and errors.
"""

from __future__ import annotations

import argparse
from typing import Any


def spark_setting(text: str) -> tuple[str, str]:
    """One ``--conf KEY=VALUE``: the key and the value (which may hold ``=`` itself)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE (e.g. spark.sql.shuffle.partitions=8)")
    return key.strip(), value


def add_spark_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    p.add_argument(
        "--driver-memory", metavar="SIZE",
        help="memory of Spark's driver JVM, e.g. 4g (Spark's default 1g); on a local master it is all"
        " the JVM has: raise it when a run says it is out of memory",
    )
    p.add_argument(
        "--conf", action="append", type=spark_setting, default=[], metavar="KEY=VALUE",
        help="a Spark setting, e.g. spark.sql.shuffle.partitions=8 (repeatable)",
    )
    group = p.add_mutually_exclusive_group()
    group.add_argument("--verbose", action="store_true", help="show Spark's own warnings and errors")
    group.add_argument("--quiet", action="store_true", help="no progress display: results and errors only")


def session_for(args: argparse.Namespace) -> Any:
    """The command's SparkSession, with its flags' master, memory and settings, logging as they say."""
    from .. import spark as cs

    conf = {"spark.ui.showConsoleProgress": "false", **dict(args.conf)}
    if args.driver_memory:
        conf["spark.driver.memory"] = args.driver_memory
    spark = cs.spark_session(args.master, log_level="WARN" if args.verbose else "OFF", **conf)
    server = getattr(spark.sparkContext, "_accumulatorServer", None)
    if server is not None and not args.verbose:
        # A JVM that ended (out of memory, say) drops its connection to PySpark's accumulator
        # server, which prints "Exception occurred during processing of request from ..." and
        # a traceback; the command's own error line says what failed instead.
        server.handle_error = lambda request, client_address: None
    return spark


def progress(spark: Any, args: argparse.Namespace, label: str) -> Any:
    """cdcwire's progress display around one Spark action, unless ``--quiet``."""
    from ..spark.runtime.progress import ProgressBar

    from . import COMMAND_STARTED

    # "ended after" counts from the command's start: the JVM's start-up is part of the wait
    return ProgressBar(spark, label=label, enabled=not args.quiet, since=COMMAND_STARTED.get("at"))
