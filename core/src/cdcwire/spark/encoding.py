"""The encoding stage: one Spark task per topic-partition encodes its sorted events and writes them.

The task streams: events come out of Arrow batches one batch at a time, the
codec's encoder batches them into messages, and the transport writer sends each
message as it is made. Leaving the task flushes the writer; a delivery failure
fails the task (and the job) instead of being dropped.

The routing tasks' count rows arrive mixed with the events; the task takes them
out and sums them into a result row of its own (topic null), so that the driver
gets the routing counts through the action, exactly once.
"""

from __future__ import annotations

import itertools
from dataclasses import astuple
from typing import Callable, Iterator

import pyarrow as pa
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from ..codec_calls import encoder_for
from ..errors import CdcwireError
from ..events import Event, RowChangedEvent, build_row_event
from ..message import Message
from .collector import fewer_collections
from .arrow_events import batch_to_events
from .routing_counts import COUNTERS, RoutingCounts, split_count_rows
from .sink_cache import sink_config

_NO_COUNTS = (0,) * len(COUNTERS)

#: One row per topic-partition a task wrote, and one with topic and partition null
#: for the routing counts it received (every number column sums over all rows).
RESULT_SCHEMA = StructType(
    [
        StructField("topic", StringType()),
        StructField("partition", IntegerType()),
        StructField("events", LongType(), False),  # event copies fed to the encoder
        StructField("encoded", LongType(), False),  # events the messages say they carry
        StructField("messages", LongType(), False),
        StructField("bytes", LongType(), False),
        *(StructField(name, LongType(), False) for name in COUNTERS),
    ]
)


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
) -> Iterator[tuple[tuple[str, int], Event]]:
    """Each event copy with its topic-partition; count rows are summed into ``received``."""
    for batch in batches:
        batch, counts = split_count_rows(batch)
        if counts is not None:
            received.add(counts)
        topics = batch.column("_cdc_topic").to_pylist()
        partitions = batch.column("_cdc_partition").to_pylist()
        halves = batch.column("_cdc_half").to_pylist()
        events = batch_to_events(batch)
        for topic, partition, half, event in zip(topics, partitions, halves, events):
            yield (topic, partition), (_half(event, half) if half else event)


def encode_stage(sink_uri: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function of the encoding stage (runs on executors)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        with fewer_collections():
            yield from encode_routed(sink_uri, batches)

    return run


def encode_routed(sink_uri: str, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Encode and write routed, sorted batches; one result batch with a row per topic-partition."""
    config = sink_config(sink_uri)
    rows: list[tuple] = []
    received = RoutingCounts()
    writer = config.transport.writer(config)
    topic, partition = "?", -1
    try:
        for tp, group in itertools.groupby(_routed_events(batches, received), key=lambda pair: pair[0]):
            topic, partition = tp
            fed = 0

            def events(group=group) -> Iterator[Event]:
                nonlocal fed
                for _, event in group:
                    fed += 1
                    yield event

            encoder = encoder_for(config, topic, partition)
            encoded = messages = size = 0
            for payload in encoder.encode(events()):
                writer.write(Message(topic, partition, payload.key, payload.value))
                encoded += payload.events
                messages += 1
                size += len(payload.key or b"") + len(payload.value or b"")
            rows.append((topic, partition, fed, encoded, messages, size, *_NO_COUNTS))
        writer.close()
    except CdcwireError as exc:
        writer.abort()
        raise CdcwireError(f"writing {topic}/{partition} to {config.redacted_uri}: {exc}") from None
    except BaseException:
        writer.abort()
        raise
    if received != RoutingCounts():
        rows.append((None, None, 0, 0, 0, 0, *astuple(received)))
    if rows:
        columns = list(zip(*rows))
        yield pa.RecordBatch.from_arrays(
            [
                pa.array(columns[0], pa.string()),
                pa.array(columns[1], pa.int32()),
                *(pa.array(c, pa.int64()) for c in columns[2:]),
            ],
            names=[f.name for f in RESULT_SCHEMA.fields],
        )
