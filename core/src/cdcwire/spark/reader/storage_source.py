"""TiCDC's storage-sink layout as an event DataFrame: the ``cdcwire-storage`` Python data source.

    spark.read.format("cdcwire-storage").option("source-uri", "s3://bucket/prefix?protocol=csv&...").load()
        # option checkpoint: the ts to read up to (cdcwire.spark.read pins the layout's, once)
        # options since / until: LayoutPosition JSON, the files of a later read (materialize's)
        # option tables: a table filter ("app.*,!app.tmp_*"): other tables' files are not read
        # option csv-tier: fast (the default) or reference: how csv data files are read (same rows)
    spark.readStream.format("cdcwire-storage").option("source-uri", uri).load()
        # a stream, micro-batch by micro-batch as the checkpoint moves: see .storage_stream_source

The driver takes one snapshot of the layout (its schema files and the data files its index
files vouch for, bounded by the checkpoint) and cuts it per table and partition
(:meth:`~cdcwire.transports.storage.layout.Snapshot.by_table`): one Spark partition each,
plus one for the DDLs and the closing resolved event. Each executor replays its part as
``cdcwire.read_storage`` does (files in index order, replayed rows dropped), so the rows of a
table partition keep their order and replays are dropped across its files. A csv data file is
read by the fast tier (:mod:`.storage_csv_batches`: pyarrow.csv, the event batch built
columnar) unless it refuses the file, which the reference tier then reads (per row, as
``cdcwire.read_storage``); ``csv-tier=reference`` reads every file so (same rows, slower). Each row's place:
``topic`` is the file's path under the root, ``offset`` the line (0 for a schema file and
for the checkpoint's resolved event), ``partition`` 0. Read ``since`` a position, only
the events above its checkpoint are given (DDLs of later table versions, rows of later commit
ts): what is at or below it was read before.
"""

from __future__ import annotations

import json
from typing import Iterator, Optional

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader

from ...foundation.errors import SinkURIError
from ...dispatch.table_filter import TableFilter
from ...transports.storage.layout import snapshot
from ...transports.storage.location import StorageLocation
from ...transports.storage.position import LayoutPosition
from ...model.validation import U64_MAX
from ..rows.schema import READ_EVENT_SCHEMA
from ..runtime.job_errors import carried_to_driver
from .layout_parts import CSV_TIERS, LayoutPart, read_part
from .storage_stream_source import StorageLayoutStreamReader


class StorageLayoutReader(DataSourceReader):
    def __init__(self, uri: str, checkpoint: Optional[int], since: Optional[LayoutPosition] = None,
                 until: Optional[LayoutPosition] = None, tables: Optional[TableFilter] = None,
                 tier: str = "fast") -> None:
        self.uri = uri
        self.tier = tier
        self.checkpoint = checkpoint
        self.since = since
        self.until = until
        self.tables = tables

    def partitions(self) -> list[LayoutPart]:
        shot = snapshot(StorageLocation.parse(self.uri), self.checkpoint, self.since, self.until)
        if self.tables is not None:
            shot = shot.of_tables(self.tables.matches)
        after = self.since.checkpoint if self.since is not None else -1
        return [LayoutPart(i, p, after) for i, p in enumerate(shot.by_table())]

    def read(self, partition: LayoutPart) -> Iterator[pa.RecordBatch]:
        with carried_to_driver("reading a storage-sink layout"):  # see job_errors
            yield from read_part(self.uri, partition, self.tier)


class StorageLayoutDataSource(DataSource):
    """``spark.read.format("cdcwire-storage").option("source-uri", URI).load()``."""

    @classmethod
    def name(cls) -> str:
        return "cdcwire-storage"

    def schema(self):
        return READ_EVENT_SCHEMA

    def reader(self, schema) -> StorageLayoutReader:
        uri = self.options.get("source-uri")
        if not uri:
            raise SinkURIError('the cdcwire-storage source needs .option("source-uri", URI)', "source-uri")
        StorageLocation.parse(uri)  # a bad URI fails here, on the driver
        checkpoint = self.options.get("checkpoint")
        if checkpoint is not None and not (str(checkpoint).isdigit() and int(checkpoint) <= U64_MAX):
            raise SinkURIError(f"option checkpoint must be a ts (digits, at most 2^64-1), got {str(checkpoint)[:40]!r}",
                               "checkpoint")
        tables = self.options.get("tables")
        tier = self.options.get("csv-tier", "fast")
        if tier not in CSV_TIERS:
            raise SinkURIError(f"option csv-tier must be one of {', '.join(CSV_TIERS)}, got {str(tier)[:40]!r}",
                               "csv-tier")
        return StorageLayoutReader(uri, int(checkpoint) if checkpoint is not None else None, _position(self.options, "since"),
                                   _position(self.options, "until"), TableFilter.of(tables) if tables else None, tier)

    def streamReader(self, schema) -> StorageLayoutStreamReader:
        """``spark.readStream.format("cdcwire-storage")``: see :mod:`.storage_stream_source`."""
        return StorageLayoutStreamReader(self.options)


def _position(options, name: str) -> Optional[LayoutPosition]:
    text = options.get(name)
    if text is None:
        return None
    try:
        return LayoutPosition.from_doc(json.loads(text))
    except ValueError as exc:
        raise SinkURIError(f"option {name} is not a layout position: {exc}", name) from None
