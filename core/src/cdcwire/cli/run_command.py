"""``cdcwire run --input PATH_OR_SOURCE_URI --sink-uri URI``: the Spark pipeline, with a progress
bar on stderr and a closing summary (events, messages, bytes, per-partition counts, events/s,
and how the sink delivered).

A failed run is one line on stderr: what failed, and what the write left at the sink
(``file://``: nothing; ``kafka://``: what tasks had delivered, at least once)."""

from __future__ import annotations

import argparse

from ..errors import CdcwireError
from .spark_flags import add_spark_flags, progress, session_for


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("run", help="run the Spark pipeline: events (or a source to transcode) to a sink")
    p.add_argument("--input", required=True, help="event JSON Lines / Parquet path, or a source URI to transcode")
    p.add_argument("--sink-uri", required=True, help="e.g. kafka://127.0.0.1:9092/orders?protocol=canal-json")
    p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
    p.add_argument(
        "--dead-letter",
        help="directory for malformed input records, undecodable source messages and events the encoder"
        " refuses, such as a row over max-message-bytes (default: fail on the first)",
    )
    p.add_argument("--topics", help="with a source URI: topics to read, names and patterns ('a,b', 'tidb_app_*', '*'; default the URI's topic)")
    add_spark_flags(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ..sink import open_sink
    from ..extras import extra_required

    with extra_required("spark", "cdcwire run (it runs on Spark)"):
        from .. import spark as cs
    from ..spark.reading import is_source_uri

    sink = open_sink(args.sink_uri)  # a bad URI fails before Spark starts
    spark = session_for(args)
    if is_source_uri(args.input):
        df = cs.without_broadcast_copies(
            cs.read(spark, args.input, topics=args.topics, permissive=bool(args.dead_letter))
        )
    else:
        df = cs.read_events(spark, args.input, permissive=bool(args.dead_letter))
    try:
        with progress(spark, args, "cdcwire run"):
            summary = cs.write(df, sink.config, dead_letter=args.dead_letter)
    except CdcwireError as exc:
        raise CdcwireError(_one_line(str(exc), exc)) from None
    except Exception as exc:  # Spark's own failure (a lost executor, ...): its reason, not a JVM trace
        raise CdcwireError(_one_line(f"the Spark job failed: {_spark_reason(exc)}", exc)) from None
    print(summary.report())
    if args.dead_letter and summary.events_dead_lettered:
        print(f"dead-lettered records: {args.dead_letter}")
    return 0 if summary.reconciles else 1


def _one_line(message: str, exc: BaseException) -> str:
    """The error and its notes (what the write left at the sink) as one line."""
    parts = [message, *getattr(exc, "__notes__", ())]
    return "; ".join(" ".join(part.split()) for part in parts if part)


def _spark_reason(exc: BaseException) -> str:
    """The first line of a Spark failure that says why (the JVM's exception line), shortened."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    why = [line for line in lines if "Exception:" in line or "Error:" in line]
    reason = (why or lines or [""])[0]
    return reason if len(reason) <= 300 else reason[:297] + "..."
