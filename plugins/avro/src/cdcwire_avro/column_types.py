"""How each column kind travels in Avro, both ways.

Encoding side: :func:`avro_type_of` turns a column into its Avro type JSON
(with ``connect.parameters`` as the reference writes them) and the function
that turns an event value into the Avro datum. Decoding side:
:func:`column_kind_of` reads a type JSON back into the column type, flags and
MySQL type text it implies, and the function that turns the datum back into an
event value. ``carried`` runs a column through both, so it says exactly what
the decoder gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Optional

from cdcwire.plugin_api import (
    BLOB_TYPES,
    STRING_TYPES,
    Column,
    ColumnFlag,
    ColumnType,
    EncodeError,
    to_float32,
)

from . import decimal_bytes
from .mysql_type_text import (
    bit_length,
    decimal_precision_scale,
    enum_elements,
    escape_allowed,
    quote_element,
    split_allowed,
)
from .options import AvroOptions

T = ColumnType
U64 = (1 << 64) - 1
I64_MAX = (1 << 63) - 1

Convert = Optional[Callable[[Any], Any]]


@dataclass(frozen=True, slots=True)
class AvroType:
    """A column kind's Avro type JSON and its value conversions.

    ``to_avro``: event value -> datum; ``from_avro``: datum as fastavro reads it ->
    event value; ``carry``: event value -> the value decoding gives back. None
    means the value passes unchanged.
    """

    schema: dict
    to_avro: Convert = None
    from_avro: Convert = None
    carry: Convert = None


@dataclass(frozen=True, slots=True)
class ColumnKind:
    """What a decoder rebuilds for a field: the column's type, flag bits and MySQL type text."""

    type: ColumnType
    flags: ColumnFlag
    mysql_type: Optional[str]
    avro: AvroType


def _typed(avro_type: str, tidb_type: str, **extra: Any) -> dict:
    params = {"tidb_type": tidb_type}
    params.update({k: v for k, v in extra.items() if k in ("length", "allowed")})
    schema: dict = {"connect.parameters": params}
    schema.update({k: v for k, v in extra.items() if k not in ("length", "allowed")})
    schema["type"] = avro_type
    return schema


# --- encoding side ------------------------------------------------------------------------


def avro_type_of(column: Column, options: AvroOptions) -> AvroType:
    """The Avro type of ``column``; EncodeError when the column cannot be carried."""
    t = column.type
    unsigned = column.is_unsigned
    if t in (T.TINYINT, T.SMALLINT, T.MEDIUMINT):
        return AvroType(_typed("int", "INT UNSIGNED" if unsigned else "INT"))
    if t == T.INT:
        return AvroType(_typed("long", "INT UNSIGNED") if unsigned else _typed("int", "INT"))
    if t == T.BIGINT:
        if not unsigned:
            return AvroType(_typed("long", "BIGINT"))
        if options.bigint_unsigned_as_string:
            return AvroType(_typed("string", "BIGINT UNSIGNED"), str, _unsigned_from_text)
        return AvroType(_typed("long", "BIGINT UNSIGNED"), _wrap_u64, _unwrap_u64)
    if t == T.FLOAT:
        return AvroType(_typed("float", "FLOAT"), carry=to_float32)
    if t == T.DOUBLE:
        return AvroType(_typed("double", "DOUBLE"))
    if t == T.DECIMAL:
        return _decimal_type(column, options)
    if t == T.ENUM or t == T.SET:
        return _elements_type(column)
    if t == T.BIT:
        length = bit_length(column.mysql_type)
        return AvroType(
            _typed("bytes", "BIT", **({} if length is None else {"length": str(length)})), _bit_bytes, _bit_value
        )
    if t == T.JSON:
        return AvroType(_typed("string", "JSON"))
    if t in (T.DATE, T.NEWDATE):
        return AvroType(_typed("string", "DATE"))
    if t == T.DATETIME:
        return AvroType(_typed("string", "DATETIME"))
    if t == T.TIMESTAMP:
        return AvroType(_typed("string", "TIMESTAMP"))
    if t == T.TIME:
        return AvroType(_typed("string", "TIME"))
    if t == T.YEAR:
        return AvroType(_typed("int", "YEAR"))
    if t in STRING_TYPES or t in BLOB_TYPES:
        if column.is_binary:
            return AvroType(_typed("bytes", "BLOB"))
        return AvroType(_typed("string", "TEXT"))
    raise EncodeError(f"column {column.name!r}: avro cannot carry type {t.name} ({int(t)})")


