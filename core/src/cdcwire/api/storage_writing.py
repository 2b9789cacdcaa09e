"""Writing events as TiCDC's storage sink lays them out (csv or canal-json files on S3 or a local
directory): :mod:`cdcwire.transports.storage.layout_writing` does the layout; canal-json lines
come from the installed canal-json codec through the registry, with the TiDB extension on
(:func:`line_encoder`, which the Spark writer's tasks take too)."""

from __future__ import annotations

from typing import Iterable

from .codec_calls import encoder_for
from ..model.events import Event, RowChangedEvent
from ..sinks.sink import protocol_sink
from ..transports.storage.data_files import LineEncoder
from ..transports.storage.layout_writing import write_layout
from ..transports.storage.location import StorageLocation
from ..model.validation import check_events


def write_storage(uri: str, events: Iterable[Event]) -> int:
    """Write ``events`` (checked first) as a storage-sink layout at ``uri``; returns the rows written.
    The root checkpoint is written last: a write that fails part way leaves the old one."""
    location = StorageLocation.parse(uri)
    location.warn_if_not_continuable()
    events = list(events)
    check_events(events)
    return write_layout(location, events, line_encoder(location))


def line_encoder(location: StorageLocation) -> LineEncoder | None:
    """The canal-json line encoder of a layout (None for csv, which the layout encodes itself)."""
    if location.protocol != "canal-json":
        return None
    encoder = encoder_for(protocol_sink("canal-json", **{"enable-tidb-extension": "true"}), "storage", 0,
                          events_checked=True)

    def encode(row: RowChangedEvent) -> bytes:
        [payload] = list(encoder.encode([row]))
        return payload.value or b""

    return encode
