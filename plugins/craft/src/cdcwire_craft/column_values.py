"""How craft writes one column value, by column type and flags (REFERENCE.md, "Value bytes").

Each (type, flags) pair maps to a :class:`ValueKind`; the encoder, the decoder
and ``carried()`` all dispatch on it, so the three never disagree.

* integers: zigzag varint, or uvarint when the UNSIGNED flag is set;
  YEAR is always a varint; ENUM, SET and BIT are always uvarints
* FLOAT and DOUBLE: 8-byte little-endian float64 (FLOAT reads back float32-rounded)
* DECIMAL, dates, times, JSON: their text; strings and blobs: raw bytes
  (str when the BINARY flag is clear, bytes when it is set)
* NULL and GEOMETRY: always NULL (the reference does not carry them)
"""

from __future__ import annotations

import enum
import struct
from operator import index
from typing import Any, Callable

from cdcwire.plugin_api import ValueKind as CoreKind
from cdcwire.plugin_api import value_kind as core_value_kind
from cdcwire.plugin_api import (
    BLOB_TYPES,
    STRING_TYPES,
    ColumnType,
    EncodeError,
    canonical_value,
    to_float32,
)

from .primitives import I64_MAX, I64_MIN, SMALL_UVARINT, U64_MAX, uvarint, zigzag


class ValueKind(enum.IntEnum):
    SIGNED = 1
    UNSIGNED = 2
    FLOAT = 3
    DOUBLE = 4
    TEXT = 5
    STRING = 6
    BINARY = 7
    ALWAYS_NULL = 8


_RAW_TYPES = BLOB_TYPES | STRING_TYPES
#: Craft's kinds from the core's one classification (cdcwire.values.value_kinds): craft splits text
#: into TEXT (DECIMAL, dates, times, JSON: their text) and STRING (strings and TEXT blobs).
_FROM_CORE = {
    CoreKind.SIGNED: ValueKind.SIGNED,
    CoreKind.UNSIGNED: ValueKind.UNSIGNED,
    CoreKind.FLOAT32: ValueKind.FLOAT,
    CoreKind.FLOAT64: ValueKind.DOUBLE,
    CoreKind.TEXT: ValueKind.TEXT,
    CoreKind.BYTES: ValueKind.BINARY,
    CoreKind.NULL: ValueKind.ALWAYS_NULL,
}


def value_kind(ctype: int, flags: int) -> ValueKind:
    """The encoding of a column's value; unknown type codes are an EncodeError."""
    if ctype == ColumnType.GEOMETRY:
        return ValueKind.ALWAYS_NULL  # the reference does not carry it
    try:
        kind = _FROM_CORE[core_value_kind(ctype, flags)]
    except ValueError:
        raise EncodeError(f"column type code {ctype} is not a craft column type") from None
    return ValueKind.STRING if kind is ValueKind.TEXT and ctype in _RAW_TYPES else kind


# --- encoding ------------------------------------------------------------------------------

_pack_f64 = struct.Struct("<d").pack
_unpack_f64 = struct.Struct("<d").unpack


def _integer(v: Any) -> int:
    """``v`` as a plain int: bool and int-like classes (IntEnum, numpy) are accepted; anything
    else raises ``TypeError("'float' object cannot be interpreted as an integer")``, which
    an error message can quote, rather than whatever the arithmetic below would trip over."""
    return v if v.__class__ is int else index(v)


def _encode_signed(v: Any) -> bytes:
    v = _integer(v)
    if -64 <= v < 64:
        return SMALL_UVARINT[(v << 1) ^ (v >> 63)]
    return uvarint(zigzag(v))


def _encode_unsigned(v: Any) -> bytes:
    v = _integer(v)
    if 0 <= v < 0x80:
        return SMALL_UVARINT[v]
    return uvarint(v)


def _encode_float(v: Any) -> bytes:
    if v.__class__ is bool or not isinstance(v, (int, float)):
        raise TypeError(f"expected a number, got {type(v).__name__}")
    return _pack_f64(v)


def _encode_float32(v: Any) -> bytes:
    """FLOAT holds float32 values: one outside its range cannot come back (OverflowError)."""
    data = _encode_float(v)
    to_float32(v)
    return data


def _encode_text(v: Any) -> bytes:
    if v.__class__ is str:
        return v.encode()
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    raise TypeError(f"expected str or bytes, got {type(v).__name__}")


def _encode_nothing(v: Any) -> None:
    return None


