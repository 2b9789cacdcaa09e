"""The ``table`` of a DDL's ``tableChanges``, from the table schema the DDL event carries.

As TiCDC's ``EncodeDDLEvent`` writes it from TiDB's table info (``getLen``, ``getScale``,
``getCharset``, ``getExpressionAndName``, ``MySQLType2JdbcType``): the table's default charset,
its primary key, and per column the JDBC type, TiDB's type name and expression, the
charset of a text column, the length and scale TiDB shows, the 1-based position, whether it
is optional, and its default. TiDB's field length and decimal come from the column's type
text (TiDB's default for its type where the text gives none). cdcwire knows no column
comments, AUTO_INCREMENT or ON UPDATE flags: ``comment`` is null and ``autoIncremented`` and
``generated`` false.

The reader takes a table schema back from the block (:func:`table_of_block`): the type from
``typeName``, UNSIGNED and BINARY from it, NULLABLE from ``optional``, the primary key, a type
text from ``length``/``scale``/``enumValues``, the charset, the default. TiDB's collation and
the table id are not in the block (empty, 0).
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import (
    ColumnFlag,
    ColumnSchema,
    ColumnType,
    IndexSchema,
    TableSchema,
    TypeText,
    charset_of,
    parse_type_text,
    type_name,
)

T = ColumnType

#: TiDB's ``GetDefaultFieldLengthAndDecimal`` (flen, decimal) of each type.
_DEFAULT: dict[ColumnType, tuple[int, int]] = {
    T.BIT: (1, 0), T.TINYINT: (4, 0), T.SMALLINT: (6, 0), T.MEDIUMINT: (9, 0), T.INT: (11, 0),
    T.BIGINT: (20, 0), T.DOUBLE: (22, -1), T.FLOAT: (12, -1), T.DECIMAL: (10, 0), T.TIME: (10, 0),
    T.DATE: (10, 0), T.NEWDATE: (10, 0), T.TIMESTAMP: (19, 0), T.DATETIME: (19, 0), T.YEAR: (4, 0),
    T.CHAR: (1, 0), T.VARCHAR: (5, 0), T.VAR_STRING: (5, 0), T.TINYBLOB: (255, 0), T.BLOB: (65535, 0),
    T.MEDIUMBLOB: (16777215, 0), T.LONGBLOB: (4294967295, 0), T.JSON: (4294967295, 0), T.NULL: (0, 0),
    T.SET: (-1, 0), T.ENUM: (-1, 0),
}
_SMALL_INTS = (T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT)
_TIMES = (T.TIMESTAMP, T.TIME, T.DATETIME)
_STRINGS = (T.VARCHAR, T.CHAR, T.VAR_STRING)
_BLOBS = (T.TINYBLOB, T.BLOB, T.MEDIUMBLOB, T.LONGBLOB)
#: ``getCharset``: the types whose charset TiCDC writes (when it is not binary).
_CHARSET_TYPES = (T.TIMESTAMP, T.TIME, T.DECIMAL, T.CHAR, T.VARCHAR, *_BLOBS, T.ENUM, T.SET)

#: ``MySQLType2JdbcType``: (text, binary) JDBC type of each type code; VARCHAR for the rest.
_JDBC: dict[ColumnType, tuple[int, int]] = {
    T.TINYINT: (5, 5), T.SMALLINT: (5, 5), T.INT: (4, 4), T.MEDIUMINT: (4, 4), T.YEAR: (4, 4),
    T.FLOAT: (6, 6), T.DOUBLE: (8, 8), T.NULL: (0, 0), T.DECIMAL: (3, 3), T.TIMESTAMP: (2014, 2014),
    T.DATETIME: (93, 93), T.BIGINT: (-5, -5), T.DATE: (91, 91), T.NEWDATE: (91, 91), T.TIME: (92, 92),
    T.ENUM: (1, 1), T.SET: (1, 1), **dict.fromkeys(_BLOBS, (12, 2004)), T.VAR_STRING: (12, -3),
    T.VARCHAR: (12, -3), T.CHAR: (1, -2), T.GEOMETRY: (1111, 1111), T.BIT: (-7, -7), T.JSON: (1111, 1111),
}


def _flen_and_decimal(column: ColumnSchema) -> tuple[int, int, Optional[tuple[str, ...]]]:
    """TiDB's flen and decimal of a column, and its ENUM/SET elements, from its type text."""
    ctype = column.type
    flen, decimal = _DEFAULT.get(ctype, (0, 0))
    if ctype in _SMALL_INTS and column.is_unsigned:
        flen -= 1
    found = parse_type_text(column.mysql_type) if column.mysql_type else None
    parsed = found if isinstance(found, TypeText) else None
    if parsed is None:
        return flen, decimal, None
    if ctype in _TIMES:
        return flen, parsed.length or 0, None
    if parsed.length is not None:
        flen = parsed.length
    if ctype in (T.DECIMAL, T.FLOAT, T.DOUBLE) and parsed.scale is not None:
        decimal = parsed.scale
    return flen, decimal, parsed.elements


