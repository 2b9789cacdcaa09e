"""``cdcwire run --input PATH_OR_SOURCE_URI --sink-uri URI``: the Spark pipeline, with a progress
bar on stderr and a closing summary (events, messages, bytes, per-partition counts, events/s,
and how the sink delivered).

A failed run is one line on stderr: what failed, and what the write left at the sink
(``file://``: nothing; ``kafka://``: what tasks had delivered, at least once; a storage-sink
layout, ``local:///dir?protocol=csv`` or ``s3://...``: files past its checkpoint, which
readers do not read)."""

from __future__ import annotations

import argparse

from ..foundation.errors import CdcwireError
from .reading_flags import add_skip_damaged, add_topics
from .created_dirs import CreatedDirs
from .spark_flags import add_spark_flags, progress, session_for
from .uri_argument import FROM_ENV_OR_FILE, uri_argument


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("run", help="run the Spark pipeline: events (or a source to transcode) to a sink")
    p.add_argument("--input", required=True, type=uri_argument,
                   help="event JSON Lines / Parquet path, or a source URI to transcode" + FROM_ENV_OR_FILE)
    p.add_argument("--sink-uri", required=True, type=uri_argument,
                   help="e.g. kafka://127.0.0.1:9092/orders?protocol=canal-json, or a storage-sink layout"
                   " (local:///dir?protocol=csv, s3://bucket/prefix?protocol=canal-json)" + FROM_ENV_OR_FILE)
    p.add_argument(
        "--dead-letter",
        help="directory for malformed input records, undecodable source messages and events the encoder"
        " refuses, such as a row over max-message-bytes (default: fail on the first)",
    )
    add_topics(p, "with a source URI: topics to read, names and patterns ('a,b', 'tidb_app_*', '*'; default the URI's topic)")
    add_skip_damaged(p, "input")
    p.add_argument(
        "--stream", action="store_true",
        help="with a source URI (a topic, or a storage-sink layout): keep transcoding as the source is written"
        " (a streaming query), until Ctrl-C",
    )
    p.add_argument("--checkpoint", help="with --stream: the query's checkpoint directory (a restart continues from it)")
    p.add_argument("--trigger-seconds", type=float, default=0.0,
                   help="with --stream: start a micro-batch every N seconds (default: as soon as the last one ends)")
    p.add_argument("--available-now", action="store_true",
                   help="with --stream: transcode what the source holds now, in micro-batches, then stop")
    p.add_argument("--max-offsets-per-trigger", type=int, help="with --stream: at most N messages per micro-batch")
    add_spark_flags(p)
    return p


def run(args: argparse.Namespace) -> int:
    from ..sinks.sink import open_sink
    from ..foundation.extras import extra_required

    with extra_required("spark", "cdcwire run (it runs on Spark)"):
        from .. import spark as cs
    from ..spark.reading import is_source_uri
    from ..transports.storage.location import StorageLocation, is_storage_uri

    if is_storage_uri(args.sink_uri) and not args.stream:
        # a bad URI fails before Spark starts; a layout materialize cannot read later is said now
        StorageLocation.parse(args.sink_uri).warn_if_not_continuable()
        return _run_to_layout(args, cs, is_source_uri(args.input))
    sink = open_sink(args.sink_uri)  # a bad URI fails before Spark starts
    if args.stream:
        return _run_stream(args, cs, sink, is_source_uri(args.input))
    if not is_source_uri(args.input):
        _check_input_path(args.input)  # and a missing input too
    created = CreatedDirs(sink.config.location) if sink.config.scheme == "file" else None
    try:
        spark = session_for(args)
        if is_source_uri(args.input):
            df = cs.without_broadcast_copies(
                cs.read(spark, args.input, topics=args.topics, permissive=bool(args.dead_letter))
            )
        else:
            df = cs.read_events(spark, args.input, permissive=bool(args.dead_letter))
        with progress(spark, args, "cdcwire run"):
            summary = cs.write(df, sink.config, dead_letter=args.dead_letter)
    except CdcwireError as exc:
        _remove(created)
        raise CdcwireError(_one_line(str(exc), exc)) from None
    except Exception as exc:  # Spark's own failure (a lost executor, ...): its reason, not a JVM trace
        _remove(created)
        raise CdcwireError(_one_line(spark_failure(exc), exc)) from None
    print(summary.report())
    if args.dead_letter and summary.events_dead_lettered:
        print(f"dead-lettered records: {args.dead_letter}")
    return 0 if summary.reconciles else 1


def _run_to_layout(args: argparse.Namespace, cs, from_source: bool) -> int:
    """``run --sink-uri local:///dir?protocol=csv`` (or ``s3://``): the events written as TiCDC's
    storage sink lays them out (``cs.write`` of a layout); a layout has no dead letters."""
    if args.dead_letter:
        raise CdcwireError("--dead-letter does not apply to a storage-sink layout: a malformed record fails the"
                           " write naming its input row, and the layout reads up to its old checkpoint; leave it out")
    if not from_source:
        _check_input_path(args.input)
    try:
        spark = session_for(args)
        if from_source:
            df = cs.without_broadcast_copies(cs.read(spark, args.input, topics=args.topics))
        else:
            df = cs.read_events(spark, args.input)
        with progress(spark, args, "cdcwire run"):
            summary = cs.write(df, args.sink_uri)
    except CdcwireError as exc:
        raise CdcwireError(_one_line(str(exc), exc)) from None
    except Exception as exc:  # Spark's own failure (a lost executor, ...): its reason, not a JVM trace
        raise CdcwireError(_one_line(spark_failure(exc), exc)) from None
    print(summary.report())
    return 0 if summary.reconciles else 1


