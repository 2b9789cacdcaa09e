"""The ``cdcwire`` Spark data source: messages of a sink as events, and events to a sink.

    spark.read.format("cdcwire").option("source-uri", uri).load()
        # options: topics ("a,b" or "*" for every topic the source holds; default the URI's
        # topic), startingOffsets / endingOffsets / failOnDataLoss (as Spark's Kafka source:
        # see cdcwire.spark.reader.source_options), start-offset (default: earliest), offsets
        # ({"topic/partition": offset} JSON),
        # mode (FAILFAST, the default: an undecodable message fails the read; PERMISSIVE: it
        # becomes a row with _malformed set), tables (a table filter: "app.*,!app.tmp_*"),
        # ranges (pinned ranges, as cdcwire.spark.read sets)
    spark.readStream.format("cdcwire").option("source-uri", uri).load()
        # a stream: see cdcwire.spark.reader.stream_source for its options
    df.write.format("cdcwire").option("sink-uri", uri).mode("append").save()   # or mode("overwrite")

Reads are bounded: each partition from its start offset to its high watermark
(see :mod:`cdcwire.spark.reader.message_ranges` for when that is taken). Messages are
decoded on the executors. Rows are :data:`~.schema.SOURCE_READ_EVENT_SCHEMA`: events,
topic, partition, offset and the message's ``timestamp`` (a Python data source has one
schema for batch and streaming reads, and the stream has the timestamp, as Spark's own
Kafka source has); ``cdcwire.spark.read``, which pins ``ranges``, gives
:data:`~.schema.READ_EVENT_SCHEMA`, as ``cdcwire.spark.decode`` does.

Writes go through a write job (:meth:`cdcwire.transport.Transport.begin_write`): on
``file://`` each task stages, ``commit()`` publishes once every task succeeded and
``abort()`` discards, so a failed write leaves nothing; ``mode("overwrite")``
replaces the topics' partition files. ``kafka://`` delivers as tasks write (at
least once) and refuses ``mode("overwrite")``, as Spark's own Kafka sink does.

A DataFrame laid out by :func:`cdcwire.spark.prepare` is written exactly (one task
per topic-partition, in order). Any other event DataFrame is dispatched task by
task in input order, which keeps the ordering promises only when each
topic-partition's events come from one input partition (``df.coalesce(1)``); a
Python data source cannot ask Spark for a distribution, so when two tasks fed one
topic-partition the write is refused naming it, in ``commit()`` before anything
is published (``file://``). A delivering sink cannot wait for ``commit()``: there
a task of any input partition but the first refuses such a DataFrame before it
writes (the first cannot know it is not alone). Such a task also cannot know every
topic before it routes its first resolved event (it sees its own input only,
once), so topic rules are refused there when the protocol broadcasts resolved
events: the error points to ``cdcwire.spark.write``, which plans all topics first.
``cdcwire.spark.write`` does the full job and returns a summary.
``writeStream.format("cdcwire")`` is refused for the same reason (it would need that
distribution for every micro-batch): ``cdcwire.spark.write_stream`` does that job.
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
from ..sink import Sink
from ..transport import WriteJob
from .rows.arrow_events import checked_events
from .writer.encoding import EncodingTask, encode_routed
from .runtime.job_errors import carried_to_driver
from .reader.message_ranges import MessageRange, plan_message_ranges, ranges_from_json
from ..table_filter import TableFilter
from .reader.range_decoding import decode_range
from .rows.schema import (
    PERMISSIVE_READ_EVENT_SCHEMA,
    PERMISSIVE_SOURCE_READ_EVENT_SCHEMA,
    READ_EVENT_SCHEMA,
    SOURCE_READ_EVENT_SCHEMA,
)
from .runtime.sink_cache import cached_sink
from .reader.source_options import BATCH_OPTIONS, batch_starts, data_loss_fails, ending_offsets, lower_cased, refuse_unknown

BATCH_EVENTS = 4096


def is_permissive(options: dict) -> bool:
    mode = str(options.get("mode", "FAILFAST")).upper()
    if mode not in ("FAILFAST", "PERMISSIVE"):
        raise CdcwireError(f"option mode must be FAILFAST or PERMISSIVE, got {mode!r}")
    return mode == "PERMISSIVE"


class MessageEventsReader(DataSourceReader):
    def __init__(self, options: dict, stamped: bool = False) -> None:
        refuse_unknown(options, BATCH_OPTIONS, "spark.read.format('cdcwire')")
        self.stamped = stamped  # rows carry their message's timestamp (SOURCE_READ_EVENT_SCHEMA)
        self.uri = options["source-uri"]
        self.topics = options.get("topics", "")
        self.start_offset, self.offsets = batch_starts(options)
        self.ends = ending_offsets(lower_cased(options).get("endingoffsets"))
        self.fail_on_data_loss = data_loss_fails(options)
        self.ranges = options.get("ranges")
        self.permissive = is_permissive(options)
        self.tables = options.get("tables", "")
        if self.tables:
            TableFilter.of(self.tables)  # a bad pattern fails on the driver

    def partitions(self) -> list[MessageRange]:
        if self.ranges is not None:
            ranges = ranges_from_json(self.ranges)
        else:
            ranges = plan_message_ranges(
                self.uri, self.topics, self.start_offset, self.offsets, ends=self.ends,
                fail_on_data_loss=self.fail_on_data_loss,
            )
        return ranges or [MessageRange("", -1, 0, 0)]

    def read(self, partition: MessageRange) -> Iterator[pa.RecordBatch]:
        if partition.partition >= 0:
            with carried_to_driver("reading messages from a source"):  # see job_errors
                if self.stamped:
                    from .reader.stream_source import decode_stamped_range

                    yield from decode_stamped_range(self.uri, partition, self.permissive, self.tables)
                else:
                    yield from decode_range(self.uri, partition, self.permissive, self.tables)


@dataclass
class WrittenCounts(WriterCommitMessage):
    """What one write task did; ``dispatched`` when it dispatched an unprepared DataFrame itself;
    ``receipt``: its writer's, for :meth:`WriteJob.publish`."""

    events: int
    messages: int
    bytes: int
    partitions: tuple[tuple[str, int], ...] = ()
    dispatched: bool = False
    receipt: str = ""


