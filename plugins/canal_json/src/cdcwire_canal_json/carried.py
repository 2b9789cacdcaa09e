"""What canal-json keeps of an event: the model behind ``CanalJSONCodec.carried``.

It states, event by event, what ``decode(encode(event))`` returns, so a pipeline
can compare its input with what it reads back:

- commit ts: exact with the extension, else ``(ts >> 18) << 18`` (``es`` only);
- columns: type and unsigned/binary flags as ``mysqlType`` tells them (so
  VAR_STRING reads back as VARCHAR, NEWDATE as DATE, BIT and YEAR as unsigned,
  BINARY only on byte-valued types); key flags are HANDLE_KEY|PRIMARY_KEY for
  ``pkNames`` members, plus HANDLE_KEY on every column of a key-only message;
  nullable, generated and unique/multiple-key flags are not carried;
- ``mysql_type`` is the full type text with content-compatible, else None;
- FLOAT values are float32, DOUBLE float64, integers int;
- an update's old image is whole (columns left out as unchanged come back from
  the new image, which holds the same value); its types are those of the new image;
- key-only messages (delete-only-output-handle-key-columns on deletes, or
  large-message-handle-option=handle-key-only on an oversize row) keep only the
  handle-key columns; the oversize row reads back marked ``handle_key_only``, as does a
  row that arrived so marked when the extension is on (without it the mark cannot
  travel: the row reads back unmarked, its columns as any row's);
- large-message-handle-option=claim-check: an oversize row reads back whole (the reader
  fetches the stored message); compression changes nothing that is read back;
- DDL types collapse to canal's words and are read back by :func:`ddl_type_from`;
- resolved events exist only with the extension; table ids are not carried.
"""

from __future__ import annotations

from typing import Optional, Sequence

from cdcwire.plugin_api import (
    BoundedCache,
    Column,
    ColumnFlag,
    ColumnType,
    DDLEvent,
    Event,
    ResolvedEvent,
    RowChangedEvent,
    canonical_value,
)


from .column_types import ColumnShape, mysql_type_text, shape_of
from .ddl_kinds import canal_ddl_word, ddl_type_from
from .encoder import CanalJSONEncoder
from .options import CanalOptions

_KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
_INT_TYPES = frozenset(
    {ColumnType.TINYINT, ColumnType.SMALLINT, ColumnType.MEDIUMINT, ColumnType.INT, ColumnType.BIGINT,
     ColumnType.YEAR, ColumnType.BIT, ColumnType.ENUM, ColumnType.SET}
)


def carried_event(options: CanalOptions, event: Event) -> Optional[Event]:
    """The event as a canal-json reader gets it back; None when no message is sent for it.

    Raises MessageTooLargeError (like the encoder) for a row that cannot be sent.
    """
    if isinstance(event, ResolvedEvent):
        return ResolvedEvent(event.ts) if options.tidb_extension else None
    if isinstance(event, DDLEvent):
        ddl_type = ddl_type_from(canal_ddl_word(event.ddl_type), event.query)
        return DDLEvent(_commit_ts(options, event.commit_ts), event.schema, event.table, event.query, ddl_type)
    return _carried_row(options, event)


def _commit_ts(options: CanalOptions, ts: int) -> int:
    return ts if options.tidb_extension else (ts >> 18) << 18


def _carried_row(options: CanalOptions, row: RowChangedEvent) -> RowChangedEvent:
    key_only = _sizing_encoder(options).read_back_key_only(row)
    image = row.columns if row.columns is not None else row.pre_columns
    pk_names = frozenset(c.name for c in image if c.flags & ColumnFlag.PRIMARY_KEY)  # type: ignore[union-attr]
    ts = _commit_ts(options, row.commit_ts)
    cc = options.content_compatible
    if row.columns is None:
        only_key = key_only or options.delete_handle_key_only
        old = _carried_image(row.pre_columns, row.pre_columns, pk_names, only_key, cc)  # type: ignore[arg-type]
        return RowChangedEvent(ts, row.schema, row.table, None, old, handle_key_only=key_only)
    new = _carried_image(row.columns, row.columns, pk_names, key_only, cc)
    if row.pre_columns is None:
        return RowChangedEvent(ts, row.schema, row.table, new, None, handle_key_only=key_only)
    old = _carried_image(row.pre_columns, row.columns, pk_names, key_only, cc)
    return RowChangedEvent(ts, row.schema, row.table, new, old, handle_key_only=key_only)


_SIZING_ENCODERS: BoundedCache[CanalOptions, CanalJSONEncoder] = BoundedCache(limit=16)
_READ_BACK_TYPES: BoundedCache[tuple, tuple[str, ColumnShape]] = BoundedCache(limit=4096)
#: The caches' bound ``get``: CPython calls it as fast as a plain dict's (a method looked
#: up on a dict subclass is not specialised), and faster than an lru_cache wrapper.
_sizing_encoder_of = _SIZING_ENCODERS.get
_read_back_type_of = _READ_BACK_TYPES.get


def _sizing_encoder(options: CanalOptions) -> CanalJSONEncoder:
    """An encoder (real clock: the same ``ts`` width) to size rows with, one per settings:
    its layout cache spares building the table's layout for every event."""
    encoder = _sizing_encoder_of(options)
    if encoder is None:
        encoder = _SIZING_ENCODERS.remember(options, CanalJSONEncoder(options))
    return encoder


def _read_back_type(
    ctype: ColumnType, flags: ColumnFlag, full_text: Optional[str], cc: bool
) -> tuple[str, ColumnShape]:
    """The ``mysqlType`` a column is written with, and what a reader makes of it (remembered)."""
    key = (ctype, flags, full_text, cc)
    known = _read_back_type_of(key)
    if known is None:
        text = mysql_type_text(ColumnType(ctype), ColumnFlag(flags), full_text, cc)
        known = _READ_BACK_TYPES.remember(key, (text, shape_of(text)))
    return known


def _carried_image(
    image: Sequence[Column], typed_by: Sequence[Column], pk_names: frozenset[str], only_key: bool, cc: bool
) -> tuple[Column, ...]:
    """``image``'s columns as read back, each typed by the same-position column of ``typed_by``."""
    out = []
    for column, source in zip(image, typed_by):
        if only_key and not source.flags & ColumnFlag.HANDLE_KEY:
            continue
        text, shape = _read_back_type(source.type, source.flags, source.mysql_type, cc)
        flags = shape.flags
        if column.name in pk_names:
            flags |= _KEY
        if only_key:
            flags |= ColumnFlag.HANDLE_KEY
        out.append(Column(column.name, shape.type, flags, canonical_value(shape.type, flags, column.value), text if cc else None))
    return tuple(out)