def _check_input_path(path: str) -> None:
    """A path ``--input`` that names nothing fails before Spark starts, saying so in one line."""
    import glob
    import os

    if not (os.path.exists(path) or glob.glob(path)):
        raise CdcwireError(
            f"--input {path}: no such file or directory: give an event JSON Lines or Parquet file,"
            " a directory or glob of them, or a source URI (kafka://... or file://...?protocol=...)"
        )


def _remove(created: "CreatedDirs | None") -> None:
    """A failed run leaves nothing it created at a file:// sink (a failed write publishes nothing)."""
    if created is not None:
        created.remove()


def _one_line(message: str, exc: BaseException) -> str:
    """The error and its notes (what the write left at the sink) as one line."""
    parts = [message, *getattr(exc, "__notes__", ())]
    return "; ".join(" ".join(part.split()) for part in parts if part)


def spark_failure(exc: BaseException, what: str = "the Spark job") -> str:
    """One line for a failure of Spark's own (no cdcwire error): out of memory said so, with what
    to do; else the JVM's reason. The same for every command that runs Spark."""
    from ..spark.runtime.job_errors import out_of_memory_in

    memory = out_of_memory_in(exc)
    if memory is None:
        return f"{what} failed: {_spark_reason(exc)}"
    if memory.where == "jvm":
        return (f"{what} failed: {memory}: give it more with --driver-memory (e.g. --driver-memory 4g; on a"
                " local master the driver runs the tasks too, so its memory is all Spark has)")
    return (f"{what} failed: {memory}: free memory on this machine, or spread the rows over more tasks"
            " with --conf spark.sql.shuffle.partitions=N")


def _spark_reason(exc: BaseException) -> str:
    """The first line of a Spark failure that says why (the JVM's exception line), shortened."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    why = [line for line in lines if "Exception:" in line or "Error:" in line]
    reason = (why or lines or [""])[0]
    return reason if len(reason) <= 300 else reason[:297] + "..."


def _run_stream(args: argparse.Namespace, cs, sink, from_source: bool) -> int:
    """``run --stream``: a streaming query from the source to the sink until Ctrl-C (or, with
    ``--available-now``, until what the source held at the start is written); a line per
    micro-batch on stderr, totals at the end."""
    import signal
    import sys
    import threading

    from ..transports.storage.location import is_storage_uri, shown_uri

    if not from_source:
        raise CdcwireError("run --stream needs a source URI as --input (kafka://... or file://...?protocol=..., or a"
                           " storage-sink layout: s3://... or local:///dir?protocol=...)")
    if not args.checkpoint:
        raise CdcwireError("run --stream needs --checkpoint DIR: a restarted run continues from it")
    layout = is_storage_uri(args.input)
    if layout:
        given = [flag for flag, value in (("--topics", args.topics), ("--max-offsets-per-trigger",
                 args.max_offsets_per_trigger), ("--dead-letter", args.dead_letter)) if value]
        if given:
            raise CdcwireError(
                f"{given[0]} does not apply to a storage-sink layout ({shown_uri(args.input)}): its stream reads the"
                " files of each checkpoint whole, and a damaged file fails the run naming it; leave it out"
            )
    spark = session_for(args)
    reader = spark.readStream.format("cdcwire-storage" if layout else "cdcwire").option("source-uri", args.input)
    if args.topics:
        reader = reader.option("topics", args.topics)
    if args.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", args.max_offsets_per_trigger)
    if args.dead_letter:
        reader = reader.option("mode", "PERMISSIVE")
    totals = {"batches": 0, "events": 0, "messages": 0, "dead-lettered": 0}

    def on_batch(batch_id: int, summary) -> None:
        totals["batches"] += 1
        totals["events"] += summary.events_in
        totals["messages"] += summary.messages
        totals["dead-lettered"] += summary.events_dead_lettered
        print(f"micro-batch {batch_id}: {summary.events_in} events, {summary.messages} messages", file=sys.stderr)

    trigger = {"availableNow": True} if args.available_now else (
        {"processingTime": f"{args.trigger_seconds} seconds"} if args.trigger_seconds else None
    )
    query = cs.write_stream(reader.load(), sink.config, args.checkpoint, dead_letter=args.dead_letter,
                            trigger=trigger, on_batch=on_batch)
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        while query.isActive and not stop.is_set():
            query.awaitTermination(0.5)
    finally:
        signal.signal(signal.SIGINT, previous)
        if query.isActive:
            query.stop()
    failure = query.exception()
    if failure is not None:
        raise CdcwireError(_one_line(spark_failure(failure, "the streaming query"), failure))
    how = "stopped by Ctrl-C" if stop.is_set() else "caught up"
    print(f"{how}: {totals['batches']} micro-batches, {totals['events']} events, {totals['messages']} messages,"
          f" {totals['dead-lettered']} dead-lettered; delivery is at least once (a batch written before the"
          f" checkpoint recorded it is written again on restart); checkpoint {args.checkpoint}")
    return 0
