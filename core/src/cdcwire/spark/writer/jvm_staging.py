"""The JVM staging tier: the messages the Java encoders made for a write, staged by Java itself.

Where the write's job offers a staging area (``file://``: :meth:`WriteJob.staging_area`), the
Java encoding tier's rows go through ``io.cdcwire.spark.FramedStaging`` in the same tasks, before
the encoding stage (:func:`.jvm_encoding.jvm_encoded_partitions`): each run of rows whose messages Java made is framed and staged in the JVM and
replaced by one marker row per topic-partition (:data:`STAGED_COLUMN`, a JSON text, with the
row's topic and partition); the rows Java left to Python come through as they are, in their
place. The encoding stage then writes the Python rows and hands each marker to its writer
(:meth:`MessageWriter.take_staged`) in the rows' order, so the task's files, receipt, publish
and counts are what the Python tier makes of the same messages, but a Java-made message never
crosses to a Python worker.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc
from ...contract.transport import StagedRun
from ...foundation.errors import TransportError
from .jvm_encoding import STAGED_COLUMN
from .routing_counts import RoutingCounts


@dataclass(frozen=True, slots=True)
class Marker:
    """One marker row: what Java staged for one topic-partition in one run, and what that counts."""

    run: StagedRun
    fed: int  # event copies the run took
    events: int  # events its messages carry
    messages: int
    bytes: int
    events_in: int  # input events among the copies (routing counts)
    failure: Optional[dict]

    @classmethod
    def parse(cls, topic: str, partition: int, text: str) -> "Marker":
        m = json.loads(text)
        run = StagedRun(topic, partition, m["attempt"], m["segment"], m["size"])
        return cls(run, m["fed"], m["events"], m["messages"], m["bytes"], m["events_in"], m["failure"])

    def raise_failure(self) -> None:
        """The transport's error for a file Java could not stage (the staged files' own wording)."""
        if self.failure:
            r = self.run
            raise TransportError(
                f"cannot stage {r.topic}/{r.partition} in {self.failure['path']}: {self.failure['reason']};"
                " nothing was published"
            )

    def routing_counts(self) -> RoutingCounts:
        return RoutingCounts(events_in=self.events_in, routed=self.events_in, copies=self.fed)


def marker_mask(batch: pa.RecordBatch) -> Optional[pa.Array]:
    """True on a batch's marker rows; None without the staging tier (or no marker in it)."""
    if STAGED_COLUMN not in batch.schema.names:
        return None
    column = batch.column(STAGED_COLUMN)
    return None if column.null_count == len(column) else column.is_valid()


def markers(batch: pa.RecordBatch) -> list[Marker]:
    """The markers of a batch, in order."""
    mask = marker_mask(batch)
    if mask is None:
        return []
    rows = batch.filter(mask)
    return [
        Marker.parse(t, p, text)
        for t, p, text in zip(
            rows.column("_cdc_topic").to_pylist(), rows.column("_cdc_partition").to_pylist(),
            rows.column(STAGED_COLUMN).to_pylist(),
        )
    ]


def without_markers(batch: pa.RecordBatch) -> pa.RecordBatch:
    """The batch's rows that are not markers."""
    mask = marker_mask(batch)
    return batch if mask is None else batch.filter(pc.invert(mask))
