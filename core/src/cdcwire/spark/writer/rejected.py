"""Records a routing task cannot take: malformed ones, and events the dispatch rules cannot place.

With a dead-letter directory each goes there with its reason and its place, and
the rest of the job proceeds; without one the first fails the job, naming both.
The place is the record's source (``events.jsonl:17``, ``topic/partition/offset``)
when the input knows it, else the input row's sequence number.
"""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any, Optional

import pyarrow as pa

from ...errors import CdcwireError
from .dead_letter import DeadLetterWriter

_ROW_BITS = 33  # monotonically_increasing_id: input partition index above bit 33, row number below


def input_row(seq: int) -> str:
    """Where a row with no known source is, from its ``_cdc_seq``."""
    return f"input row {seq} (input partition {seq >> _ROW_BITS}, row {seq & ((1 << _ROW_BITS) - 1)})"


def row_text(batch: pa.RecordBatch, row: int) -> str:
    """A row of an event batch as JSON text: the record of a row that is not an event."""
    return json.dumps(batch.slice(row, 1).to_pylist()[0], default=_plain, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


class RejectedRecords:
    """One routing task's rejected records; ``count`` of those dead-lettered."""

    def __init__(self, dead_letter: Optional[DeadLetterWriter]) -> None:
        self.dead_letter = dead_letter
        self.count = 0

    @classmethod
    def for_task(cls, directory: Optional[str], write_id: str, task: Any) -> "RejectedRecords":
        """``task``: the TaskContext (None outside Spark). The file is named by the write and the
        task's partition, so that any attempt of the task writes the same name."""
        if not directory:
            return cls(None)
        partition = task.partitionId() if task is not None else 0
        attempt = task.taskAttemptId() if task is not None else 0
        return cls(DeadLetterWriter(directory, f"part-route-{write_id}-{partition:05d}.jsonl", attempt))

    def take(self, source: str, reason: str, record: str, failure: str) -> None:
        """Dead-letter the record, or raise ``failure`` when there is no dead-letter path."""
        if self.dead_letter is None:
            raise CdcwireError(failure)
        self.dead_letter.write(source, reason, record)
        self.count += 1

    def publish(self) -> None:
        if self.dead_letter is not None:
            self.dead_letter.publish()

    def discard(self) -> None:
        if self.dead_letter is not None:
            self.dead_letter.discard()
