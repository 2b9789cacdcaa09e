"""A storage-sink layout's events since a :class:`~cdcwire.transports.storage.position.LayoutPosition`:
what an incremental reader (``materialize``) reads of a layout, as message ranges are what it
reads of a topic.

The driver reads the checkpoint (one small file): the same as the position's means nothing new,
said without listing or a Spark job. Otherwise it lists the layout once, from each directory's
last file read on, and pins what it found (the new checkpoint and each directory's last file):
the read gives exactly those files, however far TiCDC has written since, and the position it
returns is where the next read starts. A layout's checkpoint never goes back; one that did is
another layout (written again, or another changefeed), refused in one line.

It reads with ``format("cdcwire-storage")``, which the user-facing callers register with the
session first (``cdcwire.spark.register_data_sources``): the format is defined above this room.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional

from pyspark.sql import DataFrame, SparkSession

from ...foundation.errors import CdcwireError
from ...dispatch.table_filter import TableFilter
from ...transports.storage.layout import read_checkpoint, snapshot
from ...transports.storage.location import StorageLocation
from ...transports.storage.position import LayoutPosition
from ..runtime.job_errors import cdcwire_errors_raised


@dataclass(frozen=True)
class LayoutRead:
    """``events`` None: the layout holds nothing past ``since`` (no job planned); ``position``:
    where this read stops."""

    events: Optional[DataFrame]
    position: LayoutPosition


def read_layout_since(spark: SparkSession, location: StorageLocation, uri: str, since: Optional[LayoutPosition],
                      tables: str = "") -> LayoutRead:
    """The events of the layout at ``uri`` above ``since`` up to its checkpoint now (see the
    module doc); ``tables``: a table filter, other tables' files are not read."""
    checkpoint = read_checkpoint(location.storage)
    if since is not None and checkpoint == since.checkpoint:
        return LayoutRead(None, since)
    if since is not None:
        refuse_going_back(location, checkpoint, since, "read it into a new output directory")
    shot = snapshot(location, checkpoint, since)
    if tables:
        shot = shot.of_tables(TableFilter.of(tables).matches)
    until = shot.position(since)
    reader = (spark.read.format("cdcwire-storage").option("source-uri", uri).option("checkpoint", str(checkpoint))
              .option("until", json.dumps(until.to_doc())))
    if since is not None:
        reader = reader.option("since", json.dumps(since.to_doc()))
    if tables:
        reader = reader.option("tables", tables)
    with cdcwire_errors_raised():  # the data source is planned in a Python worker, now
        return LayoutRead(reader.load(), until)


def refuse_going_back(location: StorageLocation, checkpoint: int, since: LayoutPosition, remedy: str) -> None:
    """A checkpoint behind the one an earlier read reached: the layout was written again, or
    is another changefeed's; one line, ending with ``remedy``."""
    if checkpoint < since.checkpoint:
        raise CdcwireError(
            f"{location.display()}: checkpoint {checkpoint} is behind {since.checkpoint}, which an earlier read reached:"
            f" the layout was written again (or is another changefeed's); {remedy}"
        )
