"""The columns a schema file declares, as cdcwire's columns: type code, flags, MySQL type text,
and how a value's text in a data file becomes the column's value.

TiCDC's schema files name types by TiDB's ``TypeToStr`` in upper case (``INT UNSIGNED``,
``VARBINARY``, ``TEXT``, ``BLOB``); its decoder marks a column binary when the type holds
``BLOB`` or ``BINARY``, and the key when ``ColumnIsPk`` is ``"true"``. Kept inside this room:
the event model carries no table schema, so the schema file is the reader's own.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Callable

from ...values.type_codes import ColumnFlag as F, ColumnType as T
from ...values.value_kinds import to_float32
from .schema_files import TableCol

Reader = Callable[[str], object]

_B = F.BINARY
_U = F.UNSIGNED
_NONE = F(0)
#: Schema-file type name -> (type code, flags the name implies). As TiDB flags its columns (and
#: cdcwire's other protocols carry them): dates, times and JSON are binary (their collation is),
#: YEAR and BIT unsigned.
_TYPES: dict[str, tuple[T, F]] = {
    "TINYINT": (T.TINYINT, _NONE), "SMALLINT": (T.SMALLINT, _NONE), "MEDIUMINT": (T.MEDIUMINT, _NONE),
    "INT": (T.INT, _NONE), "BIGINT": (T.BIGINT, _NONE), "FLOAT": (T.FLOAT, _NONE), "DOUBLE": (T.DOUBLE, _NONE),
    "DECIMAL": (T.DECIMAL, _NONE), "NULL": (T.NULL, _NONE), "TIMESTAMP": (T.TIMESTAMP, _B),
    "DATE": (T.DATE, _B), "TIME": (T.TIME, _B), "DATETIME": (T.DATETIME, _B), "YEAR": (T.YEAR, _U),
    "BIT": (T.BIT, _U), "JSON": (T.JSON, _B), "ENUM": (T.ENUM, _NONE), "SET": (T.SET, _NONE),
    "CHAR": (T.CHAR, _NONE), "BINARY": (T.CHAR, _B), "VARCHAR": (T.VARCHAR, _NONE), "VARBINARY": (T.VARCHAR, _B),
    "VAR_STRING": (T.VAR_STRING, _NONE),
    "TINYTEXT": (T.TINYBLOB, _NONE), "TEXT": (T.BLOB, _NONE), "MEDIUMTEXT": (T.MEDIUMBLOB, _NONE),
    "LONGTEXT": (T.LONGBLOB, _NONE), "TINYBLOB": (T.TINYBLOB, _B), "BLOB": (T.BLOB, _B),
    "MEDIUMBLOB": (T.MEDIUMBLOB, _B), "LONGBLOB": (T.LONGBLOB, _B), "GEOMETRY": (T.GEOMETRY, _B),
}
_BYTE_STRINGS = frozenset({T.CHAR, T.VARCHAR, T.VAR_STRING, T.TINYBLOB, T.BLOB, T.MEDIUMBLOB, T.LONGBLOB, T.GEOMETRY})
_INTEGERS = frozenset({T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.YEAR})
#: Types whose MySQL text takes the schema file's precision: ``int(11)``, ``varchar(64)``, ``bit(5)``.
_SIZED = frozenset({"TINYINT", "SMALLINT", "MEDIUMINT", "INT", "BIGINT", "BIT", "CHAR", "BINARY", "VARCHAR",
                    "VARBINARY", "YEAR"})
_FRACTIONAL = frozenset({"TIME", "DATETIME", "TIMESTAMP"})


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One column of a table version: what every row's value of it is built with."""

    name: str
    type: T
    flags: F
    mysql_type: str
    read: Reader  # the value's text in a data file (NULL aside) -> the column's value


def column_specs(columns: tuple[TableCol, ...], binary_encoding: str) -> tuple[ColumnSpec, ...]:
    """The columns in file order; ValueError naming a column whose type no TiDB writes."""
    return tuple(_spec(c, binary_encoding) for c in columns)


def _spec(col: TableCol, binary_encoding: str) -> ColumnSpec:
    words = col.type.upper().split()
    base, unsigned = (words[0] if words else ""), "UNSIGNED" in words[1:]
    if base not in _TYPES:
        raise ValueError(f"column {col.name!r} has type {col.type!r}, which TiDB does not write")
    ctype, flags = _TYPES[base]
    if unsigned:
        flags |= F.UNSIGNED
    if col.is_pk == "true":
        flags |= F.PRIMARY_KEY | F.HANDLE_KEY
    if col.nullable != "false":
        flags |= F.NULLABLE
    return ColumnSpec(col.name, ctype, flags, _mysql_type(base, col, unsigned), _reader(ctype, flags, col, binary_encoding))


def _mysql_type(base: str, col: TableCol, unsigned: bool) -> str:
    text = base.lower()
    if base == "DECIMAL" and col.precision:
        text += f"({col.precision},{col.scale or 0})"
    elif base in _SIZED and col.precision:
        text += f"({col.precision})"
    elif base in _FRACTIONAL and col.scale:
        text += f"({col.scale})"
    elif base in ("ENUM", "SET"):
        text += "(" + ",".join("'" + e.replace("'", "''") + "'" for e in col.elems or ()) + ")"
    return text + (" unsigned" if unsigned else "")


def _reader(ctype: T, flags: F, col: TableCol, binary_encoding: str) -> Reader:
    if ctype in _INTEGERS:
        return int
    if ctype == T.BIT:
        return _bit
    if ctype == T.FLOAT:
        return lambda text: to_float32(float(text))
    if ctype == T.DOUBLE:
        return float
    if ctype == T.ENUM:
        return _enum_reader(col.elems or ())
    if ctype == T.SET:
        return _set_reader(col.elems or ())
    if flags & F.BINARY and ctype in _BYTE_STRINGS:
        return read_hex if binary_encoding == "hex" else read_base64
    return str


def _bit(text: str) -> int:
    """BIT as TiCDC prints it: ``%v`` of TiDB's BinaryLiteral is ``0x..``; an integer is read too."""
    return int(text[2:] or "0", 16) if text[:2].lower() == "0x" else int(text)


def read_base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise ValueError(f"{text[:40]!r} is not base64 (binary-encoding-method=base64)") from None


def read_hex(text: str) -> bytes:
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise ValueError(f"{text[:40]!r} is not hex (binary-encoding-method=hex)") from None


def _enum_reader(elems: tuple[str, ...]) -> Reader:
    index = {e.lower(): i + 1 for i, e in enumerate(elems)}

    def read(text: str) -> int:
        if text == "":
            return 0
        if text.lower() not in index:
            raise ValueError(f"{text[:40]!r} is not one of the ENUM's elements {list(elems)[:8]}")
        return index[text.lower()]

    return read


def _set_reader(elems: tuple[str, ...]) -> Reader:
    bits = {e.lower(): 1 << i for i, e in enumerate(elems)}

    def read(text: str) -> int:
        mask = 0
        for name in filter(None, text.split(",")):
            if name.lower() not in bits:
                raise ValueError(f"{name[:40]!r} is not one of the SET's elements {list(elems)[:8]}")
            mask |= bits[name.lower()]
        return mask

    return read
