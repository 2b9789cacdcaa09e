"""The table schema simple messages carry (``tableSchema``, ``preTableSchema``), both ways.

The classes here are the wire's shape (``dataType`` with length, decimal, elements); the
event model's :class:`cdcwire.plugin_api.TableSchema` is what events carry. The writer takes
the event's schema when it carries one, else the core derives it from a row's columns
(:func:`cdcwire.plugin_api.derive_table_schema`: type, flags, type text, TiDB's charset for
the type, the handle key as the one index). It is written as TiCDC writes a table: the type
name as TiDB's ``TypeToStr`` gives it (``int``, ``varbinary``, ``text``/``blob``), TiDB's
default length where the column's type text gives none, ``nullable`` from the NULLABLE flag,
the index named ``primary`` when its columns are the primary key (as TiCDC names a PK it adds
itself).

The reader rebuilds each column from its ``dataType`` as TiCDC's decoder does: the type code
from the name, UNSIGNED from ``unsigned``, NULLABLE from ``nullable``, BINARY from charset
``binary`` (strings, BLOBs, times, JSON), the key flags from the indexes, and a type text;
:func:`event_schema_of` makes that the event model's schema, with charset, collation and
default, for the events the decoder gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from cdcwire.plugin_api import (
    BINARY_TYPE_NAMES,
    BLOB_TYPES,
    STRING_TYPES,
    Column,
    ColumnFlag,
    ColumnType,
    TYPE_NAMES,
    TypeText,
    charset_of,
    derive_table_schema,
    parse_type_text,
    type_name,
)
from cdcwire.plugin_api import ColumnSchema as EventColumnSchema
from cdcwire.plugin_api import IndexSchema as EventIndexSchema
from cdcwire.plugin_api import TableSchema as EventTableSchema
from cdcwire.plugin_api import row_schema_columns as row_columns

T = ColumnType
_F = ColumnFlag

_CODE_BY_NAME: dict[str, ColumnType] = {
    **{name: code for code, name in TYPE_NAMES.items() if code != T.NEWDATE},
    **{name: code for code, name in BINARY_TYPE_NAMES.items()},
}
#: Types that hold text unless the BINARY flag says bytes; ENUM and SET are always text.
_TEXT_TYPES = STRING_TYPES | BLOB_TYPES
_CHARSET_TYPES = _TEXT_TYPES | {T.ENUM, T.SET}
#: Types TiCDC's decoder marks binary when their charset is binary.
_BINARY_READ_TYPES = _TEXT_TYPES | {T.DATE, T.NEWDATE, T.DATETIME, T.TIMESTAMP, T.TIME, T.JSON, T.GEOMETRY}
_TIME_TYPES = {T.DATETIME: 19, T.TIMESTAMP: 19, T.TIME: 10}
#: TiDB's default field length of a type declared without one (signed, unsigned). Not for
#: DECIMAL and BIT: there the length bounds the values, and a type text without one bounds
#: nothing in the event model, so the reader must read no length back either.
_DEFAULT_LENGTH: dict[ColumnType, tuple[int, int]] = {
    T.TINYINT: (4, 3), T.SMALLINT: (6, 5), T.MEDIUMINT: (9, 8), T.INT: (11, 10), T.BIGINT: (20, 20),
    T.FLOAT: (12, 12), T.DOUBLE: (22, 22), T.DECIMAL: (10, 10), T.DATE: (10, 10), T.NEWDATE: (10, 10),
    T.YEAR: (4, 4), T.TINYBLOB: (255, 255), T.BLOB: (65535, 65535),
    T.MEDIUMBLOB: (16777215, 16777215), T.LONGBLOB: (4294967295, 4294967295),
}
_WITH_WIDTH = {T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.YEAR, T.BIT} | STRING_TYPES


@dataclass(frozen=True, slots=True)
class ColumnSchema:
    """One column of a TableSchema, as its ``columnSchema`` object says it."""

    name: str
    mysql_type: str
    charset: str
    collate: str
    length: int = 0
    decimal: int = 0
    elements: Optional[tuple[str, ...]] = None
    unsigned: bool = False
    zerofill: bool = False
    nullable: bool = True
    default: Any = None

    def wire(self) -> dict[str, Any]:
        """The ``columnSchema`` object, in TiCDC's field order, omitempty as Go omits."""
        data_type: dict[str, Any] = {"mysqlType": self.mysql_type, "charset": self.charset, "collate": self.collate}
        if self.length:
            data_type["length"] = self.length
        if self.decimal:
            data_type["decimal"] = self.decimal
        if self.elements:
            data_type["elements"] = list(self.elements)
        if self.unsigned:
            data_type["unsigned"] = True
        if self.zerofill:
            data_type["zerofill"] = True
        return {"name": self.name, "dataType": data_type, "nullable": self.nullable, "default": self.default}


@dataclass(frozen=True, slots=True)
class IndexSchema:
    name: str
    unique: bool
    primary: bool
    nullable: bool
    columns: tuple[str, ...]

    def wire(self) -> dict[str, Any]:
        return {"name": self.name, "unique": self.unique, "primary": self.primary, "nullable": self.nullable,
                "columns": list(self.columns)}


