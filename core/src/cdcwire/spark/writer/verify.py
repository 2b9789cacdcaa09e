"""Checks that what was read back from a sink is what was written, per the protocol's information.

Both sides become (topic, partition, canonical event JSON) rows and are compared
as multisets in Spark: expected = every routed copy of every input event as the
codec carries it (``Codec.carried``); actual = every decoded event. Nothing is
collected but the counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

from ...sinks.sink import Sink, SinkLike, open_sink
from ...model.event_json import to_json
from ...dispatch import Dispatcher
from ..rows.arrow_events import batch_to_events
from ..runtime.collector import fewer_collections
from ..runtime.job_errors import cdcwire_errors_raised
from .routing import plan_routes
from ..runtime.sink_cache import cached_sink

PLACED_SCHEMA = StructType(
    [
        StructField("topic", StringType(), False),
        StructField("partition", IntegerType(), False),
        StructField("event", StringType(), False),
    ]
)


@dataclass(frozen=True, slots=True)
class Comparison:
    expected: int
    actual: int
    missing: int  # expected copies not read back
    unexpected: int  # read back but not expected (beyond duplicates)
    duplicates: int  # extra copies of expected events (at-least-once delivery)

    @property
    def equal(self) -> bool:
        return self.missing == 0 and self.unexpected == 0 and self.duplicates == 0

    @property
    def nothing_lost(self) -> bool:
        return self.missing == 0 and self.unexpected == 0


def expected_placed(df: DataFrame, sink_uri: SinkLike) -> DataFrame:
    """(topic, partition, event JSON) of every copy the sink should hold, as the codec carries it."""
    plan = plan_routes(df.sparkSession, df, open_sink(sink_uri), None)
    uri = plan.sink_uri

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        sink = cached_sink(uri)
        dispatcher = Dispatcher(sink, partition_count=plan.partition_counts.__getitem__)
        dispatcher.topics = set(plan.partition_counts)
        with fewer_collections():
            yield from _placed_copies(sink, dispatcher, batches)

    return df.mapInArrow(run, PLACED_SCHEMA)


def _placed_copies(
    sink: Sink, dispatcher: Dispatcher, batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    """(topic, partition, event JSON) of each routed copy, as the codec carries it."""
    carry = sink.codec.carrier(sink.config)
    for batch in batches:
        topics, parts, texts = [], [], []
        for event in batch_to_events(batch):
            for route in dispatcher.route(event):
                carried = carry(route.event)
                if carried is not None:
                    topics.append(route.topic)
                    parts.append(route.partition)
                    texts.append(to_json(carried))
        yield pa.RecordBatch.from_arrays(
            [pa.array(topics, pa.string()), pa.array(parts, pa.int32()), pa.array(texts, pa.string())],
            names=["topic", "partition", "event"],
        )


def actual_placed(read_df: DataFrame) -> DataFrame:
    """(topic, partition, event JSON) of every event read back."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        with fewer_collections():
            for batch in batches:
                texts = [to_json(e) for e in batch_to_events(batch)]
                yield pa.RecordBatch.from_arrays(
                    [batch.column("topic"), batch.column("partition"), pa.array(texts, pa.string())],
                    names=["topic", "partition", "event"],
                )

    return read_df.mapInArrow(run, PLACED_SCHEMA)


def compare(input_df: DataFrame, read_df: DataFrame, sink_uri: SinkLike) -> Comparison:
    """Compare an input event DataFrame with what ``cdcwire.spark.read`` gave back from the sink."""
    expected = expected_placed(input_df, sink_uri).cache()
    actual = actual_placed(read_df).cache()
    try:
        with cdcwire_errors_raised():  # an undecodable message read back is a DecodeError, not Spark's
            n_expected, n_actual = expected.count(), actual.count()
            missing = expected.exceptAll(actual).count()
            extra = actual.exceptAll(expected)
            unexpected = extra.exceptAll(expected.distinct()).count()
            duplicates = extra.count() - unexpected
        return Comparison(n_expected, n_actual, missing, unexpected, duplicates)
    finally:
        expected.unpersist()
        actual.unpersist()