class EventsWriter(DataSourceArrowWriter):
    """Made with the write job by ``writer()``, in a Python worker of the driver; Spark pickles it
    to the tasks and to ``commit()``/``abort()``, which run in another worker with a copy of the job."""

    def __init__(self, uri: str, job: WriteJob) -> None:
        self.uri = uri
        self.job = job

    def write(self, iterator: Iterator[pa.RecordBatch]) -> WrittenCounts:
        with carried_to_driver("a format('cdcwire') write task"):  # see job_errors
            return self._write(iterator)

    def _write(self, iterator: Iterator[pa.RecordBatch]) -> WrittenCounts:
        first = next(iterator, None)
        if first is None:
            return WrittenCounts(0, 0, 0)
        prepared = "_cdc_topic" in first.schema.names
        if not prepared and not self.job.all_or_nothing:
            refuse_later_input_partitions(self.uri)

        def batches() -> Iterator[pa.RecordBatch]:
            yield first
            yield from iterator

        if prepared:
            results = list(encode_routed(EncodingTask(self.job, self.uri), batches()))
        else:
            results = [_dispatch_in_order(self.uri, self.job, batches())]
        events = messages = size = 0
        partitions: list[tuple[str, int]] = []
        receipt = ""
        for r in results:
            events += sum(r.column("events").to_pylist())
            messages += sum(r.column("messages").to_pylist())
            size += sum(r.column("bytes").to_pylist())
            written = zip(r.column("topic").to_pylist(), r.column("partition").to_pylist())
            partitions += [(t, p) for t, p in written if t is not None]  # topic None: the task's row
            receipt = next((x for x in r.column("receipt").to_pylist() if x), receipt)
        return WrittenCounts(events, messages, size, tuple(partitions), not prepared, receipt)

    def commit(self, messages: list[Optional[WrittenCounts]]) -> None:
        """Publish the tasks' writes, unless tasks that dispatched by themselves shared a topic-partition.

        Within one task events keep their input order; across tasks nothing orders them,
        so two tasks feeding one topic-partition may break the per-key ordering promise.
        Such a write is refused before anything is published (``file://``: it leaves nothing);
        the error says what happened and what to use instead.
        """
        try:
            refuse_shared_topic_partitions(messages)
            self.job.publish([m.receipt for m in messages if m is not None and m.receipt])
        except BaseException:
            self.job.discard()
            raise

    def abort(self, messages: list[Optional[WrittenCounts]]) -> None:
        """A task or the commit failed: remove whatever the job staged (failed attempts' included)."""
        self.job.discard()


def refuse_shared_topic_partitions(messages: list[Optional[WrittenCounts]]) -> None:
    """Raise when two tasks that dispatched by themselves wrote one topic-partition."""
    writers: dict[tuple[str, int], int] = {}
    for m in messages:
        if m is not None and m.dispatched:
            for tp in m.partitions:
                writers[tp] = writers.get(tp, 0) + 1
    shared = sorted(tp for tp, n in writers.items() if n > 1)
    if shared:
        listed = ", ".join(f"{t}/{p}" for t, p in shared[:5]) + (" ..." if len(shared) > 5 else "")
        raise CdcwireError(
            f"format('cdcwire') refused to publish {len(shared)} topic-partition(s) ({listed}) fed from more"
            " than one input partition: their order across those partitions is not guaranteed; write with"
            " cdcwire.spark.write(df, uri), write cdcwire.spark.prepare(df, uri)[0], or coalesce(1) first"
        )


def refuse_later_input_partitions(uri: str) -> None:
    """For a sink that delivers as tasks write: refuse, before writing, an unprepared DataFrame's
    second or later input partition (``commit()`` would come too late to refuse a shared one)."""
    from pyspark import TaskContext

    task = TaskContext.get()
    index = task.partitionId() if task is not None else 0
    if index > 0:
        raise CdcwireError(
            f"format('cdcwire') refused an event DataFrame fed from more than one input partition (this task"
            f" reads input partition {index}): {cached_sink(uri).config.redacted_uri} gets messages as tasks write,"
            " and two input partitions may feed one topic-partition in no order; write df.coalesce(1),"
            " write cdcwire.spark.prepare(df, uri)[0], or use cdcwire.spark.write(df, uri)"
        )