def _zerofill(column: ColumnSchema) -> bool:
    return "zerofill" in (column.mysql_type or "").lower()


def _length(ctype: ColumnType, column: ColumnSchema, flen: int, decimal: int, elements: Any) -> Optional[int]:
    """``getLen``: what TiCDC shows as a column's length, None for null."""
    default = _DEFAULT.get(ctype, (0, 0))[0]
    if ctype in _TIMES:
        return decimal
    if ctype in (T.BIT, *_STRINGS, T.BIGINT, T.FLOAT, T.DOUBLE):
        return flen if flen != default else None
    if ctype in _SMALL_INTS:
        default -= 1 if column.is_unsigned else 0
        default += 1 if ctype == T.TINYINT and _zerofill(column) else 0
        return flen if flen != default else None
    if ctype in (T.YEAR, T.DECIMAL):
        return flen
    if ctype == T.SET:
        return 2 * len(elements or ()) - 1
    if ctype == T.ENUM:
        return 1
    return None


def _expression_and_name(ctype: ColumnType, column: ColumnSchema, binary: bool, flen: int, decimal: int) -> tuple[str, str]:
    """``getExpressionAndName``: TiDB's type name upper-cased, with ``getSuffix`` and the sign words."""
    prefix = type_name(ctype, binary).upper()
    if ctype in (T.YEAR, T.BIT, T.VARCHAR, T.CHAR, T.DECIMAL):
        return prefix, prefix
    suffix = ""
    if ctype == T.DOUBLE and decimal not in (0, -1):
        suffix = f"({flen},{decimal})"
    elif ctype == T.VAR_STRING and not column.is_binary and flen != 1:
        suffix = f"({flen})"
    elif ctype == T.NULL:
        suffix = "(0)"
    sign = " UNSIGNED ZEROFILL" if _zerofill(column) else " UNSIGNED" if column.is_unsigned else ""
    return prefix + suffix + sign, prefix + sign


def _default(value: Any) -> Any:
    """``defaultValueExpression``: CURRENT_TIMESTAMP as Debezium's epoch text, the rest as given."""
    if isinstance(value, str) and value.upper() == "CURRENT_TIMESTAMP":
        return "1970-01-01 00:00:00"
    return value


def _column(position: int, column: ColumnSchema) -> dict[str, Any]:
    ctype = column.type
    binary = column.charset == "binary" if column.charset else column.is_binary
    flen, decimal, elements = _flen_and_decimal(column)
    expression, name = _expression_and_name(ctype, column, binary, flen, decimal)
    charset = column.charset if column.charset != "binary" and ctype in _CHARSET_TYPES else None
    jdbc = _JDBC.get(ctype, (12, 12))[1 if column.is_binary else 0]
    scale = decimal if ctype in (T.DECIMAL, T.FLOAT, T.DOUBLE) and decimal != -1 else None
    return {
        "name": column.name, "jdbcType": jdbc, "nativeType": None, "comment": None,
        "defaultValueExpression": _default(column.default),
        "enumValues": [f"'{e}'" for e in elements] if elements else None,
        "typeName": name, "typeExpression": expression, "charsetName": charset or None,
        "length": _length(ctype, column, flen, decimal, elements), "scale": scale,
        "position": position, "optional": column.nullable, "autoIncremented": False, "generated": False,
    }


def table_block(schema: TableSchema) -> dict[str, Any]:
    """The ``table`` object of a change, as TiCDC writes it for a table that exists after the DDL."""
    return {
        "defaultCharsetName": schema.charset or "utf8mb4",
        "primaryKeyColumnNames": list(schema.primary_key),
        "columns": [_column(i, c) for i, c in enumerate(schema.columns, 1)],
        "comment": None,
    }


# -- reading: a table schema back from a change's table -----------------------------------


class TableBlockError(ValueError):
    """A ``tableChanges[].table`` that is not one; the message names the field."""


