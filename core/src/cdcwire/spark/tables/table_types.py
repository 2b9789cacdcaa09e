"""Which Spark type a table column gets, from what the events say of its MySQL type.

Pure Python (pyspark's type classes, no session, no job): :mod:`cdcwire.spark.tables.changelog` turns
values into these types with Spark expressions, and a caller who types a streaming frame by
hand builds its :class:`TableColumn` list here.

What the events carry about a column is its type code and flag bits, and on some protocols the
full MySQL type text (``Column.mysql_type``: avro rebuilds ``decimal(10,4)``,
``enum('a','b')``, ``bit(12)`` from its schema; canal-json's ``mysqlType`` is the full text with
``content-compatible=true``, else the base name such as ``decimal`` or ``int unsigned``;
open-protocol and craft carry none). The text adds precision, scale, ENUM/SET elements and BIT
length; where it is missing the column gets the widest type that holds every value safely:

=============================  =========================  ===========================
MySQL type                     with the type text         type code and flags only
=============================  =========================  ===========================
TINYINT, SMALLINT, MEDIUMINT   int (signed or unsigned)   int
INT                            int; unsigned: bigint      the same (UNSIGNED flag)
BIGINT                         bigint; unsigned:          the same (UNSIGNED flag)
                               decimal(20,0)
FLOAT / DOUBLE                 float / double             float / double
DECIMAL(p,s)                   decimal(p,s), p <= 38;     string (the exact text)
                               string beyond
DATE                           date                       date
DATETIME                       timestamp_ntz              timestamp_ntz
TIMESTAMP                      timestamp (text read in    timestamp
                               the given time zone)
TIME                           string (``-838:59:59``)    string
YEAR                           int                        int
BIT(n)                         bigint; BIT(64):           decimal(20,0)
                               decimal(20,0)
ENUM                           string: the element name   int: the 1-based index
SET                            string: names, comma-      decimal(20,0): the bit mask
                               separated
JSON                           string                     string
CHAR, VARCHAR, TEXT types      string                     string
BINARY, VARBINARY, BLOB types  binary                     binary (BINARY flag)
GEOMETRY                       binary (WKB)               binary
NULL                           string (always null)       string
=============================  =========================  ===========================

An event that carries its table's schema (``table_schema``) has the type text of every column
where its rows may have none: :func:`schema_columns` types a table from it.

Unsigned is the UNSIGNED flag or the word ``unsigned`` in the type text. A column seen with
types that map differently is widened (:func:`widen`): int and bigint to bigint, integers and
decimals to the decimal holding both (string past precision 38), float and double to double,
date and timestamp_ntz to timestamp_ntz, anything else to string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Union

from pyspark.sql.types import (
    BinaryType,
    DataType,
    DateType,
    DecimalType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    StringType,
    TimestampNTZType,
    TimestampType,
)

from ...model.table_schema import TableSchema
from ...values.type_codes import BLOB_TYPES, STRING_TYPES, ColumnFlag, ColumnType

T = ColumnType

#: Spark's widest decimal.
MAX_DECIMAL_PRECISION = 38
#: BIGINT UNSIGNED, BIT(64) and a SET mask: every unsigned 64-bit value.
UNSIGNED_64 = DecimalType(20, 0)

_DECIMAL = re.compile(r"^\s*(?:decimal|numeric|dec|fixed)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", re.I)
_BIT = re.compile(r"^\s*bit\s*\(\s*(\d+)\s*\)", re.I)
_ELEMENTS = re.compile(r"^\s*(?:enum|set)\s*\((.*)\)", re.I | re.S)
_QUOTED = re.compile(r"'((?:[^'\\]|''|\\.)*)'", re.S)
_ESCAPE = re.compile(r"''|\\(.)")
_UNSIGNED = re.compile(r"\bunsigned\b", re.I)
_BINARY_TEXT = re.compile(r"^\s*(?:binary|varbinary|tinyblob|blob|mediumblob|longblob)\b", re.I)

_SMALL_INTEGERS = frozenset({T.TINYINT, T.SMALLINT, T.MEDIUMINT})


def decimal_precision_scale(mysql_type: Optional[str]) -> Optional[tuple[int, int]]:
    """(precision, scale) of ``decimal(P,S)`` / ``decimal(P)``; None when the text does not say."""
    m = _DECIMAL.match(mysql_type or "")
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def bit_length(mysql_type: Optional[str]) -> Optional[int]:
    """The N of ``bit(N)``; None when the text does not say."""
    m = _BIT.match(mysql_type or "")
    return int(m.group(1)) if m else None


def element_names(mysql_type: Optional[str]) -> Optional[tuple[str, ...]]:
    """The element names of ``enum('a','b')`` / ``set('a','b')``, unquoted; None if the text
    names none (canal-json's bare ``enum``)."""
    m = _ELEMENTS.match(mysql_type or "")
    if m is None:
        return None
    found = _QUOTED.findall(m.group(1))
    if not found:
        return None
    return tuple(_ESCAPE.sub(lambda g: g.group(1) if g.group(1) is not None else "'", e) for e in found)


def is_unsigned(flags: int, mysql_type: Optional[str]) -> bool:
    return bool(int(flags) & ColumnFlag.UNSIGNED) or bool(_UNSIGNED.search(mysql_type or ""))


def spark_type_of(
    type: Union[ColumnType, int, str], flags: int = 0, mysql_type: Optional[str] = None
) -> DataType:
    """The Spark type of a column of this MySQL type (the module's table)."""
    t = column_type(type)
    if t in _SMALL_INTEGERS or t == T.YEAR:
        return IntegerType()
    if t == T.INT:
        return LongType() if is_unsigned(flags, mysql_type) else IntegerType()
    if t == T.BIGINT:
        return UNSIGNED_64 if is_unsigned(flags, mysql_type) else LongType()
    if t == T.FLOAT:
        return FloatType()
    if t == T.DOUBLE:
        return DoubleType()
    if t == T.DECIMAL:
        ps = decimal_precision_scale(mysql_type)
        if ps is None or not (0 < ps[0] <= MAX_DECIMAL_PRECISION) or ps[1] > ps[0]:
            return StringType()
        return DecimalType(*ps)
    if t in (T.DATE, T.NEWDATE):
        return DateType()
    if t == T.DATETIME:
        return TimestampNTZType()
    if t == T.TIMESTAMP:
        return TimestampType()
    if t == T.BIT:
        n = bit_length(mysql_type)
        return LongType() if n is not None and n < 64 else UNSIGNED_64
    if t == T.ENUM:
        return StringType() if element_names(mysql_type) is not None else IntegerType()
    if t == T.SET:
        return StringType() if element_names(mysql_type) is not None else UNSIGNED_64
    if t in STRING_TYPES or t in BLOB_TYPES:
        binary = bool(int(flags) & ColumnFlag.BINARY) or bool(_BINARY_TEXT.match(mysql_type or ""))
        return BinaryType() if binary else StringType()
    if t == T.GEOMETRY:
        return BinaryType()
    return StringType()  # TIME, JSON, NULL


def column_type(type: Union[ColumnType, int, str]) -> ColumnType:
    """A ColumnType from itself, its code or its name (as the event DataFrame spells it)."""
    if isinstance(type, str):
        try:
            return ColumnType[type.strip().upper()]
        except KeyError:
            if type.strip().isascii() and type.strip().isdigit():
                return ColumnType(int(type))
            raise ValueError(f"{type!r} is not a column type name (ColumnType)") from None
    return ColumnType(type)


@dataclass(frozen=True, slots=True)
class TableColumn:
    """One column of a typed table: its name, its Spark type, and the MySQL type it came from
    (type code, flag bits, full type text when known). ``changelog`` reads a value by the Spark
    type; the MySQL type adds ENUM/SET element names to a string column."""

    name: str
    spark_type: DataType
    type: ColumnType
    flags: int = 0
    mysql_type: Optional[str] = None

    @classmethod
    def of(
        cls,
        name: str,
        type: Union[ColumnType, int, str],
        flags: int = 0,
        mysql_type: Optional[str] = None,
        spark_type: Optional[DataType] = None,
    ) -> "TableColumn":
        """A column typed by the module's table (or as ``spark_type`` says): for a streaming
        frame, ``TableColumn.of("price", "DECIMAL", mysql_type="decimal(10,2)")``."""
        t = column_type(type)
        if spark_type is None:
            spark_type = spark_type_of(t, flags, mysql_type)
        return cls(name, spark_type, t, int(flags), mysql_type)

    @property
    def elements(self) -> Optional[tuple[str, ...]]:
        """ENUM/SET element names when the type text gives them."""
        if self.type in (T.ENUM, T.SET):
            return element_names(self.mysql_type)
        return None


def schema_columns(table: TableSchema) -> list[TableColumn]:
    """The typed columns of a table schema (an event's ``table_schema``, e.g. a DDL's as simple
    or debezium read it), in its order: each column typed by the module's table from the
    schema's type text, so exact where the rows alone carry none (open-protocol, craft) and known
    before a stream runs (``changelog(stream, table, columns=schema_columns(ddl.table_schema))``)."""
    return [TableColumn.of(c.name, c.type, int(c.flags), c.mysql_type) for c in table.columns]


def _integral_digits(t: DataType) -> Optional[tuple[int, int]]:
    """(integer digits, scale) of an exact numeric type."""
    if isinstance(t, IntegerType):
        return 10, 0
    if isinstance(t, LongType):
        return 19, 0
    if isinstance(t, DecimalType):
        return t.precision - t.scale, t.scale
    return None


def widen(a: DataType, b: DataType) -> DataType:
    """One type holding the values of both: see the module docstring."""
    if a == b:
        return a
    if {type(a), type(b)} == {IntegerType, LongType}:
        return LongType()
    da, db = _integral_digits(a), _integral_digits(b)
    if da is not None and db is not None:
        whole, scale = max(da[0], db[0]), max(da[1], db[1])
        if whole + scale <= MAX_DECIMAL_PRECISION:
            return DecimalType(whole + scale, scale)
        return StringType()
    if {type(a), type(b)} == {FloatType, DoubleType}:
        return DoubleType()
    if {type(a), type(b)} == {DateType, TimestampNTZType}:
        return TimestampNTZType()
    return StringType()


__all__ = [
    "MAX_DECIMAL_PRECISION", "TableColumn", "bit_length", "column_type", "decimal_precision_scale",
    "element_names", "is_unsigned", "schema_columns", "spark_type_of", "widen",
]
