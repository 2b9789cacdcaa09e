"""What an event looks like after a trip through the avro protocol: ``decode(encode(e))``.

- DDL and resolved events: nothing (None).
- Names: schema, table and columns sanitised as Avro names.
- Columns: type, flags and MySQL type text rebuilt from ``connect.parameters``
  (TINYINT..INT -> INT, text types -> LONGBLOB text, binary -> LONGBLOB binary,
  ...); flags keep only NULLABLE, UNSIGNED (INT/BIGINT), BINARY (bytes) and
  HANDLE_KEY; FLOAT values as float32, DECIMAL text with exactly ``scale``
  digits in precise mode.
- Delete: a tombstone: commit ts 0, ``pre_columns`` = the handle-key columns.
- Insert or update without the extension: an insert of the new image, commit ts 0.
- With the extension: inserts keep their commit ts; an update keeps its commit ts
  and has ``pre_columns`` = the handle-key columns of the message key (taken from
  the new image: a key-changing update must be split before encoding, as the
  dispatcher does).
- ``table_id`` is not carried.
"""

from __future__ import annotations

from typing import Optional

from cdcwire.plugin_api import Column, ColumnFlag, Event, RowChangedEvent

from .column_types import avro_type_of, column_kind_of
from .names import sanitize_name
from .options import AvroOptions


def carried(options: AvroOptions, event: Event) -> Optional[Event]:
    if not isinstance(event, RowChangedEvent):
        return None
    schema, table = sanitize_name(event.schema), sanitize_name(event.table)
    keys = tuple(carried_column(c, options, True) for c in event.image if c.is_handle_key)
    if event.columns is None:
        return RowChangedEvent(0, schema, table, None, keys)
    columns = tuple(carried_column(c, options, c.is_handle_key) for c in event.columns)
    if not options.tidb_extension:
        return RowChangedEvent(0, schema, table, columns, None)
    return RowChangedEvent(event.commit_ts, schema, table, columns, keys if event.is_update else None)


def carried_column(column: Column, options: AvroOptions, in_key: bool) -> Column:
    """The column as the decoder rebuilds it from its Avro field."""
    avro = avro_type_of(column, options)
    kind = column_kind_of(avro.schema)
    flags = kind.flags
    if column.is_nullable:
        flags |= ColumnFlag.NULLABLE
    if in_key:
        flags |= ColumnFlag.HANDLE_KEY
    value = column.value
    if value is not None:
        if avro.carry is not None:
            value = avro.carry(value)
        elif avro.to_avro is not None and avro.from_avro is not None:
            value = avro.from_avro(avro.to_avro(value))
    return Column(sanitize_name(column.name), kind.type, flags, value, kind.mysql_type)
