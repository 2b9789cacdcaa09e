"""How canal-json names each column type and writes its values, and how a reader
gets the type and the value back from ``mysqlType`` and the value text.

canal-json carries no type code and no flag bits: a reader knows a column only
by its ``mysqlType`` text (base name, `` unsigned``, `` zerofill``, or the full
type with content-compatible). ``sqlType`` (java.sql.Types) is derived, partly
from the value, and adds nothing a reader needs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from json.encoder import encode_basestring
from typing import Callable, Optional

from cdcwire.plugin_api import (
    BINARY_TYPE_NAMES,
    BLOB_TYPES,
    INTEGER_TYPES,
    STRING_TYPES,
    TYPE_NAMES,
    ColumnFlag,
    ColumnType,
    float32_text,
    float64_text,
    to_float32,
)

T = ColumnType

# --- java.sql.Types codes ---------------------------------------------------------------

JAVA_BIT = -7
JAVA_TINYINT = -6
JAVA_BIGINT = -5
JAVA_NULL = 0
JAVA_CHAR = 1
JAVA_DECIMAL = 3
JAVA_INTEGER = 4
JAVA_SMALLINT = 5
JAVA_REAL = 7
JAVA_DOUBLE = 8
JAVA_VARCHAR = 12
JAVA_DATE = 91
JAVA_TIME = 92
JAVA_TIMESTAMP = 93
JAVA_BLOB = 2004
JAVA_CLOB = 2005

_JAVA_BY_TYPE: dict[ColumnType, int] = {
    T.TINYINT: JAVA_TINYINT,
    T.SMALLINT: JAVA_SMALLINT,
    T.INT: JAVA_INTEGER,
    T.FLOAT: JAVA_REAL,
    T.DOUBLE: JAVA_DOUBLE,
    T.NULL: JAVA_NULL,
    T.TIMESTAMP: JAVA_TIMESTAMP,
    T.BIGINT: JAVA_BIGINT,
    T.MEDIUMINT: JAVA_INTEGER,
    T.DATE: JAVA_DATE,
    T.TIME: JAVA_TIME,
    T.DATETIME: JAVA_TIMESTAMP,
    T.YEAR: JAVA_VARCHAR,
    T.NEWDATE: JAVA_DATE,
    T.BIT: JAVA_BIT,
    T.JSON: JAVA_VARCHAR,
    T.DECIMAL: JAVA_DECIMAL,
    T.ENUM: JAVA_INTEGER,
    T.SET: JAVA_BIT,
}

#: Unsigned integers whose value passes the signed maximum get the next wider java type.
UNSIGNED_PROMOTION: dict[ColumnType, tuple[int, int]] = {
    T.TINYINT: ((1 << 7) - 1, JAVA_SMALLINT),
    T.SMALLINT: ((1 << 15) - 1, JAVA_INTEGER),
    T.INT: ((1 << 31) - 1, JAVA_BIGINT),
    T.BIGINT: ((1 << 63) - 1, JAVA_DECIMAL),
}


def base_java_type(ctype: ColumnType, flags: ColumnFlag) -> int:
    """The java.sql.Types code of a column before any promotion by value."""
    code = _JAVA_BY_TYPE.get(ctype)
    if code is not None:
        return code
    binary = bool(flags & ColumnFlag.BINARY)
    if ctype in BLOB_TYPES or ctype == T.GEOMETRY:
        return JAVA_BLOB if binary else JAVA_CLOB
    if ctype == T.CHAR:
        return JAVA_BLOB if binary else JAVA_CHAR
    return JAVA_BLOB if binary else JAVA_VARCHAR  # VARCHAR, VAR_STRING


def promotion_of(ctype: ColumnType, flags: ColumnFlag) -> Optional[tuple[int, int]]:
    """(signed maximum, promoted code) for an unsigned integer column, else None."""
    if not flags & ColumnFlag.UNSIGNED:
        return None
    return UNSIGNED_PROMOTION.get(ctype)


def java_sql_type(ctype: ColumnType, flags: ColumnFlag, value: object) -> int:
    """The sqlType of one value: unsigned integers past their signed maximum are promoted."""
    promotion = promotion_of(ctype, flags)
    if promotion is not None and isinstance(value, int) and value > promotion[0]:
        return promotion[1]
    return base_java_type(ctype, flags)


# --- mysqlType text ---------------------------------------------------------------------

#: TiDB's names (``TypeToStr``), but VAR_STRING, which the reference names as VARCHAR.
_BASE_NAMES: dict[ColumnType, str] = {**TYPE_NAMES, T.VAR_STRING: "varchar"}
_BINARY_NAMES: dict[ColumnType, str] = {**BINARY_TYPE_NAMES, T.VAR_STRING: "varbinary"}
_NO_SIGN_WORDS = (T.BIT, T.YEAR)


def base_mysql_type(ctype: ColumnType, flags: ColumnFlag, full_text: Optional[str] = None) -> str:
    """The reference's mysqlType: base name, `` unsigned`` (not bit/year), `` zerofill``.

    Zerofill has no flag bit in the event model; it is read from the full type text.
    """
    name = _BINARY_NAMES.get(ctype) if flags & ColumnFlag.BINARY else None
    if name is None:
        name = _BASE_NAMES[ctype]
    if ctype in _NO_SIGN_WORDS:
        return name
    if flags & ColumnFlag.UNSIGNED:
        name += " unsigned"
    if full_text is not None and "zerofill" in full_text.lower():
        name += " zerofill"
    return name


def mysql_type_text(ctype: ColumnType, flags: ColumnFlag, full_text: Optional[str], content_compatible: bool) -> str:
    """What ``mysqlType`` holds for a column: the full type text with content-compatible."""
    if content_compatible and full_text:
        return full_text
    return base_mysql_type(ctype, flags, full_text)


# --- value text (encoding) ---------------------------------------------------------------

Formatter = Callable[[object], str]


def _double_text(value: object) -> str:
    """float64_text, without its general path for the common case.

    ``repr`` of a finite float without an exponent is already the shortest text
    and its fraction never ends in 0 except as ``.0``, so dropping that suffix is
    all float64_text would do to it; exponents, NaN and infinities go to it.
    """
    if value.__class__ is not float:
        if value.__class__ is not int:
            raise TypeError(f"expected a float, got {type(value).__name__}")
        value = float(value)  # type: ignore[arg-type]
    text = repr(value)
    if "e" in text or "n" in text:  # 1e+16, 1e-05, nan, inf
        return float64_text(value)  # type: ignore[arg-type]
    return text.removesuffix(".0")


def _float_text(value: object) -> str:
    if value.__class__ is not float and value.__class__ is not int:
        raise TypeError(f"expected a float, got {type(value).__name__}")
    return float32_text(value)  # type: ignore[arg-type]


def _latin1_text(value: object) -> str:
    return bytes.decode(value, "latin-1")  # type: ignore[arg-type]  # TypeError unless bytes


def _no_value(value: object) -> str:
    raise TypeError("a NULL-type column holds only null")


def holds_bytes(ctype: ColumnType, flags: ColumnFlag) -> bool:
    """Binary strings, BLOBs and GEOMETRY hold bytes; canal-json writes them ISO-8859-1."""
    if ctype == T.GEOMETRY:
        return True
    return bool(flags & ColumnFlag.BINARY) and (ctype in BLOB_TYPES or ctype in STRING_TYPES)


def formatter_for(ctype: ColumnType, flags: ColumnFlag) -> Formatter:
    """The function writing a non-null value of this column as canal-json text.

    Each raises TypeError on a value of the wrong Python type, so a bad event
    fails loudly instead of producing a message no reader can type.
    """
    if ctype in INTEGER_TYPES:
        return int.__repr__  # type: ignore[return-value]  # bool prints as 0/1
    if ctype == T.FLOAT:
        return _float_text
    if ctype == T.DOUBLE:
        return _double_text
    if ctype == T.NULL:
        return _no_value
    if holds_bytes(ctype, flags):
        return _latin1_text
    return str.__str__  # type: ignore[return-value]  # text, DECIMAL, dates, times, JSON


def _latin1_json(value: object) -> str:
    return encode_basestring(bytes.decode(value, "latin-1"))  # type: ignore[arg-type]


#: Formatters whose text never needs JSON escaping (digits, sign, point, NaN, +Inf, -Inf).
_BARE_TEXT = frozenset({int.__repr__, _float_text, _double_text, _no_value})


def json_formatter_for(ctype: ColumnType, flags: ColumnFlag) -> tuple[Formatter, bool]:
    """The function writing a non-null value of this column as JSON, and whether a row
    template must put the quotes around its result.

    Numbers need no escaping, so their text goes between quotes the template already
    has; strings get ``encode_basestring`` (what ``json.dumps`` uses), which also does
    ``str.__str__``'s type check. Each accepts and rejects exactly what
    :func:`formatter_for` does.
    """
    text = formatter_for(ctype, flags)
    if text in _BARE_TEXT:
        return text, True
    if text is _latin1_text:
        return _latin1_json, False
    if text is str.__str__:  # type: ignore[comparison-overlap]
        return encode_basestring, False
    raise AssertionError(f"no JSON formatter for {text!r}")


# --- reading mysqlType back --------------------------------------------------------------

Parser = Callable[[str], object]

_INFINITIES = (float("inf"), float("-inf"))
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z|NaN\Z|[+-]Inf\Z")


def parse_int(text: str) -> int:
    """Decimal digits with an optional minus: no spaces, underscores, plus or non-ASCII digits."""
    if text.isascii() and (text.isdigit() or (text[:1] == "-" and text[1:].isdigit())):
        return int(text)
    raise ValueError(f"{text[:40]!r} is not an integer")


def parse_double(text: str) -> float:
    """Go's ParseFloat syntax. NaN and +-Inf are what the encoder writes for those values;
    a finite text past the float64 range (1e999) is an error there, not an infinity."""
    if not _FLOAT_TEXT.match(text):
        raise ValueError(f"{text[:40]!r} is not a number")
    value = float(text)
    if value in _INFINITIES and text[-3:] != "Inf":
        raise ValueError(f"{text[:40]!r} is beyond the DOUBLE range")
    return value


def parse_float32(text: str) -> float:
    value = parse_double(text)
    try:
        return to_float32(value)
    except OverflowError:  # struct cannot pack a finite value past the float32 range
        raise ValueError(f"{text[:40]!r} is beyond the FLOAT range") from None


def parse_latin1(text: str) -> bytes:
    try:
        return text.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"binary value has character U+{ord(text[exc.start]):04X} at {exc.start}, above U+00FF"
        ) from None


def parse_nothing(text: str) -> object:
    raise ValueError("a null-type column holds only null")


_B = ColumnFlag.BINARY
_U = ColumnFlag.UNSIGNED
_NONE = ColumnFlag(0)

#: mysqlType base name -> (type code, flags implied by the name, value parser or None for text).
_SHAPES_BY_NAME: dict[str, tuple[ColumnType, ColumnFlag, Optional[Parser]]] = {
    "tinyint": (T.TINYINT, _NONE, parse_int),
    "bool": (T.TINYINT, _NONE, parse_int),
    "boolean": (T.TINYINT, _NONE, parse_int),
    "smallint": (T.SMALLINT, _NONE, parse_int),
    "mediumint": (T.MEDIUMINT, _NONE, parse_int),
    "int": (T.INT, _NONE, parse_int),
    "integer": (T.INT, _NONE, parse_int),
    "bigint": (T.BIGINT, _NONE, parse_int),
    "float": (T.FLOAT, _NONE, parse_float32),
    "double": (T.DOUBLE, _NONE, parse_double),
    "real": (T.DOUBLE, _NONE, parse_double),
    "decimal": (T.DECIMAL, _NONE, None),
    "numeric": (T.DECIMAL, _NONE, None),
    "null": (T.NULL, _NONE, parse_nothing),
    "timestamp": (T.TIMESTAMP, _NONE, None),
    "date": (T.DATE, _NONE, None),
    "time": (T.TIME, _NONE, None),
    "datetime": (T.DATETIME, _NONE, None),
    "year": (T.YEAR, _U, parse_int),  # MySQL marks YEAR and BIT unsigned; the text never says so
    "bit": (T.BIT, _U, parse_int),
    "json": (T.JSON, _NONE, None),
    "enum": (T.ENUM, _NONE, parse_int),
    "set": (T.SET, _NONE, parse_int),
    "char": (T.CHAR, _NONE, None),
    "varchar": (T.VARCHAR, _NONE, None),
    "binary": (T.CHAR, _B, parse_latin1),
    "varbinary": (T.VARCHAR, _B, parse_latin1),
    "tinytext": (T.TINYBLOB, _NONE, None),
    "text": (T.BLOB, _NONE, None),
    "mediumtext": (T.MEDIUMBLOB, _NONE, None),
    "longtext": (T.LONGBLOB, _NONE, None),
    "tinyblob": (T.TINYBLOB, _B, parse_latin1),
    "blob": (T.BLOB, _B, parse_latin1),
    "mediumblob": (T.MEDIUMBLOB, _B, parse_latin1),
    "longblob": (T.LONGBLOB, _B, parse_latin1),
    "geometry": (T.GEOMETRY, _B, parse_latin1),
}

#: Types whose mysqlType may say unsigned; an ENUM's elements may hold the word, so only these look.
_SIGNED_NUMBERS = frozenset({T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.FLOAT, T.DOUBLE, T.DECIMAL})
_BASE_WORD = re.compile(r"\s*([A-Za-z]+)")


@dataclass(frozen=True, slots=True)
class ColumnShape:
    """What a reader learns from one ``mysqlType`` text."""

    type: ColumnType
    flags: ColumnFlag
    parse: Optional[Parser]  # None: the value text is the value


def shape_of(mysql_type: str) -> ColumnShape:
    """Type code, unsigned/binary flags and value parser for a ``mysqlType`` text.

    Raises ValueError for a type name canal-json does not produce.
    """
    m = _BASE_WORD.match(mysql_type)
    entry = _SHAPES_BY_NAME.get(m.group(1).lower()) if m else None
    if entry is None:
        raise ValueError(f"unknown mysqlType {mysql_type[:60]!r}")
    ctype, flags, parse = entry
    if ctype in _SIGNED_NUMBERS:
        words = mysql_type.lower()
        if "unsigned" in words or "zerofill" in words:
            flags |= _U
    return ColumnShape(ctype, flags, parse)