def _wrap_u64(value: int) -> int:
    return value - (1 << 64) if value > I64_MAX else value


def _unwrap_u64(value: int) -> int:
    return value & U64


def _unsigned_from_text(text: str) -> int:
    if not text.isdigit():
        raise ValueError(f"BIGINT UNSIGNED text {text!r} is not a decimal number")
    return int(text)


def _bit_bytes(value: int) -> bytes:
    """Minimal big-endian bytes, at least one (0 -> b'\\x00')."""
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "big")


def _bit_value(data: bytes) -> int:
    return int.from_bytes(data, "big")


def _decimal_type(column: Column, options: AvroOptions) -> AvroType:
    if options.decimal_as_string:
        return AvroType(_typed("string", "DECIMAL"))
    ps = decimal_precision_scale(column.mysql_type)
    if ps is None:
        raise EncodeError(
            f"column {column.name!r}: DECIMAL needs its MySQL type text such as decimal(10,4) for"
            f" precision and scale (got {column.mysql_type!r}); or set avro-decimal-handling-mode=string"
        )
    precision, scale = ps
    return _precise_decimal(precision, scale)


def _precise_decimal(precision: int, scale: int) -> AvroType:
    def to_avro(text: str) -> bytes:
        return decimal_bytes.to_bytes(decimal_bytes.unscaled(text, precision, scale))

    def carry(text: str) -> str:
        return decimal_bytes.text(decimal_bytes.unscaled(text, precision, scale), scale)

    schema = _typed("bytes", "DECIMAL", logicalType="decimal", precision=precision, scale=scale)
    return AvroType(schema, to_avro, _decimal_text, carry)


def _decimal_text(value: Decimal) -> str:
    return format(value, "f")


def _elements_type(column: Column) -> AvroType:
    kind = "ENUM" if column.type == T.ENUM else "SET"
    elements = enum_elements(column.mysql_type)
    if elements is None:
        raise EncodeError(
            f"column {column.name!r}: {kind} needs its MySQL type text such as"
            f" {kind.lower()}('a','b') to name its elements (got {column.mysql_type!r})"
        )
    return _elements_avro_type(kind, elements)


def _elements_avro_type(kind: str, elements: tuple[str, ...]) -> AvroType:
    schema = _typed("string", kind, allowed=",".join(escape_allowed(e) for e in elements))
    index = {name: i + 1 for i, name in enumerate(elements)}
    if kind == "ENUM":

        def to_avro(value: int) -> str:
            if value == 0:
                return ""  # MySQL's "invalid value" element
            if not 1 <= value <= len(elements):
                raise ValueError(f"ENUM index {value} is outside 1..{len(elements)}")
            return elements[value - 1]

        def from_avro(name: str) -> int:
            if name == "" and "" not in index:
                return 0
            try:
                return index[name]
            except KeyError:
                raise ValueError(f"{name!r} is not an element of the ENUM") from None

        return AvroType(schema, to_avro, from_avro, None)

    def set_to_avro(mask: int) -> str:
        if mask < 0 or mask >> len(elements):
            raise ValueError(f"SET mask {mask} has bits beyond its {len(elements)} elements")
        return ",".join(e for i, e in enumerate(elements) if mask >> i & 1)

    def set_from_avro(names: str) -> int:
        mask = 0
        for name in names.split(",") if names else ():
            try:
                mask |= 1 << (index[name] - 1)
            except KeyError:
                raise ValueError(f"{name!r} is not an element of the SET") from None
        return mask

    return AvroType(schema, set_to_avro, set_from_avro, None)


