"""What a debezium reader gets back for an event: the model behind ``DebeziumCodec.carrier``.

Rows go through the same field and value rules the encoder and decoder use (a column's
FieldType as its written schema reads back, each value written and read), so what is lost is
said once, in :mod:`.column_values` and :mod:`.field_types`:

- flags: only NULLABLE, UNSIGNED (integers and floats), BINARY (strings and BLOBs) and the
  handle key (read back as HANDLE_KEY | PRIMARY_KEY, as TiCDC's decoder marks it) survive;
- ``mysql_type`` reads back only for ENUM/SET (elements) and BIT (width);
- an update written without ``before`` reads back as an insert;
- a DDL reads back with the type its statement says (the wire has only CREATE/ALTER/DROP);
  a DDL type TiCDC's debezium skips has no message (None);
- rows need the schema part and the extension to be read at all: without them, None.
"""

from __future__ import annotations

from typing import Optional

import orjson

from cdcwire.plugin_api import Column, ColumnFlag, DDLEvent, Event, ResolvedEvent, RowChangedEvent

from .column_values import encode_value, decode_value
from .connect_schema import field_schema
from .ddl_messages import change_kind
from .decoder import ddl_type_of
from .encoder import DebeziumEncoder
from .field_types import field_type_of_column, field_type_of_schema
from .options import DebeziumOptions

_KEY_FLAGS = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def _carried_column(column: Column, key: bool) -> Column:
    written = field_type_of_column(column)
    fsp = DebeziumEncoder._fsp(written, column)
    read = field_type_of_schema(field_schema(column.name, written, True, fsp))
    value = column.value
    if value is not None:
        wire = orjson.loads(orjson.dumps(encode_value(written, value)))
        value = None if wire is None else decode_value(read, wire)
    flags = read.flags | _KEY_FLAGS if key else read.flags
    return Column(column.name, read.read_type, flags, value, read.mysql_type)


def carried_event(options: DebeziumOptions, event: Event) -> Optional[Event]:
    if isinstance(event, ResolvedEvent):
        return event if options.tidb_extension else None
    if isinstance(event, DDLEvent):
        kind = change_kind(event.ddl_type)
        if kind is None:
            return None
        read_type = ddl_type_of(event.query, kind)
        return DDLEvent(event.commit_ts, event.schema, event.table, event.query, read_type)
    if options.disable_schema or not options.tidb_extension:
        return None
    keys = {c.name for c in event.image if c.is_handle_key}

    def image(columns: tuple[Column, ...]) -> tuple[Column, ...]:
        return tuple(_carried_column(c, c.name in keys) for c in columns)

    if event.is_update and not options.output_old_value:
        return RowChangedEvent(event.commit_ts, event.schema, event.table, image(event.columns), None)
    return RowChangedEvent(
        event.commit_ts, event.schema, event.table,
        None if event.columns is None else image(event.columns),
        None if event.pre_columns is None else image(event.pre_columns),
    )
