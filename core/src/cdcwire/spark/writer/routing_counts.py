"""The routing stage's counts, carried to the driver as data.

Spark applies an accumulator update made inside a transformation once per task
*attempt*: a retried task, a recomputed stage or a speculative copy adds its
counts again, and the summary would no longer reconcile. Rows are exactly-once
where accumulators are not: each routing task ends with one count row, which
rides the shuffle with the events, the encoding stage sums the count rows it
receives into its result rows, and those reach the driver through the action.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql.types import LongType, StructField, StructType

#: The counters, in the order of their columns.
COUNTERS = ("events_in", "dead_lettered", "without_message", "routed", "copies")
COUNTS_TYPE = StructType([StructField(name, LongType(), False) for name in COUNTERS])
ARROW_COUNTS = pa.struct([pa.field(name, pa.int64(), False) for name in COUNTERS])
COUNTS_COLUMN = "_cdc_counts"


@dataclass(slots=True)
class RoutingCounts:
    """What routing did with its input: ``events_in == dead_lettered + without_message + routed``;
    ``copies`` counts routed copies (broadcast, key-change halves)."""

    events_in: int = 0
    dead_lettered: int = 0
    without_message: int = 0
    routed: int = 0
    copies: int = 0

    def add(self, other: "RoutingCounts") -> None:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_arrow(self) -> pa.StructArray:
        return pa.array([dict(zip(COUNTERS, astuple(self)))], ARROW_COUNTS)


def split_count_rows(batch: pa.RecordBatch) -> tuple[pa.RecordBatch, Optional[RoutingCounts]]:
    """The batch without its count rows, and their sum (None when it has none)."""
    if COUNTS_COLUMN not in batch.schema.names:
        return batch, None
    column = batch.column(COUNTS_COLUMN)
    if column.null_count == len(column):
        return batch, None
    total = RoutingCounts()
    for counts in column.drop_null().to_pylist():
        total.add(RoutingCounts(**counts))
    return batch.filter(pc.is_null(column)), total
