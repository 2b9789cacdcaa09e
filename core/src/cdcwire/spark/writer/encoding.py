"""The encoding stage: one Spark task per topic-partition encodes its sorted events and writes them.

The task streams: Arrow batches become :class:`cdcwire.model.event_batch.EventBatch`
columns one batch at a time (no ``Column`` objects), the codec's encoder batches
their events into messages (through its columnar capability when it has one, see
:func:`cdcwire.api.codec_calls.encode_batches`), and the task's writer takes each
message as it is made. The writer comes from the write job the driver began
(:class:`cdcwire.contract.transport.WriteJob`): ``file://`` stages what the task writes and
the driver publishes it once every task succeeded; ``kafka://`` delivers as it
goes. The task hands its writer's receipt back in its result row. Leaving the
task flushes the writer; a delivery failure fails the task (and the job) instead
of being dropped.

An event the encoder refuses goes to the dead letters when the write has a
dead-letter directory (see :mod:`cdcwire.spark.writer.dead_letters`), else fails the job.

The routing tasks' count rows arrive mixed with the events; the task takes them
out and sums them into a result row of its own (topic null), so that the driver
gets the routing counts through the action, exactly once.
"""

from __future__ import annotations

import itertools
from dataclasses import astuple, dataclass
from typing import Any, Callable, Iterable, Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import ArrayType, IntegerType, LongType, StringType, StructField, StructType

from ...api.codec_calls import encode_batches, encoder_for
from ...foundation.errors import CdcwireError
from ...model.events import Event
from ...api.message_writing import WrittenMessages, write_payloads
from ...model.message import Payload
from ...foundation.redact import redact_url
from ...contract.transport import WriteJob
from ..runtime.collector import fewer_collections
from ..rows.arrow_batches import routed_event_batch
from ..rows.arrow_events import batch_problems
from ..runtime.job_errors import carried_to_driver
from .dead_letters import RefusedEvents, encode_refusing, input_row
from .jvm_encoding import BEFORE_COLUMN, EVENTS_COLUMN, KEY_COLUMN, STATE_COLUMN, VALUE_COLUMN
from .jvm_staging import marker_mask, markers, without_markers
from .routing_counts import COUNTERS, RoutingCounts, split_count_rows
from ..runtime.sink_cache import cached_sink

_NO_COUNTS = (0,) * len(COUNTERS)

#: One row per topic-partition a task wrote, and one with topic and partition null for the
#: task itself: the routing counts it received, its writer's receipt and the input rows of
#: the event copies it dead-lettered (every number column sums over all rows).
RESULT_SCHEMA = StructType(
    [
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("events", LongType(), False),  # event copies fed to the encoder
        StructField("encoded", LongType(), False),  # events the messages say they carry
        StructField("messages", LongType(), False),
        StructField("bytes", LongType(), False),
        *(StructField(name, LongType(), False) for name in COUNTERS),
        StructField("receipt", StringType()),  # for WriteJob.publish
        StructField("refused_rows", ArrayType(LongType())),  # input rows (_cdc_seq) dead-lettered here
    ]
)


@dataclass(frozen=True, slots=True)
class EncodingTask:
    """What the driver ships to every encoding task: the write job its writer comes from, the sink,
    and where events the encoder refuses go (None: the first one fails the job)."""

    job: WriteJob
    sink_uri: str
    dead_letter: Optional[str] = None
    write_id: str = ""
    #: A Spark accumulator the task adds its event copies to when it ends, for a progress
    #: display only (a retried task adds again; the summary counts from result rows).
    progress: Any = None
    #: The JVM routing tier routed the rows: check each batch as Python routing would have
    #: (refusing the first malformed row) and count the routed copies (that tier sends count
    #: rows only for events without a message).
    checks_rows: bool = False
    #: The JVM encoding tier made the message values it could (:data:`~.jvm_encoding.VALUE_COLUMN`).
    jvm_values: bool = False

    def __repr__(self) -> str:
        return f"EncodingTask({self.job!r}, {redact_url(self.sink_uri)!r}, dead_letter={self.dead_letter!r})"


