"""The table schema a row event implies: the one it carries, else one derived from its columns.

Apart from :mod:`.table_schema` because it reads events, and events carry table schemas:
the schema types sit below the events, the derivation above them.
"""

from __future__ import annotations

from typing import Optional

from .events import Column, RowChangedEvent
from .table_schema import ColumnSchema, IndexSchema, TableSchema, charset_of


def row_schema_columns(
    columns: Optional[tuple[Column, ...]], pre_columns: Optional[tuple[Column, ...]]
) -> tuple[Column, ...]:
    """The columns a row's table schema is derived from: its image's, then any column only its
    old image has (an update whose images differ)."""
    if columns is None or pre_columns is None:
        return columns if columns is not None else pre_columns  # type: ignore[return-value]
    names = {c.name for c in columns}
    return columns + tuple(c for c in pre_columns if c.name not in names)


def derive_table_schema(
    schema: str, table: str, columns: tuple[Column, ...], table_id: int = 0, version: int = 0
) -> TableSchema:
    """The TableSchema of a row's columns, as TiCDC derives one when no DDL gave it: each
    column's type, flags and type text, TiDB's charset for its type, no default, and one
    index, the handle key (named ``primary`` when its columns are the primary key)."""
    cols = tuple(
        ColumnSchema(c.name, c.type, c.flags, c.mysql_type, *charset_of(c.type, c.flags)) for c in columns
    )
    keys = tuple(c for c in cols if c.is_handle_key)
    indexes: tuple[IndexSchema, ...] = ()
    if keys:
        primary = all(c.is_primary_key for c in keys)
        indexes = (IndexSchema("primary" if primary else "handle_key", tuple(c.name for c in keys), primary, True),)
    return TableSchema(schema, table, table_id, version, cols, indexes)


def table_schema_of(event: RowChangedEvent, version: int = 0) -> TableSchema:
    """The schema of a row event: the one it carries, else derived from its columns (its
    ``table_id`` as the table id, ``version`` as given)."""
    if event.table_schema is not None:
        return event.table_schema
    return derive_table_schema(
        event.schema, event.table, row_schema_columns(event.columns, event.pre_columns),
        event.table_id or 0, version,
    )
