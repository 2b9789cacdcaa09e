"""TiCDC's storage-sink layout as an event DataFrame: the ``cdcwire-storage`` Python data source.

    spark.read.format("cdcwire-storage").option("source-uri", "s3://bucket/prefix?protocol=csv&...").load()
        # option checkpoint: the ts to read up to (cdcwire.spark.read pins the layout's, once)

The driver takes one snapshot of the layout (its schema files and the data files its index
files vouch for, bounded by the checkpoint) and cuts it per table and partition
(:meth:`~cdcwire.transports.storage.layout.Snapshot.by_table`): one Spark partition each,
plus one for the DDLs and the closing resolved event. Each executor replays its part as
``cdcwire.read_storage`` does (files in index order, replayed rows dropped), so the rows of a
table partition keep their order and replays are dropped across its files. Each row's place:
``topic`` is the file's path under the root, ``offset`` the line (0 for a schema file and
for the checkpoint's resolved event), ``partition`` 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Optional

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from ...errors import SinkURIError
from ...storage_reading import line_decoder
from ...transports.storage.layout import Snapshot, snapshot
from ...transports.storage.location import StorageLocation
from ...transports.storage.replay import replay
from ..rows.arrow_events import events_to_batch
from ..rows.schema import ARROW_READ_EVENT_SCHEMA, READ_EVENT_SCHEMA
from ..runtime.job_errors import carried_to_driver

BATCH_EVENTS = 4096


@dataclass(frozen=True)
class LayoutPart(InputPartition):
    """One part of the snapshot; part 0 holds the DDLs and the resolved event."""

    number: int
    part: Snapshot


def read_part(uri: str, part: LayoutPart) -> Iterator[pa.RecordBatch]:
    location = StorageLocation.parse(uri)
    first = part.number == 0
    events: list = []
    paths: list[str] = []
    lines: list[int] = []
    for placed in replay(location, line_decoder(location), part.part, ddl=first, resolved=first):
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


class StorageLayoutReader(DataSourceReader):
    def __init__(self, uri: str, checkpoint: Optional[int]) -> None:
        self.uri = uri
        self.checkpoint = checkpoint

    def partitions(self) -> list[LayoutPart]:
        parts = snapshot(StorageLocation.parse(self.uri), self.checkpoint).by_table()
        return [LayoutPart(i, p) for i, p in enumerate(parts)]

    def read(self, partition: LayoutPart) -> Iterator[pa.RecordBatch]:
        with carried_to_driver("reading a storage-sink layout"):  # see job_errors
            yield from read_part(self.uri, partition)


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
        if checkpoint is not None and not str(checkpoint).isdigit():
            raise SinkURIError(f"option checkpoint must be a ts (digits), got {str(checkpoint)[:40]!r}", "checkpoint")
        return StorageLayoutReader(uri, int(checkpoint) if checkpoint is not None else None)
