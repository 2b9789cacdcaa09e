"""The ``cdcwire`` Spark data source: messages of a sink as events, and events to a sink.

    spark.read.format("cdcwire").option("source-uri", uri).load()
        # options: topics ("a,b" or "*" for every topic the source holds; default the URI's
        # topic), start-offset (default: earliest), offsets ({"topic/partition": offset} JSON),
        # mode (FAILFAST, the default: an undecodable message fails the read; PERMISSIVE: it
        # becomes a row with _malformed set), ranges (pinned ranges, as cdcwire.spark.read sets)
    df.write.format("cdcwire").option("sink-uri", uri).mode("append").save()

Reads are bounded: each partition from its start offset to its high watermark
(see :mod:`cdcwire.spark.message_ranges` for when that is taken). Messages are
decoded on the executors.

Writes: a DataFrame laid out by :func:`cdcwire.spark.prepare` is written exactly
(one task per topic-partition, in order). Any other event DataFrame is dispatched
task by task in input order, which keeps the ordering promises only when each
topic-partition's events come from one input partition (``df.coalesce(1)``); when
two tasks fed one topic-partition the write fails naming it (a Python data source
cannot ask Spark for a distribution). Such a task also cannot know every topic
before it routes its first resolved event (it sees its own input only, once), so
topic rules are refused there when the protocol broadcasts resolved events: the
error points to ``cdcwire.spark.write``, which plans all topics first.
``cdcwire.spark.write`` does the full job and returns a summary.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql.datasource import DataSource, DataSourceArrowWriter, DataSourceReader, WriterCommitMessage

from ..api import transport_partition_count
from ..codec import Broadcast
from ..codec_calls import encoder_for
from ..dispatch import Dispatcher
from ..errors import CdcwireError, SinkURIError
from ..message import Message, Payload
from ..sink_uri import SinkConfig
from .arrow_events import checked_events
from .encoding import encode_routed
from .message_ranges import MessageRange, plan_message_ranges, ranges_from_json
from .range_decoding import decode_range
from .schema import PERMISSIVE_READ_EVENT_SCHEMA, READ_EVENT_SCHEMA
from .sink_cache import sink_config

BATCH_EVENTS = 4096


def is_permissive(options: dict) -> bool:
    mode = str(options.get("mode", "FAILFAST")).upper()
    if mode not in ("FAILFAST", "PERMISSIVE"):
        raise CdcwireError(f"option mode must be FAILFAST or PERMISSIVE, got {mode!r}")
    return mode == "PERMISSIVE"


class MessageEventsReader(DataSourceReader):
    def __init__(self, options: dict) -> None:
        self.uri = options["source-uri"]
        self.topics = options.get("topics", "")
        start = options.get("start-offset")
        self.start_offset = None if start in (None, "", "earliest") else int(start)
        self.offsets = options.get("offsets", "")
        self.ranges = options.get("ranges")
        self.permissive = is_permissive(options)

    def partitions(self) -> list[MessageRange]:
        if self.ranges is not None:
            ranges = ranges_from_json(self.ranges)
        else:
            ranges = plan_message_ranges(self.uri, self.topics, self.start_offset, self.offsets)
        return ranges or [MessageRange("", -1, 0, 0)]

    def read(self, partition: MessageRange) -> Iterator[pa.RecordBatch]:
        if partition.partition >= 0:
            yield from decode_range(self.uri, partition, self.permissive)


@dataclass
class WrittenCounts(WriterCommitMessage):
    """What one write task did; ``dispatched`` when it dispatched an unprepared DataFrame itself."""

    events: int
    messages: int
    bytes: int
    partitions: tuple[tuple[str, int], ...] = ()
    dispatched: bool = False


class EventsWriter(DataSourceArrowWriter):
    def __init__(self, uri: str) -> None:
        self.uri = uri

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WrittenCounts:
        first = next(iterator, None)
        if first is None:
            return WrittenCounts(0, 0, 0)
        prepared = "_cdc_topic" in first.schema.names

        def batches() -> Iterator[pa.RecordBatch]:
            yield first
            yield from iterator

        if prepared:
            results = list(encode_routed(self.uri, batches()))
        else:
            results = [_dispatch_in_order(self.uri, batches())]
        events = messages = size = 0
        partitions: list[tuple[str, int]] = []
        for r in results:
            events += sum(r.column("events").to_pylist())
            messages += sum(r.column("messages").to_pylist())
            size += sum(r.column("bytes").to_pylist())
            written = zip(r.column("topic").to_pylist(), r.column("partition").to_pylist())
            partitions += [(t, p) for t, p in written if t is not None]  # topic None: routing counts
        return WrittenCounts(events, messages, size, tuple(partitions), not prepared)

    def commit(self, messages: list[Optional[WrittenCounts]]) -> None:
        """Fail the write when tasks that dispatched by themselves shared a topic-partition.

        Within one task events keep their input order; across tasks nothing orders them,
        so two tasks feeding one topic-partition may break the per-key ordering promise.
        The messages are written by then (delivery is at least once anyway): the error
        says what happened and what to use instead.
        """
        writers: dict[tuple[str, int], int] = {}
        for m in messages:
            if m is not None and m.dispatched:
                for tp in m.partitions:
                    writers[tp] = writers.get(tp, 0) + 1
        shared = sorted(tp for tp, n in writers.items() if n > 1)
        if shared:
            listed = ", ".join(f"{t}/{p}" for t, p in shared[:5]) + (" ..." if len(shared) > 5 else "")
            raise CdcwireError(
                f"format('cdcwire') wrote {len(shared)} topic-partition(s) ({listed}) from more than one"
                " input partition, so their order across those partitions is not guaranteed; write with"
                " cdcwire.spark.write(df, uri), write cdcwire.spark.prepare(df, uri)[0], or coalesce(1) first"
            )


def _dispatch_in_order(uri: str, batches: Iterator[pa.RecordBatch]) -> pa.RecordBatch:
    """Dispatch one task's events in input order and encode each topic-partition as a stream of chunks."""
    config = sink_config(uri)
    dispatcher = Dispatcher(config, partition_count=transport_partition_count(config))
    encoders: dict[tuple[str, int], object] = {}
    pending: dict[tuple[str, int], list] = {}
    stats: dict[tuple[str, int], list[int]] = {}
    writer = config.transport.writer(config)

    def drain(tp: tuple[str, int]) -> None:
        chunk = pending.pop(tp, [])
        if not chunk:
            return
        encoder = encoders.get(tp)
        if encoder is None:
            encoder = encoders[tp] = encoder_for(config, tp[0], tp[1])
        s = stats.setdefault(tp, [0, 0, 0])
        s[0] += len(chunk)
        payload: Payload
        for payload in encoder.encode(chunk):  # type: ignore[attr-defined]
            writer.write(Message(tp[0], tp[1], payload.key, payload.value))
            s[1] += 1
            s[2] += len(payload.key or b"") + len(payload.value or b"")

    try:
        for batch in batches:
            events, problems = checked_events(batch)
            if problems:
                row = min(problems)
                bad = batch.column("_malformed")[row].as_py() if "_malformed" in batch.schema.names else None
                where = f" at {bad['source']}" if bad else ""
                raise CdcwireError(
                    f"malformed input record{where} ({bad['reason'] if bad else problems[row]}); format('cdcwire')"
                    " takes well-formed events only: use cdcwire.spark.write(df, uri, dead_letter=DIR)"
                )
            for event in events:
                for route in dispatcher.route(event):  # type: ignore[arg-type]
                    tp = (route.topic, route.partition)
                    pending.setdefault(tp, []).append(route.event)
                    if len(pending[tp]) >= BATCH_EVENTS:
                        drain(tp)
        for tp in list(pending):
            drain(tp)
        writer.close()
    except BaseException:
        writer.abort()
        raise
    keys = sorted(stats)
    return pa.RecordBatch.from_arrays(
        [
            pa.array([k[0] for k in keys], pa.string()),
            pa.array([k[1] for k in keys], pa.int32()),
            pa.array([stats[k][0] for k in keys], pa.int64()),
            pa.array([stats[k][0] for k in keys], pa.int64()),
            pa.array([stats[k][1] for k in keys], pa.int64()),
            pa.array([stats[k][2] for k in keys], pa.int64()),
        ],
        names=["topic", "partition", "events", "encoded", "messages", "bytes"],
    )


