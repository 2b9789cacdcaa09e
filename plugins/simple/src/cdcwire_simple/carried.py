"""What a simple reader gets back for an event: the model behind ``SimpleCodec.carrier``.

Rows go through the same rules the encoder and decoder use (the table schema derived from
the row, read back into columns; each value written and read), so what is lost is said once,
in :mod:`.table_schema` and the value modules:

- flags: NULLABLE, UNSIGNED and BINARY survive (BINARY also appears on date/time and JSON
  columns, whose charset is binary); the handle key reads back as HANDLE_KEY with
  PRIMARY_KEY (or UNIQUE_KEY when the key was not the primary key); GENERATED and key flags
  of other columns are lost (the derived schema has one index, the handle key);
- ``mysql_type`` reads back as the schema says it: TiDB's name with length, fsp, precision
  and scale, elements, ``unsigned``/``zerofill`` (``int(11)`` for an INT given none); Avro
  writes fewer of them (see :mod:`.avro_format`): a DATETIME's or TIME's fsp is lost there;
- a row's columns come back in the order of its image; ``table_id`` 0 is none;
- a DDL reads back with the type its statement says, else its message type's
  (:func:`.ddl_kinds.ddl_type_of`); one without schema and table has no names.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent

from .ddl_kinds import ddl_kind, ddl_type_of
from .encoder import format_of
from .options import SimpleOptions
from .table_schema import read_columns, table_schema_from_wire, table_schema_of


def carried_event(options: SimpleOptions, event: Event) -> Optional[Event]:
    if isinstance(event, ResolvedEvent):
        return event
    if isinstance(event, DDLEvent):
        return DDLEvent(event.commit_ts, event.schema, event.table, event.query,
                        ddl_type_of(event.query, ddl_kind(event.ddl_type)))
    fmt = format_of(options)
    derived = table_schema_of(event.schema, event.table, 0, 1, event.image)
    bootstrap = {"version": 1, "type": "BOOTSTRAP", "commitTs": 0, "buildTs": 0, "tableSchema": derived.wire()}
    schema = table_schema_from_wire(fmt.loads(fmt.dumps(bootstrap))["tableSchema"], "tableSchema")  # as read
    read = {c.name: c for c in read_columns(schema)}

    def image(columns: Optional[tuple[Column, ...]]) -> Optional[tuple[Column, ...]]:
        if columns is None:
            return None
        out = []
        for column in columns:
            r = read[column.name]
            value: Any = column.value
            if value is not None:
                wire = fmt.round_trip(fmt.value(column.type, column.flags, value))
                value = fmt.reader(r.type, r.flags)(wire)
            out.append(Column(r.name, r.type, r.flags, value, r.mysql_type))
        return tuple(out)

    return RowChangedEvent(event.commit_ts, event.schema, event.table, image(event.columns),
                           image(event.pre_columns), event.table_id or None, event.handle_key_only)
