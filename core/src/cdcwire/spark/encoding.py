"""The encoding stage: one Spark task per topic-partition encodes its sorted events and writes them.

The task streams: events come out of Arrow batches one batch at a time, the
codec's encoder batches them into messages, and the task's writer takes each
message as it is made. The writer comes from the write job the driver began
(:class:`cdcwire.transport.WriteJob`): ``file://`` stages what the task writes and
the driver publishes it once every task succeeded; ``kafka://`` delivers as it
goes. The task hands its writer's receipt back in its result row. Leaving the
task flushes the writer; a delivery failure fails the task (and the job) instead
of being dropped.

An event the encoder refuses goes to the dead letters when the write has a
dead-letter directory (see :mod:`cdcwire.spark.refused_events`), else fails the job.

The routing tasks' count rows arrive mixed with the events; the task takes them
out and sums them into a result row of its own (topic null), so that the driver
gets the routing counts through the action, exactly once.
"""

from __future__ import annotations

import itertools
from dataclasses import astuple, dataclass
from typing import Any, Callable, Iterator, Optional

import pyarrow as pa
from pyspark.sql.types import ArrayType, IntegerType, LongType, StringType, StructField, StructType

from ..errors import CdcwireError
from ..events import Event, RowChangedEvent, build_row_event
from ..message import Message
from ..redact import redact_url
from ..transport import WriteJob
from .collector import fewer_collections
from .arrow_events import batch_to_events
from .job_errors import carried_to_driver
from .refused_events import RefusedEvents, encode_refusing
from .routing_counts import COUNTERS, RoutingCounts, split_count_rows
from .sink_cache import cached_sink

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

    def __repr__(self) -> str:
        return f"EncodingTask({self.job!r}, {redact_url(self.sink_uri)!r}, dead_letter={self.dead_letter!r})"


def _half(event: Event, half: int) -> Event:
    """The delete (1) or insert (2) half of a key-changing update, as the dispatcher split it."""
    if half == 0:
        return event
    assert isinstance(event, RowChangedEvent)
    if half == 1:
        return build_row_event(event.commit_ts, event.schema, event.table, None, event.pre_columns, event.table_id)
    return build_row_event(event.commit_ts, event.schema, event.table, event.columns, None, event.table_id)


def _routed_events(
    batches: Iterator[pa.RecordBatch], received: RoutingCounts
) -> Iterator[tuple[tuple[str, int], int, Event]]:
    """Each event copy with its topic-partition and input row; count rows are summed into ``received``."""
    for batch in batches:
        batch, counts = split_count_rows(batch)
        if counts is not None:
            received.add(counts)
        topics = batch.column("_cdc_topic").to_pylist()
        partitions = batch.column("_cdc_partition").to_pylist()
        halves = batch.column("_cdc_half").to_pylist()
        seqs = batch.column("_cdc_seq").to_pylist()
        events = batch_to_events(batch)
        for topic, partition, half, seq, event in zip(topics, partitions, halves, seqs, events):
            yield (topic, partition), seq, (_half(event, half) if half else event)


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
        for tp, group in itertools.groupby(_routed_events(batches, received), key=lambda item: item[0]):
            topic, partition = tp
            fed = 0

            def events(group=group) -> Iterator[tuple[int, Event]]:
                nonlocal fed
                for _, seq, event in group:
                    fed += 1
                    yield seq, event

            encoded = messages = size = 0
            refuse = refused.refuser(topic, partition)
            for payload in encode_refusing(sink, topic, partition, events(), refuse):
                writer.write(Message(topic, partition, payload.key, payload.value))
                encoded += payload.events
                messages += 1
                size += len(payload.key or b"") + len(payload.value or b"")
            rows.append((topic, partition, fed, encoded, messages, size, *_NO_COUNTS, None, None))
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
    rows.append((None, None, 0, 0, 0, 0, *astuple(received), writer.receipt, refused.rows))
    columns = list(zip(*rows))
    yield pa.RecordBatch.from_arrays(
        [
            pa.array(columns[0], pa.string()),
            pa.array(columns[1], pa.int32()),
            *(pa.array(c, pa.int64()) for c in columns[2:-2]),
            pa.array(columns[-2], pa.string()),
            pa.array(columns[-1], pa.list_(pa.int64())),
        ],
        names=[f.name for f in RESULT_SCHEMA.fields],
    )