_BY_NAME: dict[str, tuple[ColumnType, bool]] = {
    **{type_name(t): (t, False) for t in _DEFAULT if t != T.NEWDATE},
    **{type_name(t, True): (t, True) for t in (*_STRINGS, *_BLOBS) if t != T.VAR_STRING},
    "geometry": (T.GEOMETRY, False),
}
_WITH_LENGTH = (T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.BIT, T.YEAR, *_STRINGS)


def _text_of(ctype: ColumnType, base: str, length: Any, scale: Any, elements: tuple[str, ...], sign: str) -> str:
    """The column's MySQL type text, as far as the block says it."""
    if ctype in (T.ENUM, T.SET):
        return f"{base}({','.join(chr(39) + e.replace(chr(39), chr(39) * 2) + chr(39) for e in elements)})"
    text = base
    if ctype == T.DECIMAL and isinstance(length, int):
        text = f"decimal({length},{scale if isinstance(scale, int) else 0})"
    elif ctype in _TIMES and isinstance(length, int) and length:
        text = f"{base}({length})"
    elif ctype in (T.FLOAT, T.DOUBLE) and isinstance(length, int) and isinstance(scale, int):
        text = f"{base}({length},{scale})"
    elif ctype in _WITH_LENGTH and isinstance(length, int):
        text = f"{base}({length})"
    text += sign.lower()
    return text if isinstance(parse_type_text(text), TypeText) else base


def _part(col: dict[str, Any], part: str, kind: type, where: str) -> Any:
    """``col[part]``, null or of its Connect kind (a boolean is no int32); TableBlockError else."""
    value = col.get(part)
    if value is None or isinstance(value, kind) and (kind is bool or not isinstance(value, bool)):
        return value
    raise TableBlockError(f"{where}.{part} must be {_KIND_WORDS[kind]} or null, got {type(value).__name__}")


_KIND_WORDS = {bool: "a boolean", int: "an integer", str: "a string"}


def table_of_block(block: Any, schema: str, table: str) -> Optional[TableSchema]:
    """The table schema of a change's ``table`` (None for a null one); TableBlockError when it
    is not one."""
    if block is None:
        return None
    if not isinstance(block, dict) or not isinstance(block.get("columns"), list):
        raise TableBlockError("tableChanges[0].table is not an object with a columns array")
    keys = block.get("primaryKeyColumnNames") or []
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise TableBlockError("tableChanges[0].table.primaryKeyColumnNames must be column names")
    columns = []
    for i, col in enumerate(block["columns"]):
        where = f"tableChanges[0].table.columns[{i}]"
        name = col.get("name") if isinstance(col, dict) else None
        type_text = col.get("typeName") if isinstance(col, dict) else None
        if not isinstance(name, str) or not isinstance(type_text, str):
            raise TableBlockError(f"{where} needs a string name and typeName")
        base, _, sign = type_text.lower().partition(" ")
        if base not in _BY_NAME or sign not in ("", "unsigned", "unsigned zerofill"):
            raise TableBlockError(f"{where}.typeName {type_text[:40]!r} is not a type TiDB names")
        ctype, binary = _BY_NAME[base]
        flags = ColumnFlag(0)
        if _part(col, "optional", bool, where) is not False:
            flags |= ColumnFlag.NULLABLE
        if sign:
            flags |= ColumnFlag.UNSIGNED
        if binary:
            flags |= ColumnFlag.BINARY
        if name in keys:
            flags |= ColumnFlag.PRIMARY_KEY | ColumnFlag.HANDLE_KEY
        values = col.get("enumValues")
        values = [] if values is None else values
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise TableBlockError(f"{where}.enumValues must be an array of strings")
        elements = tuple(v[1:-1] if v[:1] == v[-1:] == "'" and len(v) > 1 else v for v in values)
        length, scale = _part(col, "length", int, where), _part(col, "scale", int, where)
        text = _text_of(ctype, base, length, scale, elements, f" {sign}" if sign else "")
        charset = _part(col, "charsetName", str, where)
        pair = (charset, "") if isinstance(charset, str) else charset_of(ctype, flags)
        default = col.get("defaultValueExpression")
        if not isinstance(default, (str, int, float)) or isinstance(default, bool):
            default = None
        columns.append(ColumnSchema(name, ctype, flags, text, *pair, default))
    indexes = (IndexSchema("PRIMARY", tuple(keys), primary=True, unique=True),) if keys else ()
    charset = block.get("defaultCharsetName")
    return TableSchema(schema, table, 0, 0, tuple(columns), indexes, charset if isinstance(charset, str) else "")
