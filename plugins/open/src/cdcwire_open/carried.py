"""What a reader gets back from open-protocol for an event: ``Codec.carried``.

Written apart from the decoder (not as decode(encode(event))) so the round-trip
tests compare two independent accounts. The protocol carries no MySQL type
text, so every column comes back with ``mysql_type=None``; values come back in
canonical form; the parameters decide which columns travel (see row_images).
"""

from __future__ import annotations

from typing import Optional

from cdcwire.plugin_api import (
    Column,
    ColumnFlag,
    ColumnType,
    Columns,
    Event,
    RowChangedEvent,
    canonical_value,
)

from .encoder import OpenProtocolEncoder
from .options import OpenOptions
from .row_images import sent_images


def _carried_columns(columns: Optional[Columns]) -> Optional[Columns]:
    if columns is None:
        return None
    return tuple(
        Column(c.name, ColumnType(c.type), ColumnFlag(int(c.flags)), canonical_value(c.type, c.flags, c.value), None)
        for c in columns
    )


def carried_row(options: OpenOptions, row: RowChangedEvent) -> RowChangedEvent:
    """The row change as it travels: parameters applied, types canonical; a large row as its
    large-message option says (handle-key-only: its handle key, marked; claim-check: whole,
    the reader fetching the stored message)."""
    only_handle_key = OpenProtocolEncoder(options).sent_as(row) == "handle-key-only"
    new, old = sent_images(row, options, only_handle_key)
    return RowChangedEvent(
        row.commit_ts, row.schema, row.table, _carried_columns(new), _carried_columns(old), row.table_id,
        only_handle_key,
    )


def carried(options: OpenOptions, event: Event) -> Event:
    if isinstance(event, RowChangedEvent):
        return carried_row(options, event)
    return event
