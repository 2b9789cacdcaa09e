"""A storage-sink layout written from events in one process, laid out as TiCDC lays it out, so
cdcwire can make test data for TiCDC's consumers and transcode any topic into the layout.

The rules are shared with the Spark writer (``cdcwire.spark.write`` of a layout): table
versions, directories and schema files in :mod:`.table_versions`, data files and the order
of publication in :mod:`.data_files`. Here the events are all in hand: the DDLs and each
table's first row commit ts make the plan, every row goes to its directory, each
directory's rows (in commit ts order, then input order) are encoded into its data files
``CDC<index>`` as they come (``file-index-digit`` digits; the next index in a directory the
layout has; the next file at ``file-size`` bytes: :class:`~.data_files.DataFiles`), and
:func:`~.data_files.publish` writes the schema files, the index files and the root checkpoint
(the newest resolved ts, else the newest commit ts: :func:`~.data_files.checkpoint_ts`), so a
write that fails part way leaves a layout a reader reads up to its old checkpoint.
"""

from __future__ import annotations

from typing import Iterable, Optional

from ...model.events import DDLEvent, Event, ResolvedEvent, RowChangedEvent
from .data_files import DataFiles, LineEncoder, WrittenFile, checkpoint_ts, first_images, next_indexes, publish
from .location import StorageLocation
from .paths import DataDir
from .table_versions import TableKey, TablePlan, existing_versions


def write_layout(
    location: StorageLocation, events: Iterable[Event], encode_line: Optional[LineEncoder] = None
) -> int:
    """Write ``events`` as a layout under the location; returns how many row events were written."""
    ddls: list[DDLEvent] = []
    rows: list[tuple[int, RowChangedEvent]] = []
    first_row_ts: dict[TableKey, int] = {}
    resolved = newest = -1
    for seq, event in enumerate(events):
        if isinstance(event, ResolvedEvent):
            resolved = max(resolved, event.ts)
        elif isinstance(event, DDLEvent):
            ddls.append(event)
        else:
            rows.append((seq, event))
            key = (event.schema, event.table)
            first_row_ts[key] = min(first_row_ts.get(key, event.commit_ts), event.commit_ts)
        newest = max(newest, event.commit_ts)
    plan = TablePlan.of(ddls, first_row_ts, existing_versions(location))
    directories: dict[DataDir, list[tuple[int, RowChangedEvent]]] = {}
    for seq, row in sorted(rows, key=lambda item: item[1].commit_ts):  # stable: input order at one ts
        directories.setdefault(plan.data_dir(location, row), []).append((seq, row))
    indexes = next_indexes(location)
    written: list[WrittenFile] = []
    for directory in sorted(directories, key=DataDir.sort_key):
        files = DataFiles(location, directory, encode_line, indexes.get(directory, 1))
        try:
            for seq, row in directories[directory]:
                files.add(row, seq)
            written.extend(files.close())
        except BaseException:
            files.abort()
            raise
    publish(location, plan.schema_files(first_images(written)), written, checkpoint_ts(resolved, newest))
    return len(rows)