@dataclass(frozen=True, slots=True)
class TableSchema:
    """A table as simple carries it; ``(schema, table, version)`` names it in a reader's cache."""

    schema: str
    table: str
    table_id: int
    version: int
    columns: tuple[ColumnSchema, ...] = ()
    indexes: tuple[IndexSchema, ...] = ()

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.schema, self.table, self.version)

    def wire(self) -> dict[str, Any]:
        return {
            "schema": self.schema, "table": self.table, "tableID": self.table_id, "version": self.version,
            "columns": [c.wire() for c in self.columns], "indexes": [i.wire() for i in self.indexes],
        }


# -- writing: the wire's schema of an event schema ------------------------------------------


def column_schema(column: EventColumnSchema) -> ColumnSchema:
    """The columnSchema of a column, from its type code, flags, type text, charset and default."""
    ctype, flags = column.type, column.flags
    name = type_name(ctype, bool(flags & _F.BINARY))
    charset, collate = (column.charset, column.collation) if column.charset else charset_of(ctype, flags)
    text = parse_type_text(column.mysql_type) if column.mysql_type else None
    parsed = text if isinstance(text, TypeText) else None
    unsigned = bool(flags & _F.UNSIGNED)
    zerofill = parsed is not None and "zerofill" in (column.mysql_type or "").lower()
    length, decimal = _length_and_decimal(ctype, unsigned, parsed)
    elements = parsed.elements if parsed is not None and ctype in (T.ENUM, T.SET) else None
    return ColumnSchema(
        column.name, name, charset, collate, length, decimal, elements or None, unsigned, zerofill,
        bool(flags & _F.NULLABLE), column.default,
    )


def _length_and_decimal(ctype: ColumnType, unsigned: bool, parsed: Optional[TypeText]) -> tuple[int, int]:
    """TiDB's flen and decimal: a time type's number is its fsp, DECIMAL's are precision and scale."""
    number = parsed.length if parsed is not None else None
    if ctype in _TIME_TYPES:
        fsp = number or 0
        return _TIME_TYPES[ctype] + (fsp + 1 if fsp else 0), fsp
    if ctype == T.DECIMAL:
        if number is None:  # no width said, none written: TiDB's default (10,0) would refuse
            return 0, 0     # values the event holds, and the reader would read it back so
        return number, (parsed.scale or 0) if parsed is not None else 0
    if number is not None and ctype not in (T.ENUM, T.SET, T.JSON):
        return number, 0  # FLOAT(M,D)'s D is never written (TiCDC: always -1 for floats)
    default = _DEFAULT_LENGTH.get(ctype)
    return (default[1] if unsigned else default[0], 0) if default else (0, 0)


def wire_schema(table: EventTableSchema, version: Optional[int] = None) -> TableSchema:
    """The wire's TableSchema of an event schema (``version`` in place of its own when given);
    an index is nullable when any of its columns is."""
    nullable = {c.name for c in table.columns if c.nullable}
    indexes = tuple(
        IndexSchema(i.name, i.unique, i.primary, any(n in nullable for n in i.columns), i.columns)
        for i in table.indexes
    )
    return TableSchema(
        table.schema, table.table, table.table_id, table.version if version is None else version,
        tuple(column_schema(c) for c in table.columns), indexes,
    )


def table_schema_of(
    schema: str, table: str, table_id: int, version: int, columns: tuple[Column, ...]
) -> TableSchema:
    """The wire's TableSchema of a row's columns, derived by the core as TiCDC derives it."""
    return wire_schema(derive_table_schema(schema, table, columns, table_id, version))


# -- reading: a schema from its object, columns from the schema ------------------------------


class SchemaError(ValueError):
    """A tableSchema object that is not one; the message names the field."""


def _field(obj: dict[str, Any], name: str, kind: type, where: str) -> Any:
    value = obj.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SchemaError(f"{where}.{name} must be {kind.__name__}, got {str(value)[:40]!r}")
    return value


