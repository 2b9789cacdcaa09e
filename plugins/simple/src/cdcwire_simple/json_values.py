"""Column values as simple's JSON carries them (TiCDC ``encodeValue``), and back.

Every number is a decimal string (``"25"``, ``"18446744073709551615"``, ``"90.5"``: floats as
Go's shortest ``'f'`` text), DECIMAL, dates and times their text, TIMESTAMP an object
``{"location", "value"}``, ENUM the 1-based index and SET the bit mask as strings, BIT the
unsigned value as a string, text as is, binary strings and BLOBs base64 (standard).
The reader needs the column's type to read a value back: it comes from the table schema.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any, Callable

from cdcwire.plugin_api import ColumnType, ValueKind, float32_text, float64_text, to_float32, value_kind

T = ColumnType
_INTEGER = re.compile(r"-?[0-9]{1,20}")


class WireValueError(ValueError):
    """A value that is not what its column's type says; the message says what it is."""


def encode_value(ctype: ColumnType, flags: int, value: Any, location: str) -> Any:
    """The JSON value of a non-NULL column value."""
    return writer_of(ctype, flags, location)(value)


def writer_of(ctype: ColumnType, flags: int, location: str) -> Callable[[Any], Any]:
    """The function that writes a non-NULL value of a column of this type (one per type and
    flags: a codec looks it up once per column type, not per value)."""
    if ctype == T.TIMESTAMP:
        return lambda value: {"location": location, "value": _text_value(value)}
    kind = value_kind(ctype, flags)
    if kind is ValueKind.SIGNED or kind is ValueKind.UNSIGNED:
        return _integer_text
    if kind is ValueKind.FLOAT32:
        return float32_text
    if kind is ValueKind.FLOAT64:
        return lambda value: float64_text(float(value))
    if kind is ValueKind.BYTES:
        return _base64_text
    return _text_value


def _integer_text(value: Any) -> str:
    if value.__class__ is not int:
        raise TypeError(f"expected an int, got {type(value).__name__}")
    return str(value)


def _base64_text(value: Any) -> str:
    raw = value.encode() if isinstance(value, str) else bytes(value)
    return base64.b64encode(raw).decode("ascii")


def _text_value(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _integer(raw: Any) -> int:
    if not isinstance(raw, str) or not _INTEGER.fullmatch(raw):
        raise WireValueError(f"must be an integer as a decimal string, got {str(raw)[:40]!r}")
    return int(raw)


def _float(raw: Any) -> float:
    if not isinstance(raw, str):
        raise WireValueError(f"must be a number as a string, got {str(raw)[:40]!r}")
    try:
        return float(raw)
    except ValueError:
        raise WireValueError(f"must be a number as a string, got {raw[:40]!r}") from None


def float32_of(value: float) -> float:
    """A FLOAT column's value: the float32 nearest ``value``; one past the float32 range
    (``"3.5e38"``) is no FLOAT value (struct cannot pack it: OverflowError)."""
    try:
        return to_float32(value)
    except OverflowError:
        raise WireValueError(f"{value!r} is beyond the FLOAT range") from None


def _text(raw: Any) -> str:
    if not isinstance(raw, str):
        raise WireValueError(f"must be a string, got {type(raw).__name__}")
    return raw


def _bytes(raw: Any) -> bytes:
    try:
        return base64.b64decode(_text(raw), validate=True)
    except binascii.Error:
        raise WireValueError(f"must be base64, got {raw[:40]!r}") from None


def _timestamp(raw: Any) -> str:
    if not isinstance(raw, dict) or not isinstance(raw.get("value"), str):
        raise WireValueError("a TIMESTAMP must be an object with a string \"value\"")
    return raw["value"]


def reader_of(ctype: ColumnType, flags: int) -> Callable[[Any], Any]:
    """The function that reads a non-null JSON value of a column of this type back."""
    if ctype == T.TIMESTAMP:
        return _timestamp
    kind = value_kind(ctype, flags)
    if kind is ValueKind.SIGNED or kind is ValueKind.UNSIGNED:
        return _integer
    if kind is ValueKind.FLOAT32:
        return lambda raw: float32_of(_float(raw))
    if kind is ValueKind.FLOAT64:
        return _float
    if kind is ValueKind.BYTES:
        return _bytes
    if kind is ValueKind.NULL:
        def _null(raw: Any) -> None:
            raise WireValueError("a column of the NULL type holds only null")
        return _null
    return _text
