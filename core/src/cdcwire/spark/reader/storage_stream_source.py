"""``spark.readStream.format("cdcwire-storage")``: a TiCDC storage-sink layout as a stream of events.

    spark.readStream.format("cdcwire-storage").option("source-uri", "s3://bucket/prefix?protocol=csv&...").load()
        # options: startingOffsets (earliest, the default: everything the layout holds; latest:
        # what comes after the checkpoint now), tables (a table filter: other tables' files are
        # not read); Trigger.AvailableNow reads up to the checkpoint as it was when the query started

The offset is a :class:`~cdcwire.transports.storage.position.LayoutPosition` document: the
checkpoint read up to and, per data directory (its index file's path), the last data file read.
``latestOffset`` reads the root checkpoint (one small file): unmoved, the offset stays and no
listing is made. Moved, the layout is listed once from each directory's last file read on,
and the offset pins what was found. A micro-batch from ``start`` to ``end`` lists again but
holds the listing to ``end``'s checkpoint and files (as the batch read's ``until`` does), so
:meth:`StorageLayoutStreamReader.partitions` is a pure function of the two offsets: a query
restarted from its checkpoint re-plans an uncommitted batch exactly, nothing committed is read
again and nothing is skipped (files are written whole before their index names them and never
rewritten). A batch gives the events above ``start``'s checkpoint up to ``end``'s, as the batch
read ``since`` a position does (:mod:`.storage_source`): the DDLs of new table versions in the
first part, then the rows per table partition, and a closing ResolvedEvent at ``end``'s
checkpoint. Rows past the checkpoint wait for a batch whose checkpoint passes them.

The rows need their commit ts (csv ``include-commit-ts=true``; canal-json the TiDB extension):
without it a file read again cannot tell the rows given from the ones not given, so such a
layout is refused. A checkpoint that went back is another layout (written again, or another
changefeed's): the query fails saying so.
"""

from __future__ import annotations

import json
from typing import Iterator, Mapping, Optional

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader
from pyspark.sql.streaming.datasource import ReadLimit, SupportsTriggerAvailableNow

from ...foundation.errors import CdcwireError, SinkURIError
from ...dispatch.table_filter import TableFilter
from ...transports.storage.layout import Snapshot, read_checkpoint, snapshot
from ...transports.storage.location import StorageLocation
from ...transports.storage.position import LayoutPosition
from ..runtime.job_errors import carried_to_driver
from .layout_parts import LayoutPart, read_part
from .layout_since import refuse_going_back
from .source_options import lower_cased, refuse_unknown

#: Options of ``spark.readStream.format("cdcwire-storage")``, as documented.
STORAGE_STREAM_OPTIONS = ("source-uri", "startingOffsets", "tables")
#: Options of the batch read that a stream does not take: it starts where startingOffsets says.
_BATCH_ONLY = ("checkpoint", "since", "until")
#: The offset before anything is read: every directory from its first file, events above ts 0.
_EARLIEST = LayoutPosition(0)


class StorageStreamOptions:
    """The options of a streaming read of a layout, checked on the driver before the query starts."""

    def __init__(self, options: Mapping[str, str]) -> None:
        opts = lower_cased(options)  # Spark hands Python data sources their option names lower-cased
        self.uri = str(opts.get("source-uri") or "")
        if not self.uri:
            raise SinkURIError('the cdcwire-storage stream source needs .option("source-uri", URI)', "source-uri")
        batch_only = [name for name in _BATCH_ONLY if name in opts]
        if batch_only:
            raise CdcwireError(
                f"option {batch_only[0]!r} is for batch reads of a storage-sink layout; a stream starts where"
                " startingOffsets says (earliest or latest) and reads up to the checkpoint as it moves"
            )
        refuse_unknown(opts, STORAGE_STREAM_OPTIONS, "spark.readStream.format('cdcwire-storage')")
        location = StorageLocation.parse(self.uri)  # a bad URI fails here, on the driver
        needed = location.commit_ts_parameter()
        if needed is not None:
            raise CdcwireError(
                f"{location.display()}: a stream of a storage-sink layout needs each row's commit ts, to tell the rows"
                f" a batch read from the ones the next reads: give {needed}=true (TiCDC must write the layout with it)"
            )
        self.tables = str(opts.get("tables") or "")
        if self.tables:
            TableFilter.of(self.tables)  # a bad pattern fails on the driver
        starting = str(opts.get("startingoffsets", "earliest")).strip().lower()
        if starting not in ("earliest", "latest"):
            raise CdcwireError(
                f"option startingOffsets of a storage-sink layout is earliest or latest; got {starting[:40]!r}"
            )
        self.starting = starting


class StorageLayoutStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """See the module doc. Spark makes one on the driver for offsets and planning, and pickles
    one to the tasks, which only ``read``."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = StorageStreamOptions(options)
        self._target: Optional[dict] = None  # Trigger.AvailableNow: the position to stop at

    # -- the driver: offsets ------------------------------------------------------------------

    def _location(self) -> StorageLocation:
        return StorageLocation.parse(self.options.uri)

    def _listed(self, location: StorageLocation, checkpoint: int, since: Optional[LayoutPosition],
                until: Optional[LayoutPosition] = None) -> Snapshot:
        shot = snapshot(location, checkpoint, since, until)
        if self.options.tables:
            shot = shot.of_tables(TableFilter.of(self.options.tables).matches)
        return shot

    def _now(self, start: Optional[LayoutPosition]) -> LayoutPosition:
        """Where the layout is now, for a read from ``start``: ``start`` itself while the
        checkpoint has not moved (no listing), else the files listed up to the new checkpoint."""
        location = self._location()
        checkpoint = read_checkpoint(location.storage)
        if start is not None:
            refuse_going_back(location, checkpoint, start,
                              "read it with a new checkpointLocation (and into a new output)")
            if checkpoint == start.checkpoint:
                return start
        return self._listed(location, checkpoint, start).position(start)

    def initialOffset(self) -> dict:
        if self.options.starting == "latest":
            return self._now(None).to_doc()
        return _EARLIEST.to_doc()

    def prepareForTriggerAvailableNow(self) -> None:
        self._target = self._now(None).to_doc()

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        """The end of the next micro-batch: the layout's position now (under Trigger.AvailableNow:
        as it was when the query started); ``start`` while the checkpoint has not moved."""
        begin = _position(start)
        if self._target is None:
            return self._now(begin).to_doc()
        target = _position(self._target)
        refuse_going_back(self._location(), target.checkpoint, begin,
                          "read it with a new checkpointLocation (and into a new output)")
        if target.checkpoint == begin.checkpoint:
            return begin.to_doc()
        # directories ``start`` read that the target's listing lacks cannot exist (files stay): keep them
        return LayoutPosition.of(target.checkpoint, {**begin.last_read(), **target.last_read()}).to_doc()

    def partitions(self, start: dict, end: dict) -> list[LayoutPart]:
        """The parts of the files from ``start``'s position up to ``end``'s, listed with the
        checkpoint and files pinned to ``end``'s (a pure function of the two offsets); none
        when they are the same (nothing new: not even a resolved event)."""
        begin, until = _position(start), _position(end)
        if begin == until:
            return []
        shot = self._listed(self._location(), until.checkpoint, begin, until)
        return [LayoutPart(i, part, begin.checkpoint) for i, part in enumerate(shot.by_table())]

    def commit(self, end: dict) -> None:
        """Nothing to do: the query's checkpoint keeps the offsets; TiCDC keeps the files."""

    # -- the tasks --------------------------------------------------------------------------

    def read(self, partition: LayoutPart) -> Iterator[pa.RecordBatch]:  # type: ignore[override]
        with carried_to_driver("reading a storage-sink layout stream"):  # see job_errors
            yield from read_part(self.options.uri, partition)


def _position(offset) -> LayoutPosition:
    """The position an offset holds (Spark hands it back as a dict, or as its JSON text)."""
    doc = json.loads(offset) if isinstance(offset, str) else offset
    try:
        return LayoutPosition.from_doc(doc)
    except ValueError as exc:
        raise CdcwireError(f"the stream's offset is not a layout position: {exc}; the query's checkpoint is"
                           " another source's: start it with a new checkpointLocation") from None