def _dispatch_in_order(uri: str, job: WriteJob, batches: Iterator[pa.RecordBatch]) -> pa.RecordBatch:
    """Dispatch one task's events in input order and encode each topic-partition as a stream of chunks;
    one row per topic-partition, and the task's row (topic null) with its writer's receipt."""
    sink = cached_sink(uri)
    dispatcher = Dispatcher(sink, partition_count=transport_partition_count(sink))
    encoders: dict[tuple[str, int], object] = {}
    pending: dict[tuple[str, int], list] = {}
    stats: dict[tuple[str, int], list[int]] = {}
    writer = job.task_writer()

    def drain(tp: tuple[str, int]) -> None:
        chunk = pending.pop(tp, [])
        if not chunk:
            return
        encoder = encoders.get(tp)
        if encoder is None:
            encoder = encoders[tp] = encoder_for(sink, tp[0], tp[1])
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
    rows = [(*k, stats[k][0], stats[k][0], stats[k][1], stats[k][2], None) for k in keys]
    rows.append((None, None, 0, 0, 0, 0, writer.receipt))  # the task's row
    columns = list(zip(*rows))
    return pa.RecordBatch.from_arrays(
        [
            pa.array(columns[0], pa.string()),
            pa.array(columns[1], pa.int32()),
            *(pa.array(c, pa.int64()) for c in columns[2:6]),
            pa.array(columns[6], pa.string()),
        ],
        names=["topic", "partition", "events", "encoded", "messages", "bytes", "receipt"],
    )


class CdcwireDataSource(DataSource):
    """``format("cdcwire")``: see the module doc."""

    @classmethod
    def name(cls) -> str:
        return "cdcwire"

    def schema(self):
        """Batch and streaming reads alike (Spark asks before it knows which); reads that pin
        ``ranges`` (``cdcwire.spark.read``) keep the read schema without ``timestamp``."""
        permissive = is_permissive(dict(self.options))
        if self.options.get("ranges") is not None:
            return PERMISSIVE_READ_EVENT_SCHEMA if permissive else READ_EVENT_SCHEMA
        return PERMISSIVE_SOURCE_READ_EVENT_SCHEMA if permissive else SOURCE_READ_EVENT_SCHEMA

    def reader(self, schema) -> MessageEventsReader:
        if not self.options.get("source-uri"):
            raise SinkURIError('the cdcwire source needs .option("source-uri", URI)', "source-uri")
        return MessageEventsReader(dict(self.options), stamped="timestamp" in schema.fieldNames())

    def streamReader(self, schema):
        """``spark.readStream.format("cdcwire")``: see :mod:`cdcwire.spark.reader.stream_source`."""
        from .reader.stream_source import MessageEventsStreamReader

        if not self.options.get("source-uri"):
            raise SinkURIError('the cdcwire stream source needs .option("source-uri", URI)', "source-uri")
        if "timestamp" not in schema.fieldNames():
            raise CdcwireError(
                "a stream of format('cdcwire') has a timestamp column; its schema is"
                " cdcwire.spark.rows.schema.SOURCE_READ_EVENT_SCHEMA (no ranges option, no other schema)"
            )
        cached_sink(self.options["source-uri"])  # a bad URI fails here, before the query starts
        return MessageEventsStreamReader(self.options)

    def streamWriter(self, schema, overwrite: bool):
        raise CdcwireError(
            "writeStream.format('cdcwire') is not supported: a Python data source cannot ask Spark to"
            " shuffle each micro-batch by topic-partition and order it by commit ts, which a write"
            " needs; use cdcwire.spark.write_stream(df, uri, checkpoint)"
        )

    def writer(self, schema, overwrite: bool) -> EventsWriter:
        uri = self.options.get("sink-uri")
        if not uri:
            raise SinkURIError('the cdcwire sink needs .option("sink-uri", URI)', "sink-uri")
        sink = cached_sink(uri)  # a bad URI fails here, before any task runs
        if "_cdc_topic" not in schema.names:
            refuse_unplanned_topics(sink)
        # Spark itself refuses mode("errorifexists") and mode("ignore") for Python data sources;
        # mode("overwrite") arrives here, and a delivering transport refuses it (pointing at append).
        return EventsWriter(uri, sink.needs_transport().begin_write(sink.config, uri, overwrite=overwrite))


def refuse_unplanned_topics(sink: Sink) -> None:
    """Topic rules need every topic known before the first resolved event is broadcast, which a
    task dispatching its own input cannot know: refuse them where resolved events are sent."""
    config = sink.config
    if sink.codec.policy(config).resolved is Broadcast.NONE:
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
    from .reader.jsonl_source import EventLinesDataSource

    spark.dataSource.register(CdcwireDataSource)
    spark.dataSource.register(EventLinesDataSource)
    _REGISTERED.add(id(spark))
