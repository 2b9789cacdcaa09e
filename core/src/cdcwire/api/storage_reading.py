"""Reading TiCDC's storage sink (csv or canal-json files on S3 or a local directory) as events.

    for event in cdcwire.read_storage("s3://bucket/cdc?protocol=csv&endpoint=...&include-commit-ts=true"):
        ...

The layout is files, not messages, so it is read here as events (the order, checkpoint
and replay rules are :mod:`cdcwire.transports.storage.replay`'s). csv is read by the core;
canal-json lines go to the installed canal-json codec through the registry, with the TiDB
extension on (the rows' commit ts is in it, as TiCDC's consumer forces it on too).
"""

from __future__ import annotations

from typing import Iterator

from .codec_calls import decoder_for
from ..model.events import Event
from ..sinks.sink import protocol_sink
from ..transports.storage.location import StorageLocation
from ..transports.storage.replay import LineDecoder, PlacedEvent, replay


def read_storage_placed(uri: str) -> Iterator[PlacedEvent]:
    """The layout's events up to its checkpoint, in replay order, each with its place (path, line)."""
    location = StorageLocation.parse(uri)
    return replay(location, line_decoder(location))


def read_storage(uri: str) -> Iterator[Event]:
    """The layout's events up to its checkpoint, in replay order (each table's DDL before the
    data of its version), replayed rows dropped, ending with a ResolvedEvent at the checkpoint.

    ``uri``: ``s3://bucket/prefix?protocol=csv|canal-json&...`` (TiCDC's sink URI, its S3
    options as the claim-check storage takes them) or ``local:///dir?protocol=...``."""
    return (placed.event for placed in read_storage_placed(uri))


def line_decoder(location: StorageLocation) -> LineDecoder | None:
    """The installed canal-json codec's decoder for a canal-json layout's lines; None for csv."""
    if location.protocol != "canal-json":
        return None
    sink = protocol_sink("canal-json", **{"enable-tidb-extension": "true"})
    return decoder_for(sink).decode
