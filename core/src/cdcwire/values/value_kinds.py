"""The one classification of column values: which Python kind a column's value is, by its
type code and flags, and the canonical form of a value of that kind.

Every protocol carries values differently, but all of them start from the same question
(is this an integer, a float32, a float64, bytes or text?) and a lossless reader gives a
value back in the same canonical form. Codecs used to answer both in ladders of their
own, and they disagreed at the edges (GEOMETRY held bytes for one and text for another).
This module answers once; a codec maps a :class:`ValueKind` to its wire form.
"""

from __future__ import annotations

import enum
import struct
from typing import Any

from .type_codes import BLOB_TYPES, STRING_TYPES, TEXTUAL_TYPES, ColumnFlag, ColumnType

_F32 = struct.Struct("<f")


def to_float32(x: float) -> float:
    """Round a Python float to the nearest float32 (as MySQL FLOAT stores it)."""
    return _F32.unpack(_F32.pack(x))[0]


class ValueKind(enum.IntEnum):
    """The Python kind of a column's value (SQL NULL aside, which any column may hold)."""

    SIGNED = 1  # int in the type's signed range
    UNSIGNED = 2  # int >= 0: unsigned integers, BIT, ENUM (1-based index), SET (bit mask)
    FLOAT32 = 3  # float, float32-exact
    FLOAT64 = 4  # float
    TEXT = 5  # str: DECIMAL, dates, times, JSON, text strings
    BYTES = 6  # bytes: binary strings, BLOBs, GEOMETRY (WKB)
    NULL = 7  # the NULL type: only SQL NULL


_SIGNED_INTEGERS = frozenset(
    {ColumnType.TINYINT, ColumnType.SMALLINT, ColumnType.MEDIUMINT, ColumnType.INT, ColumnType.BIGINT}
)
_ALWAYS_UNSIGNED = frozenset({ColumnType.BIT, ColumnType.ENUM, ColumnType.SET})
_STRINGS_AND_BLOBS = STRING_TYPES | BLOB_TYPES


def value_kind(ctype: int, flags: int) -> ValueKind:
    """The kind of value a column of this type and these flags holds. YEAR is SIGNED (a
    small number); BIT, ENUM and SET are UNSIGNED whatever their flags; a string or BLOB
    type holds BYTES when the BINARY flag is set, TEXT otherwise."""
    if ctype in _SIGNED_INTEGERS:
        return ValueKind.UNSIGNED if flags & ColumnFlag.UNSIGNED else ValueKind.SIGNED
    if ctype == ColumnType.YEAR:
        return ValueKind.SIGNED
    if ctype in _ALWAYS_UNSIGNED:
        return ValueKind.UNSIGNED
    if ctype == ColumnType.FLOAT:
        return ValueKind.FLOAT32
    if ctype == ColumnType.DOUBLE:
        return ValueKind.FLOAT64
    if ctype in _STRINGS_AND_BLOBS:
        return ValueKind.BYTES if flags & ColumnFlag.BINARY else ValueKind.TEXT
    if ctype == ColumnType.GEOMETRY:
        return ValueKind.BYTES
    if ctype == ColumnType.NULL:
        return ValueKind.NULL
    if ctype in TEXTUAL_TYPES:
        return ValueKind.TEXT
    raise ValueError(f"column type code {ctype} is not a ColumnType")


def holds_bytes(ctype: int, flags: int) -> bool:
    """True when a column's value is bytes (binary strings, BLOBs, GEOMETRY)."""
    return value_kind(ctype, flags) is ValueKind.BYTES


def canonical_value(ctype: int, flags: int, value: Any) -> Any:
    """``value`` in the form a lossless reader gives it back for this type and these flags:
    int for integers, float32-rounded float for FLOAT, float for DOUBLE, bytes for binary
    values (text encoded as UTF-8), str for text (bytes decoded as UTF-8, as protocols
    that carry text as bytes read it)."""
    if value is None:
        return None
    kind = value_kind(ctype, flags)
    if kind is ValueKind.SIGNED or kind is ValueKind.UNSIGNED:
        return int(value)
    if kind is ValueKind.FLOAT32:
        return to_float32(float(value))
    if kind is ValueKind.FLOAT64:
        return float(value)
    if kind is ValueKind.BYTES:
        return value.encode() if isinstance(value, str) else bytes(value)
    if kind is ValueKind.NULL:
        return None
    return bytes(value).decode() if isinstance(value, (bytes, bytearray, memoryview)) else value