# --- decoding side ------------------------------------------------------------------------

_PLAIN: dict[tuple[str, str], tuple[ColumnType, ColumnFlag, str]] = {
    ("int", "INT"): (T.INT, ColumnFlag(0), "int"),
    ("int", "INT UNSIGNED"): (T.INT, ColumnFlag.UNSIGNED, "int unsigned"),
    ("long", "INT UNSIGNED"): (T.INT, ColumnFlag.UNSIGNED, "int unsigned"),
    ("long", "BIGINT"): (T.BIGINT, ColumnFlag(0), "bigint"),
    ("float", "FLOAT"): (T.FLOAT, ColumnFlag(0), "float"),
    ("double", "DOUBLE"): (T.DOUBLE, ColumnFlag(0), "double"),
    ("string", "JSON"): (T.JSON, ColumnFlag(0), "json"),
    ("string", "DATE"): (T.DATE, ColumnFlag(0), "date"),
    ("string", "DATETIME"): (T.DATETIME, ColumnFlag(0), "datetime"),
    ("string", "TIMESTAMP"): (T.TIMESTAMP, ColumnFlag(0), "timestamp"),
    ("string", "TIME"): (T.TIME, ColumnFlag(0), "time"),
    ("int", "YEAR"): (T.YEAR, ColumnFlag(0), "year"),
    ("string", "TEXT"): (T.LONGBLOB, ColumnFlag(0), "longtext"),
    ("bytes", "BLOB"): (T.LONGBLOB, ColumnFlag.BINARY, "longblob"),
}


def column_kind_of(schema: Any) -> ColumnKind:
    """Rebuild a column kind from the (non-null) Avro type JSON of a field.

    Raises ValueError for a type the reference never writes.
    """
    if not isinstance(schema, dict):
        raise ValueError(f"field type {schema!r} carries no connect.parameters")
    avro_type = schema.get("type")
    params = schema.get("connect.parameters") or {}
    tidb_type = params.get("tidb_type")
    plain = _PLAIN.get((avro_type, tidb_type))  # type: ignore[arg-type]
    if plain is not None:
        return ColumnKind(*plain, AvroType(schema))
    if tidb_type == "BIGINT UNSIGNED":
        mysql = "bigint unsigned"
        if avro_type == "long":
            return ColumnKind(T.BIGINT, ColumnFlag.UNSIGNED, mysql, AvroType(schema, _wrap_u64, _unwrap_u64))
        if avro_type == "string":
            return ColumnKind(T.BIGINT, ColumnFlag.UNSIGNED, mysql, AvroType(schema, str, _unsigned_from_text))
    if tidb_type == "DECIMAL":
        if avro_type == "string":
            return ColumnKind(T.DECIMAL, ColumnFlag(0), None, AvroType(schema))
        if avro_type == "bytes" and schema.get("logicalType") == "decimal":
            precision, scale = int(schema["precision"]), int(schema.get("scale", 0))
            return ColumnKind(T.DECIMAL, ColumnFlag(0), f"decimal({precision},{scale})",
                              _precise_decimal(precision, scale))
    if tidb_type in ("ENUM", "SET") and avro_type == "string":
        elements = split_allowed(str(params.get("allowed", "")))
        mysql = f"{tidb_type.lower()}({','.join(quote_element(e) for e in elements)})"
        return ColumnKind(T.ENUM if tidb_type == "ENUM" else T.SET, ColumnFlag(0), mysql,
                          _elements_avro_type(tidb_type, elements))
    if tidb_type == "BIT" and avro_type == "bytes":
        length = params.get("length")  # none written for a bit of no width: it reads back bare
        mysql = "bit" if length is None else f"bit({length})"
        return ColumnKind(T.BIT, ColumnFlag(0), mysql, AvroType(schema, _bit_bytes, _bit_value))
    raise ValueError(f"Avro type {avro_type!r} with tidb_type {tidb_type!r} is not one the avro protocol writes")
