"""``df.write.format("cdcwire")``: the format's writer, one write job over the tasks.

Writes go through a write job (:meth:`cdcwire.contract.transport.Transport.begin_write`): on
``file://`` each task stages, ``commit()`` publishes once every task succeeded and
``abort()`` discards, so a failed write leaves nothing. A DataFrame laid out by
:func:`cdcwire.spark.prepare` is encoded as the pipeline's encoding stage encodes it
(:func:`~.encoding.encode_routed`); any other event DataFrame is dispatched task by task in
input order (:func:`dispatch_in_order`), with the refusals :mod:`cdcwire.spark.format`
describes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import pyarrow as pa
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

from ...api.functions import transport_partition_count
from ...contract.codec import Broadcast
from ...api.codec_calls import encoder_for
from ...dispatch import Dispatcher
from ...foundation.errors import CdcwireError
from ...api.message_writing import WrittenMessages, write_payloads
from ...sinks.sink import Sink
from ...contract.transport import WriteJob
from ..rows.arrow_events import checked_events
from ..runtime.job_errors import carried_to_driver
from ..runtime.sink_cache import cached_sink
from .encoding import EncodingTask, encode_routed, result_batch

#: Events of one topic-partition given to its encoder at a time, when dispatching in input order.
BATCH_EVENTS = 4096


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
            results = [dispatch_in_order(self.uri, self.job, batches())]
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


def dispatch_in_order(uri: str, job: WriteJob, batches: Iterator[pa.RecordBatch]) -> pa.RecordBatch:
    """Dispatch one task's events in input order and encode each topic-partition as a stream of chunks;
    the encoding stage's result (:func:`~.encoding.result_batch`): a row per topic-partition and the
    task's row with its writer's receipt."""
    sink = cached_sink(uri)
    dispatcher = Dispatcher(sink, partition_count=transport_partition_count(sink))
    encoders: dict[tuple[str, int], object] = {}
    pending: dict[tuple[str, int], list] = {}
    fed: dict[tuple[str, int], int] = {}
    written: dict[tuple[str, int], WrittenMessages] = {}
    writer = job.task_writer()

    def drain(tp: tuple[str, int]) -> None:
        chunk = pending.pop(tp, [])
        if not chunk:
            return
        encoder = encoders.get(tp)
        if encoder is None:
            encoder = encoders[tp] = encoder_for(sink, tp[0], tp[1])
        fed[tp] = fed.get(tp, 0) + len(chunk)
        payloads = encoder.encode(chunk)  # type: ignore[attr-defined]
        written[tp] = write_payloads(writer, tp[0], tp[1], payloads, written.get(tp))

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
    rows = [(*tp, fed[tp], written[tp].events, written[tp].messages, written[tp].bytes) for tp in sorted(written)]
    return result_batch(rows, receipt=writer.receipt)


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