def table_schema_from_wire(obj: Any, where: str) -> TableSchema:
    """A TableSchema from its JSON object (or its Avro record, whose ``schema`` is ``database``)."""
    if not isinstance(obj, dict):
        raise SchemaError(f"{where} is not an object")
    schema = obj.get("schema", obj.get("database"))
    if not isinstance(schema, str):
        raise SchemaError(f"{where}.schema must be a string")
    table = _field(obj, "table", str, where)
    table_id = obj.get("tableID", 0)
    version = _field(obj, "version", int, where)
    if not isinstance(table_id, int) or version < 0:
        raise SchemaError(f"{where}.tableID and version must be integers (version >= 0)")
    columns = []
    for i, col in enumerate(_field(obj, "columns", list, where)):
        at = f"{where}.columns[{i}]"
        if not isinstance(col, dict):
            raise SchemaError(f"{at} is not an object")
        dt = _field(col, "dataType", dict, at)
        mysql_type = _field(dt, "mysqlType", str, f"{at}.dataType")
        if mysql_type not in _CODE_BY_NAME:
            raise SchemaError(f"{at}.dataType.mysqlType {mysql_type[:40]!r} is not a type TiDB names")
        elements = dt.get("elements")
        if elements is not None and (
            not isinstance(elements, list) or not all(isinstance(e, str) for e in elements)
        ):
            raise SchemaError(f"{at}.dataType.elements must be a list of strings")
        numbers = [dt.get("length") or 0, dt.get("decimal") or 0]
        if not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n < 1 << 32 for n in numbers):
            raise SchemaError(f"{at}.dataType.length and decimal must be integers >= 0")
        columns.append(ColumnSchema(
            _field(col, "name", str, at), mysql_type, str(dt.get("charset") or ""), str(dt.get("collate") or ""),
            numbers[0], numbers[1], tuple(elements) if elements else None, dt.get("unsigned") is True,
            dt.get("zerofill") is True, col.get("nullable") is not False, col.get("default"),
        ))
    indexes = []
    listed = obj.get("indexes") or []
    if not isinstance(listed, list):
        raise SchemaError(f"{where}.indexes must be a list, got {str(listed)[:40]!r}")
    for i, idx in enumerate(listed):
        at = f"{where}.indexes[{i}]"
        if not isinstance(idx, dict):
            raise SchemaError(f"{at} is not an object")
        names = _field(idx, "columns", list, at)
        if not all(isinstance(n, str) for n in names):
            raise SchemaError(f"{at}.columns must be column names")
        indexes.append(IndexSchema(str(idx.get("name") or ""), idx.get("unique") is True,
                                   idx.get("primary") is True, idx.get("nullable") is True, tuple(names)))
    return TableSchema(schema, table, table_id, version, tuple(columns), tuple(indexes))


@dataclass(frozen=True, slots=True)
class ReadColumn:
    """How a reader rebuilds one column: name, type code, flags and type text."""

    name: str
    type: ColumnType
    flags: ColumnFlag
    mysql_type: Optional[str]


def read_columns(table: TableSchema) -> tuple[ReadColumn, ...]:
    """The columns a reader rebuilds from a table schema, in its order."""
    key_flags: dict[str, ColumnFlag] = {}
    handle = next((i for i in table.indexes if i.primary), None) or next(
        (i for i in table.indexes if i.unique), None
    )
    for idx in table.indexes:
        flag = _F.PRIMARY_KEY if idx.primary else _F.UNIQUE_KEY if idx.unique else _F.MULTIPLE_KEY
        for name in idx.columns:
            key_flags[name] = key_flags.get(name, _F(0)) | flag
    if handle is not None:
        for name in handle.columns:
            key_flags[name] = key_flags.get(name, _F(0)) | _F.HANDLE_KEY
    return tuple(_read_column(c, key_flags.get(c.name, _F(0))) for c in table.columns)


def event_schema_of(table: TableSchema) -> Optional[EventTableSchema]:
    """The event model's schema of a wire schema, None for one without columns (the encoder
    writes a DDL's schema so when it knows no columns: that says nothing of the table)."""
    if not table.columns:
        return None
    columns = tuple(
        EventColumnSchema(r.name, r.type, r.flags, r.mysql_type, c.charset, c.collate, _default(c.default))
        for r, c in zip(read_columns(table), table.columns)
    )
    indexes = tuple(EventIndexSchema(i.name, i.columns, i.primary, i.unique) for i in table.indexes)
    return EventTableSchema(table.schema, table.table, table.table_id, table.version, columns, indexes)


def _default(value: Any) -> Any:
    """A default as the event model holds it: a number or text (JSON's other kinds as their text)."""
    if value is None or isinstance(value, (str, float)) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return str(value)


def _read_column(col: ColumnSchema, key_flags: ColumnFlag) -> ReadColumn:
    ctype = _CODE_BY_NAME[col.mysql_type]
    flags = key_flags
    if col.nullable:
        flags |= _F.NULLABLE
    if col.unsigned:
        flags |= _F.UNSIGNED
    if col.charset == "binary" and ctype in _BINARY_READ_TYPES:
        flags |= _F.BINARY
    return ReadColumn(col.name, ctype, flags, _type_text(ctype, col))


def _quoted(element: str) -> str:
    return "'" + element.replace("'", "''") + "'"


def _type_text(ctype: ColumnType, col: ColumnSchema) -> Optional[str]:
    """The column's MySQL type text, as far as its dataType says it."""
    name = col.mysql_type
    if ctype in (T.ENUM, T.SET):
        return f"{name}({','.join(_quoted(e) for e in col.elements or ())})" if col.elements else name
    if ctype == T.DECIMAL and col.length:
        text = f"decimal({col.length},{col.decimal})"
    elif ctype in _TIME_TYPES:
        text = f"{name}({col.decimal})" if col.decimal else name
    elif ctype in _WITH_WIDTH and col.length:
        text = f"{name}({col.length})"
    else:
        text = name
    if col.unsigned and ctype not in (T.BIT, T.YEAR) and ctype not in _CHARSET_TYPES:
        text += " unsigned"
    if col.zerofill and ctype not in _CHARSET_TYPES:
        text += " zerofill"
    problem = parse_type_text(text)
    return text if isinstance(problem, TypeText) else name
