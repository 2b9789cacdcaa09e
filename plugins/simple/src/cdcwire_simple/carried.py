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
- a row too large whole under ``large-message-handle-option=handle-key-only`` reads back as
  its handle-key columns, marked ``handle_key_only`` (sized as the encoder sizes it, with its
  commit ts as the schema version); under claim-check it reads back whole;
- a DDL reads back with the type its statement says, else its message type's
  (:func:`.ddl_kinds.ddl_type_of`); one without schema and table has no names.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from cdcwire.plugin_api import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent

from .ddl_kinds import ddl_kind, ddl_type_of
from .encoder import SimpleEncoder, format_of
from .options import SimpleOptions
from .table_schema import read_columns, row_columns, table_schema_from_wire, table_schema_of


def carrier_of(options: SimpleOptions) -> Callable[[Event], Optional[Event]]:
    """The carrier of one sink's options (one encoder sizes rows for it)."""
    sizer = SimpleEncoder(options)
    return lambda event: carried_event(options, event, sizer)


def carried_event(options: SimpleOptions, event: Event, sizer: Optional[SimpleEncoder] = None) -> Optional[Event]:
    if isinstance(event, ResolvedEvent):
        return event
    if isinstance(event, DDLEvent):
        return DDLEvent(event.commit_ts, event.schema, event.table, event.query,
                        ddl_type_of(event.query, ddl_kind(event.ddl_type)))
    fmt = format_of(options)
    derived = table_schema_of(event.schema, event.table, 0, 1, row_columns(event.columns, event.pre_columns))
    bootstrap = {"version": 1, "type": "BOOTSTRAP", "commitTs": 0, "buildTs": 0, "tableSchema": derived.wire()}
    schema = table_schema_from_wire(fmt.loads(fmt.dumps(bootstrap))["tableSchema"], "tableSchema")  # as read
    read = {c.name: c for c in read_columns(schema)}

    key_only = (sizer or SimpleEncoder(options)).read_back_key_only(event)

    def image(columns: Optional[tuple[Column, ...]]) -> Optional[tuple[Column, ...]]:
        if columns is None:
            return None
        out = []
        for column in columns:
            if key_only and not column.is_handle_key:
                continue
            r = read[column.name]
            value: Any = column.value
            if value is not None:
                wire = fmt.round_trip(fmt.value(column.type, column.flags, value))
                value = fmt.reader(r.type, r.flags)(wire)
            out.append(Column(r.name, r.type, r.flags, value, r.mysql_type))
        return tuple(out)

    return RowChangedEvent(event.commit_ts, event.schema, event.table, image(event.columns),
                           image(event.pre_columns), event.table_id or None, key_only)