def _partition_runs(
    batches: Iterator[pa.RecordBatch], received: RoutingCounts, checks_rows: bool = False
) -> Iterator[tuple[tuple[str, int], pa.RecordBatch]]:
    """Each batch's runs of one topic-partition (batches arrive sorted by it); the routing
    tasks' count rows are taken out and summed into ``received`` (``checks_rows``: see
    :attr:`EncodingTask.checks_rows`)."""
    for batch in batches:
        batch, counts = split_count_rows(batch)
        if counts is not None:
            received.add(counts)
        if not batch.num_rows:
            continue
        if checks_rows:
            plain = without_markers(batch)
            refuse_malformed(python_encoded(plain))
            events = pc.sum(pc.equal(plain.column("_cdc_sub"), 0)).as_py() or 0
            received.add(RoutingCounts(events_in=events, routed=events, copies=plain.num_rows))
            for marker in markers(batch):  # the copies Java staged
                received.add(marker.routing_counts())
        topics = batch.column("_cdc_topic")
        partitions = batch.column("_cdc_partition")
        first = (topics[0].as_py(), partitions[0].as_py())
        last = (topics[-1].as_py(), partitions[-1].as_py())
        if first == last:  # the usual case: a task encodes one topic-partition
            yield first, batch
            continue
        keys = list(zip(topics.to_pylist(), partitions.to_pylist()))
        start = 0
        for tp, run in itertools.groupby(keys):
            length = sum(1 for _ in run)
            yield tp, batch.slice(start, length)
            start += length


