"""Column values on the open-protocol wire: JSON text out, canonical Python values in.

One writer and one reader per (type, binary flag), chosen once per column
layout and cached by the encoder and decoder. The rules (REFERENCE.md, "Open
protocol"): NULL is null; TEXT/BLOB (249-252) base64 of the bytes; CHAR and
VARCHAR with the binary flag the Go-quoted bytes; other strings text; FLOAT a
float32 number, DOUBLE a float64; integers, ENUM, SET, BIT and YEAR numbers;
DECIMAL, dates, times and JSON strings.
"""

from __future__ import annotations

import base64
import binascii
import struct
from typing import Any, Callable

from cdcwire.plugin_api import BLOB_TYPES, INTEGER_TYPES, STRING_TYPES, TEXTUAL_TYPES, ColumnType

from .go_quote import GoQuoteError, go_quote, go_unquote
from .json_text import float32_json, float64_json, json_string

I64_MIN = -(1 << 63)
U64_MAX = (1 << 64) - 1
_F32 = struct.Struct("<f")

#: Renders a non-NULL value as JSON text; raises ValueError/TypeError for a value the type cannot hold.
ValueWriter = Callable[[Any], str]
#: Turns a non-null decoded JSON value into the canonical value; raises ValueError saying why not.
ValueReader = Callable[[Any], Any]


class BadValue(ValueError):
    """A value does not fit its column type (on either side of the wire)."""


# --- writers ------------------------------------------------------------------------------


def _write_integer(v: Any) -> str:
    if type(v) is int:
        if I64_MIN <= v <= U64_MAX:
            return int.__repr__(v)
    elif isinstance(v, int):  # bool and IntEnum: their number
        return _write_integer(int(v))
    raise BadValue(f"integer column needs an int in [-2^63, 2^64-1], got {_show(v)}")


def _write_float32(v: Any) -> str:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return float32_json(float(v))
        except (ValueError, OverflowError):
            pass
    raise BadValue(f"FLOAT column needs a finite float32, got {_show(v)}")


def _write_float64(v: Any) -> str:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            return float64_json(float(v))
        except (ValueError, OverflowError):
            pass
    raise BadValue(f"DOUBLE column needs a finite float, got {_show(v)}")


def _write_text(v: Any) -> str:
    if type(v) is str:
        return json_string(v)
    if isinstance(v, (bytes, bytearray, memoryview)):  # Go's string(bytes): bad UTF-8 becomes U+FFFD
        return json_string(bytes(v).decode("utf-8", "replace"))
    if isinstance(v, str):
        return json_string(str(v))
    raise BadValue(f"text column needs str, got {_show(v)}")


def _write_quoted_bytes(v: Any) -> str:
    if type(v) is bytes:
        return json_string(go_quote(v))
    if isinstance(v, str):
        return json_string(go_quote(v.encode("utf-8")))
    if isinstance(v, (bytearray, memoryview)):
        return json_string(go_quote(bytes(v)))
    raise BadValue(f"binary string column needs bytes, got {_show(v)}")


def _write_base64(v: Any) -> str:
    if isinstance(v, str):
        v = v.encode("utf-8")
    elif not isinstance(v, (bytes, bytearray, memoryview)):
        raise BadValue(f"TEXT/BLOB column needs bytes or str, got {_show(v)}")
    return '"' + base64.b64encode(v).decode("ascii") + '"'


def _write_null_type(v: Any) -> str:
    raise BadValue(f"a NULL-type column holds only NULL, got {_show(v)}")


def _unsupported(type_code: int) -> ValueWriter:
    def write(v: Any) -> str:
        raise BadValue(f"column type {type_code} is not supported by open-protocol")

    return write


def value_writer(type_code: int, binary: bool) -> ValueWriter:
    """The JSON writer for a column's non-NULL values."""
    if type_code in INTEGER_TYPES:
        return _write_integer
    if type_code == ColumnType.FLOAT:
        return _write_float32
    if type_code == ColumnType.DOUBLE:
        return _write_float64
    if type_code in BLOB_TYPES:
        return _write_base64
    if type_code in STRING_TYPES:
        return _write_quoted_bytes if binary else _write_text
    if type_code in TEXTUAL_TYPES:
        return _write_text
    if type_code == ColumnType.NULL:
        return _write_null_type
    return _unsupported(type_code)


# --- readers ------------------------------------------------------------------------------


def _read_integer(v: Any) -> int:
    if type(v) is int and I64_MIN <= v <= U64_MAX:
        return v
    raise BadValue(f"expected an integer in [-2^63, 2^64-1], got {_show(v)}")


def _read_float32(v: Any) -> float:
    if type(v) in (int, float):
        try:
            x = _F32.unpack(_F32.pack(float(v)))[0]
        except OverflowError:
            raise BadValue(f"{_show(v)} is outside the float32 range") from None
        if x == x and x not in (float("inf"), float("-inf")):
            return x
    raise BadValue(f"expected a finite float32 number, got {_show(v)}")


def _read_float64(v: Any) -> float:
    if type(v) in (int, float):
        try:
            x = float(v)
        except OverflowError:
            raise BadValue(f"{_show(v)} is outside the float64 range") from None
        if x == x and x not in (float("inf"), float("-inf")):
            return x
    raise BadValue(f"expected a finite number, got {_show(v)}")


def _read_text(v: Any) -> str:
    if type(v) is str:
        return v
    raise BadValue(f"expected a string, got {_show(v)}")


def _read_quoted_bytes(v: Any) -> bytes:
    if type(v) is not str:
        raise BadValue(f"expected a Go-quoted string, got {_show(v)}")
    try:
        return go_unquote(v)
    except GoQuoteError as exc:
        raise BadValue(f"not a Go-quoted byte string: {exc}") from None


def _read_base64_bytes(v: Any) -> bytes:
    if type(v) is not str:
        raise BadValue(f"expected a base64 string, got {_show(v)}")
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError):
        raise BadValue(f"not valid base64: {_show(v)}") from None


def _read_base64_text(v: Any) -> str:
    data = _read_base64_bytes(v)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise BadValue("TEXT value is not UTF-8 (a BLOB would carry the binary flag)") from None


def _read_null_type(v: Any) -> None:
    raise BadValue(f"a NULL-type column holds only null, got {_show(v)}")


def value_reader(type_code: int, binary: bool) -> ValueReader:
    """The reader for a column's non-null JSON values (the caller checked the type code is known)."""
    if type_code in INTEGER_TYPES:
        return _read_integer
    if type_code == ColumnType.FLOAT:
        return _read_float32
    if type_code == ColumnType.DOUBLE:
        return _read_float64
    if type_code in BLOB_TYPES:
        return _read_base64_bytes if binary else _read_base64_text
    if type_code in STRING_TYPES:
        return _read_quoted_bytes if binary else _read_text
    if type_code in TEXTUAL_TYPES:
        return _read_text
    if type_code == ColumnType.NULL:
        return _read_null_type

    def unsupported(v: Any) -> None:
        raise BadValue(f"column type {type_code} is not supported by open-protocol")

    return unsupported


class _NeverDecoded:
    """No JSON value has this type: every value goes through the reader."""


def canonical_json_type(type_code: int, binary: bool) -> type:
    """The JSON value type that is already the canonical value, so the reader can be skipped."""
    if type_code in TEXTUAL_TYPES or (type_code in STRING_TYPES and not binary):
        return str
    return _NeverDecoded


def _show(v: Any) -> str:
    """A short description of a bad value for an error message (type and a clipped repr)."""
    text = repr(v)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{type(v).__name__} {text}"