#: Value kind -> function from a non-None value to its bytes (None for ALWAYS_NULL).
ENCODERS: dict[ValueKind, Callable[[Any], Any]] = {
    ValueKind.SIGNED: _encode_signed,
    ValueKind.UNSIGNED: _encode_unsigned,
    ValueKind.FLOAT: _encode_float32,
    ValueKind.DOUBLE: _encode_float,
    ValueKind.TEXT: _encode_text,
    ValueKind.STRING: _encode_text,
    ValueKind.BINARY: _encode_text,
    ValueKind.ALWAYS_NULL: _encode_nothing,
}


def explain_bad_value(kind: ValueKind, value: Any) -> str:
    """Why ``value`` cannot be written as ``kind`` (for EncodeError messages); names the value."""
    shown = f"{type(value).__name__} {value!r:.80}"
    if kind in (ValueKind.SIGNED, ValueKind.UNSIGNED):
        if not hasattr(value, "__index__"):
            return f"expected an integer, got {shown}"
        lo, hi = (I64_MIN, I64_MAX) if kind == ValueKind.SIGNED else (0, U64_MAX)
        return f"{index(value)} is outside {lo}..{hi}"
    if kind in (ValueKind.FLOAT, ValueKind.DOUBLE):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return f"{value!r} is outside the float32 range of FLOAT"
        return f"expected a number, got {shown}"
    return f"expected str or bytes, got {shown}"


# --- decoding ------------------------------------------------------------------------------


class BadValue(ValueError):
    """A value's bytes do not fit its column type (the decoder adds the offset)."""


def _read_uvarint_exactly(raw: bytes) -> int:
    """The uvarint that is all of ``raw``. One and two bytes (integers below 16384) take no
    loop; longer ones are read from their last byte back, with one check per byte."""
    n = len(raw)
    if n == 1:
        if raw[0] < 0x80:
            return raw[0]
    elif n == 2:
        low, high = raw
        if low >= 0x80 and high < 0x80:
            return (low & 0x7F) | (high << 7)
    elif 2 < n <= 10 and raw[-1] < 0x80:
        result = raw[-1]
        for b in raw[-2::-1]:
            if b < 0x80:
                break
            result = (result << 7) | (b - 0x80)
        else:
            if result <= U64_MAX:
                return result
    return _explain_uvarint(raw)


def _explain_uvarint(raw: bytes) -> int:
    """Read ``raw`` byte by byte from the start, to say what is wrong with it."""
    n = len(raw)
    result = 0
    shift = 0
    for i, b in enumerate(raw):
        if shift == 63 and b > 1:
            raise BadValue("integer overflows 64 bits")
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if i != n - 1:
                raise BadValue(f"{n - 1 - i} byte(s) after the integer")
            return result
        shift += 7
    raise BadValue("truncated integer")


def _decode_signed(raw: bytes) -> int:
    u = _read_uvarint_exactly(raw)
    return (u >> 1) ^ -(u & 1)


def _decode_float(raw: bytes) -> float:
    if len(raw) != 8:
        raise BadValue(f"a float64 takes 8 bytes, got {len(raw)}")
    value = _unpack_f64(raw)[0]
    try:
        return to_float32(value)
    except OverflowError:
        raise BadValue(f"{value!r} is outside the float32 range of FLOAT") from None


def _decode_double(raw: bytes) -> float:
    if len(raw) != 8:
        raise BadValue(f"a float64 takes 8 bytes, got {len(raw)}")
    return _unpack_f64(raw)[0]


def _decode_nothing(raw: bytes) -> None:
    return None


#: Value kind -> function from the value's bytes to the canonical Python value.
#: They raise BadValue, or UnicodeDecodeError for text that is not UTF-8.
DECODERS: dict[ValueKind, Callable[[bytes], Any]] = {
    ValueKind.SIGNED: _decode_signed,
    ValueKind.UNSIGNED: _read_uvarint_exactly,
    ValueKind.FLOAT: _decode_float,
    ValueKind.DOUBLE: _decode_double,
    ValueKind.TEXT: bytes.decode,
    ValueKind.STRING: bytes.decode,
    ValueKind.BINARY: bytes,
    ValueKind.ALWAYS_NULL: _decode_nothing,
}


# --- what survives a round trip ---------------------------------------------------------------


def carried_value(kind: ValueKind, ctype: int, flags: int, value: Any) -> Any:
    """The value as the decoder returns it after craft carried it: the core's canonical form,
    but nothing for NULL and GEOMETRY columns, which craft does not carry."""
    if kind == ValueKind.ALWAYS_NULL:
        return None
    return canonical_value(ctype, flags, value)