def python_encoded(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The rows of a batch the JVM encoding tier left to Python (all rows without that tier):
    the others were checked by the Java tier's conservative port of the record checks."""
    made = _made_column(batch)
    if made is None:
        return batch
    return batch if made.null_count == len(made) else batch.filter(made.is_null())


def _made_column(batch: pa.RecordBatch) -> Optional[pa.Array]:
    """The column that is null on the rows the JVM tier left to Python: a batching format's event
    count (a carried event has a count and no value), else the value; None without that tier."""
    for name in (EVENTS_COLUMN, VALUE_COLUMN):
        if name in batch.schema.names:
            return batch.column(name)
    return None


#: What a run of rows in the encoding stage is: left to the Python encoder, messages the JVM tier
#: made, or markers of messages it staged itself (:mod:`.jvm_staging`).
PYTHON, MADE, STAGED = 0, 1, 2


def _pieces(batches: Iterable[pa.RecordBatch]) -> Iterator[tuple[int, pa.RecordBatch]]:
    """Each batch's runs of rows of one kind (:data:`PYTHON`, :data:`MADE`, :data:`STAGED`), in order."""
    for batch in batches:
        kinds = pc.cast(_made_column(batch).is_valid(), pa.int8())
        mask = marker_mask(batch)
        if mask is not None:
            kinds = pc.if_else(mask, pa.scalar(STAGED, pa.int8()), kinds)
        start = 0
        for kind, run in itertools.groupby(kinds.to_numpy(zero_copy_only=False).tolist()):
            length = sum(1 for _ in run)
            yield kind, batch.slice(start, length)
            start += length


def _write_made(writer: Any, topic: str, partition: int, piece: pa.RecordBatch, counts: WrittenMessages) -> None:
    """Write the messages the JVM tier made for a run of rows, in order."""
    if EVENTS_COLUMN not in piece.schema.names:  # one keyless message a row
        made_values = piece.column(VALUE_COLUMN)
        writer.write_values(topic, partition, made_values.to_pylist())
        counts.events += piece.num_rows
        counts.messages += piece.num_rows
        counts.bytes += pc.sum(pc.binary_length(made_values)).as_py()
        return
    write_payloads(writer, topic, partition, made_payloads(piece), counts)


def made_payloads(piece: pa.RecordBatch) -> Iterator[Payload]:
    """The messages a batching Java encoder made for a run of rows, in order: on each row, the
    messages of no event before it (:data:`BEFORE_COLUMN`), then its own message (a carried event
    has none)."""
    before = piece.column(BEFORE_COLUMN) if BEFORE_COLUMN in piece.schema.names else None
    if before is None or before.null_count == len(before):
        messages = piece.filter(pc.greater(piece.column(EVENTS_COLUMN), 0))
        yield from (
            Payload(key, value, events)
            for key, value, events in zip(
                messages.column(KEY_COLUMN).to_pylist(), messages.column(VALUE_COLUMN).to_pylist(),
                messages.column(EVENTS_COLUMN).to_pylist(),
            )
        )
        return
    for pairs, key, value, events in zip(
        before.to_pylist(), piece.column(KEY_COLUMN).to_pylist(), piece.column(VALUE_COLUMN).to_pylist(),
        piece.column(EVENTS_COLUMN).to_pylist(),
    ):
        for pair in pairs or ():
            yield Payload(pair["key"], pair["value"], 0)
        if events:
            yield Payload(key, value, events)


def _write_mixed(writer: Any, topic: str, partition: int, encoder: Any, batches: Iterable[pa.RecordBatch]) -> WrittenMessages:
    """Write batches the JVM encoding tier made in part: each run of its messages as it is, each
    run of rows it left to Python encoded by ``encoder``, in its place. A run of Python's spans
    the batches it lies in, in one call of the encoder, so that a batching encoder closes its
    messages where it would over the whole run."""
    counts = WrittenMessages()
    for kind, pieces in itertools.groupby(_pieces(batches), key=lambda item: item[0]):
        if kind == MADE:
            for _, piece in pieces:
                _write_made(writer, topic, partition, piece, counts)
        elif kind == STAGED:
            for _, piece in pieces:
                _take_staged(writer, piece, counts)
        else:
            events = (routed_event_batch(run) for _, piece in pieces for run in handed_over(encoder, piece))
            write_payloads(writer, topic, partition, encode_batches(encoder, events), counts)
    return counts


def handed_over(encoder: Any, piece: pa.RecordBatch) -> Iterator[pa.RecordBatch]:
    """``piece`` in runs, ``encoder`` given the state a Java encoder handed over (plugin API 1.18,
    :data:`STATE_COLUMN`) before the row that carries it: the first row left to Python after Java
    stopped, so the Python encoder continues where Java did. Lazily: the encoder has taken the rows
    before when it adopts the state. An encoder whose Java twin hands none over never gets one."""
    states = piece.column(STATE_COLUMN) if STATE_COLUMN in piece.schema.names else None
    if states is None or states.null_count == len(states):
        yield piece
        return
    start = 0
    for at, state in enumerate(states.to_pylist()):
        if state is None:
            continue
        if at > start:
            yield piece.slice(start, at - start)
        encoder.adopt_handed_state(state)
        start = at
    yield piece.slice(start)


def _take_staged(writer: Any, piece: pa.RecordBatch, counts: WrittenMessages) -> None:
    """Hand the messages the JVM tier staged itself to the writer, in order, and count them."""
    for marker in markers(piece):
        marker.raise_failure()
        writer.take_staged(marker.run)
        counts.events += marker.events
        counts.messages += marker.messages
        counts.bytes += marker.bytes


def refuse_malformed(batch: pa.RecordBatch) -> None:
    """Raise for the first malformed row of a batch the JVM tier routed, as Python routing
    refuses it without a dead-letter path."""
    problems = batch_problems(batch)
    if problems:
        row = min(problems, key=lambda i: batch.column("_cdc_seq")[i].as_py())
        source = input_row(batch.column("_cdc_seq")[row].as_py())
        raise CdcwireError(f"malformed input record at {source}: {problems[row]}")


def _event_copies(batches: Iterable[pa.RecordBatch]) -> Iterator[tuple[int, Event]]:
    """The Event path: each event copy, halves applied, with its input row (for dead letters)."""
    for batch in batches:
        events = routed_event_batch(batch)
        for seq, event in zip(batch.column("_cdc_seq").to_pylist(), events.events()):
            yield seq, event


def encode_stage(task: EncodingTask) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function of the encoding stage (runs on executors)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        with carried_to_driver("the encoding stage"), fewer_collections():  # see job_errors
            yield from encode_routed(task, batches, TaskContext.get())

    return run


def encode_routed(
    task: EncodingTask, batches: Iterator[pa.RecordBatch], context: Any = None
) -> Iterator[pa.RecordBatch]:
    """Encode and write routed, sorted batches; one result batch with a row per topic-partition and
    the task's row. ``context``: the TaskContext (names the task's dead-letter file)."""
    sink = cached_sink(task.sink_uri)
    rows: list[tuple] = []
    received = RoutingCounts()
    refused = RefusedEvents.for_task(task.dead_letter, task.write_id, context)
    writer = task.job.task_writer()
    topic, partition = "?", -1
    try:
        runs_of = _partition_runs(batches, received, task.checks_rows)
        for tp, runs in itertools.groupby(runs_of, key=lambda item: item[0]):
            topic, partition = tp
            fed = 0

            def routed(runs=runs) -> Iterator[pa.RecordBatch]:
                nonlocal fed
                for _, batch in runs:
                    fed += batch.num_rows + sum(marker.fed - 1 for marker in markers(batch))
                    yield batch

            refuse = refused.refuser(topic, partition)
            if refuse is None:  # the columnar path: no Column objects (see codec_calls.encode_batches)
                encoder = encoder_for(sink, topic, partition, events_checked=True)
                if task.jvm_values:
                    written = _write_mixed(writer, topic, partition, encoder, routed())
                else:
                    written = write_payloads(writer, topic, partition, encode_batches(encoder, map(routed_event_batch, routed())))
            else:  # dead letters need each event's input row: the Event path, one event at a time
                payloads = encode_refusing(sink, topic, partition, _event_copies(routed()), refuse)
                written = write_payloads(writer, topic, partition, payloads)
            rows.append((topic, partition, fed, *astuple(written)))
        writer.close()
        refused.publish()
    except CdcwireError as exc:  # raised as it is (as cdcwire.encode would), the place in a note
        writer.abort()
        refused.discard()
        exc.add_note(f"while writing {topic}/{partition} to {sink.config.redacted_uri}")
        raise
    except BaseException:
        writer.abort()
        refused.discard()
        raise
    if task.progress is not None:
        task.progress.add(sum(row[2] for row in rows))
    yield result_batch(rows, received, writer.receipt, refused.rows)


def result_batch(
    rows: list[tuple], received: Optional[RoutingCounts] = None, receipt: str = "", refused_rows: Optional[list[int]] = None
) -> pa.RecordBatch:
    """An encoding task's result (:data:`RESULT_SCHEMA`): ``rows`` are ``(topic, partition, events,
    encoded, messages, bytes)`` per topic-partition written; the task's row is added with the
    routing counts it ``received``, its writer's ``receipt`` and its dead-lettered ``refused_rows``."""
    rows = [(*row, *_NO_COUNTS, None, None) for row in rows]
    rows.append((None, None, 0, 0, 0, 0, *astuple(received or RoutingCounts()), receipt, refused_rows))
    columns = list(zip(*rows))
    return pa.RecordBatch.from_arrays(
        [
            pa.array(columns[0], pa.string()),
            pa.array(columns[1], pa.int32()),
            *(pa.array(c, pa.int64()) for c in columns[2:-2]),
            pa.array(columns[-2], pa.string()),
            pa.array(columns[-1], pa.list_(pa.int64())),
        ],
        names=[f.name for f in RESULT_SCHEMA.fields],
    )