class CdcwireDataSource(DataSource):
    """``format("cdcwire")``: see the module doc."""

    @classmethod
    def name(cls) -> str:
        return "cdcwire"

    def schema(self):
        return PERMISSIVE_READ_EVENT_SCHEMA if is_permissive(dict(self.options)) else READ_EVENT_SCHEMA

    def reader(self, schema) -> MessageEventsReader:
        if not self.options.get("source-uri"):
            raise SinkURIError('the cdcwire source needs .option("source-uri", URI)', "source-uri")
        return MessageEventsReader(dict(self.options))

    def writer(self, schema, overwrite: bool) -> EventsWriter:
        uri = self.options.get("sink-uri")
        if not uri:
            raise SinkURIError('the cdcwire sink needs .option("sink-uri", URI)', "sink-uri")
        config = sink_config(uri)  # a bad URI fails here, before any task runs
        if "_cdc_topic" not in schema.names:
            refuse_unplanned_topics(config)
        return EventsWriter(uri)


def refuse_unplanned_topics(config: SinkConfig) -> None:
    """Topic rules need every topic known before the first resolved event is broadcast, which a
    task dispatching its own input cannot know: refuse them where resolved events are sent."""
    if config.codec.policy(config).resolved is Broadcast.NONE:
        return
    if any(rule.topic is not None for rule in config.dispatch_rules):
        raise CdcwireError(
            f"format('cdcwire') cannot write an event DataFrame to {config.redacted_uri}: with topic rules,"
            " resolved events must reach topics a task may never see; use cdcwire.spark.write(df, uri),"
            " or write cdcwire.spark.prepare(df, uri)[0]"
        )


_REGISTERED: set[int] = set()


def register_data_sources(spark: SparkSession) -> None:
    """Register ``cdcwire`` and ``cdcwire-events`` with this session (once)."""
    if id(spark) in _REGISTERED:
        return
    from .jsonl_source import EventLinesDataSource

    spark.dataSource.register(CdcwireDataSource)
    spark.dataSource.register(EventLinesDataSource)
    _REGISTERED.add(id(spark))
