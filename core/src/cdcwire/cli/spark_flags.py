"""The flags every command that runs Spark shares: how much of Spark and of cdcwire's progress shows.

By default Spark's own console logging is off (its start-up lines and a failed task's
executor stack traces say nothing a user of the command needs: the command's own error
line says what failed) and cdcwire's progress display shows. ``--verbose`` gives Spark's
usual warnings and errors back; ``--quiet`` drops the progress display too, leaving only
results and errors.
"""

from __future__ import annotations

import argparse
from typing import Any


def add_spark_flags(p: argparse.ArgumentParser) -> None:
    group = p.add_mutually_exclusive_group()
    group.add_argument("--verbose", action="store_true", help="show Spark's own warnings and errors")
    group.add_argument("--quiet", action="store_true", help="no progress display: results and errors only")


def session_for(args: argparse.Namespace) -> Any:
    """The command's SparkSession, logging as its flags say."""
    from .. import spark as cs

    return cs.spark_session(
        args.master, log_level="WARN" if args.verbose else "OFF", **{"spark.ui.showConsoleProgress": "false"}
    )


def progress(spark: Any, args: argparse.Namespace, label: str) -> Any:
    """cdcwire's progress display around one Spark action, unless ``--quiet``."""
    from ..spark.runtime.progress import ProgressBar

    return ProgressBar(spark, label=label, enabled=not args.quiet)
