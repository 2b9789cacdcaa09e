"""The events of one part of a storage-sink layout snapshot, as Arrow batches of event rows: what
a task of the ``cdcwire-storage`` source reads, in a batch read and in a micro-batch of a stream.

A part is a table partition's data files with its table's schema files, or (part 0) the
schema files alone, which give the DDLs and the closing resolved event
(:meth:`~cdcwire.transports.storage.layout.Snapshot.by_table`). Each row's place: ``topic`` is
the file's path under the root, ``offset`` the line (0 for a schema file and for the
checkpoint's resolved event), ``partition`` 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import InputPartition

from ...model.events import DDLEvent
from ...api.storage_reading import line_decoder
from ...transports.storage.layout import Snapshot
from ...transports.storage.location import StorageLocation
from ...transports.storage.replay import Replayer
from ..rows.arrow_events import events_to_batch
from ..rows.schema import ARROW_READ_EVENT_SCHEMA
from .storage_batch_replay import BatchReplayer

BATCH_EVENTS = 4096
#: How csv data files are read: ``fast`` where the fast tier takes a file, or ``reference`` always.
CSV_TIERS = ("fast", "reference")


@dataclass(frozen=True)
class LayoutPart(InputPartition):
    """One part of the snapshot; part 0 holds the DDLs and the resolved event. ``after``: the
    checkpoint an earlier read reached (a stream's micro-batch start; -1: none), whose events
    are not given again."""

    number: int
    part: Snapshot
    after: int = -1


def read_part(uri: str, part: LayoutPart, tier: str = "fast") -> Iterator[pa.RecordBatch]:
    """The events of one part of the layout at ``uri``, above the part's ``after``. ``tier``:
    ``fast`` reads csv files with :mod:`.storage_csv_batches` where it can, ``reference`` reads
    every file as ``cdcwire.read_storage`` does (same events)."""
    location = StorageLocation.parse(uri)
    after = part.after
    first = part.number == 0
    replayer = (BatchReplayer if tier == "fast" else Replayer)(location, line_decoder(location))
    events: list = []
    paths: list[str] = []
    lines: list[int] = []
    for placed in replayer.events(part.part, after, ddl=first, resolved=first):
        if isinstance(placed, pa.RecordBatch):
            if events:
                yield _batch(events, paths, lines)
                events, paths, lines = [], [], []
            yield placed
            continue
        if isinstance(placed.event, DDLEvent) and placed.event.commit_ts <= after:
            continue
        events.append(placed.event)
        paths.append(placed.place.path)
        lines.append(placed.place.line or 0)
        if len(events) >= BATCH_EVENTS:
            yield _batch(events, paths, lines)
            events, paths, lines = [], [], []
    if events:
        yield _batch(events, paths, lines)


def _batch(events: list, paths: list[str], lines: list[int]) -> pa.RecordBatch:
    extra = {"topic": pa.array(paths, pa.string()), "partition": pa.array([0] * len(events), pa.int32()),
             "offset": pa.array(lines, pa.int64())}
    return events_to_batch(events, extra, ARROW_READ_EVENT_SCHEMA)
