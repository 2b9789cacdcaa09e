"""One column value as TiCDC's debezium writes it (``writeDebeziumFieldValue``) and back.

``encode_value`` takes cdcwire's canonical value (ints, float, text, bytes; ENUM the index,
SET the mask, BIT an int) and gives the JSON value; ``decode_value`` the reverse. Where
TiCDC's mapping is lossy the decoder gives what the wire says, and :mod:`.carried` models
it with these same functions:

- DECIMAL is written as a double (TiCDC's JSON has no exact decimal): read back as the
  double's plain decimal text;
- an unsigned BIGINT is written as int64 (2^64-1 as ``-1``): read back exact as unsigned;
- DATE/DATETIME years below 100 are shifted to 19xx/20xx, an invalid one is null (0 when
  NOT NULL); DATETIME with fsp <= 3 keeps milliseconds;
- an ENUM index or SET mask outside its elements is written ``""`` (read back 0);
- TIMESTAMP is taken as UTC (cdcwire values carry no zone); before 1970-01-01 00:00:01 it
  is written ``1970-01-01T00:00:00Z``.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from decimal import Decimal
from typing import Any

from cdcwire.plugin_api import ColumnType, float32_text, to_float32

from .field_types import STRING_TYPES, FieldType
from .temporal import (
    MIN_TIMESTAMP_MICROS,
    date_days,
    date_text,
    datetime_micros,
    datetime_text,
    fraction_digits,
    time_micros,
    time_text,
)

_U64 = (1 << 64) - 1
#: ASCII digits only: ``\d`` would take other scripts' digits, which no TIMESTAMP text holds.
_ZONED = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?)Z")
_INTEGERS = frozenset(
    {ColumnType.TINYINT, ColumnType.SMALLINT, ColumnType.MEDIUMINT, ColumnType.INT, ColumnType.BIGINT}
)


class WireValueError(ValueError):
    """A value the wire cannot hold, or a wire value that is not one (the caller adds where)."""


def datetime_fsp(ft: FieldType, text: str) -> int:
    return ft.fsp if ft.fsp is not None else fraction_digits(text)


def encode_value(ft: FieldType, value: Any) -> Any:
    """The JSON value of a non-NULL canonical value."""
    t = ft.type
    if t in _INTEGERS:
        if ft.unsigned and t == ColumnType.BIGINT:
            return -1 if value == _U64 else value - (1 << 64) if value >= 1 << 63 else value
        return value
    if t == ColumnType.YEAR:
        return value
    if t == ColumnType.FLOAT:
        if not math.isfinite(value):
            raise WireValueError(f"FLOAT {value!r} has no JSON number")
        return float(float32_text(value))
    if t == ColumnType.DOUBLE:
        if not math.isfinite(value):
            raise WireValueError(f"DOUBLE {value!r} has no JSON number")
        return value
    if t == ColumnType.DECIMAL:
        number = float(value)
        if not math.isfinite(number):
            raise WireValueError(f"DECIMAL {value!r} is beyond a double")
        return number
    if t in STRING_TYPES:
        return base64.b64encode(value).decode("ascii") if ft.binary else value
    if t == ColumnType.JSON:
        return value
    if t == ColumnType.BIT:
        if ft.bit_length == 1:
            return value != 0
        return base64.b64encode(value.to_bytes(8, "little")[: (ft.bit_length + 7) // 8]).decode("ascii")
    if t == ColumnType.ENUM:
        elements = ft.elements or ()
        return elements[value - 1] if 1 <= value <= len(elements) else ""
    if t == ColumnType.SET:
        elements = ft.elements or ()
        if value >> len(elements):
            return ""
        return ",".join(e for i, e in enumerate(elements) if value >> i & 1)
    if t in (ColumnType.DATE, ColumnType.NEWDATE):
        days = date_days(value)
        if days is None:
            return None if ft.optional else 0
        return days
    if t == ColumnType.DATETIME:
        micros = datetime_micros(value)
        if micros is None:
            return None if ft.optional else 0
        return micros // 1000 if datetime_fsp(ft, value) <= 3 else micros
    if t == ColumnType.TIMESTAMP:
        micros = datetime_micros(value, shift_years=False)
        if micros is None or micros < MIN_TIMESTAMP_MICROS:
            return "1970-01-01T00:00:00Z"
        text = datetime_text(micros, datetime_fsp(ft, value))
        return text.replace(" ", "T") + "Z"
    if t == ColumnType.TIME:
        micros = time_micros(value)
        if micros is None:
            raise WireValueError(f"TIME {value!r} is not a time")
        return micros
    raise WireValueError(f"type {t.name} has no debezium mapping")


def decimal_text(number: float) -> str:
    """A double as plain decimal text (no exponent): how a DECIMAL reads back."""
    return format(Decimal(repr(number)), "f")


def _integer(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WireValueError(f"{what} must be an integer, got {value!r}")
    return value


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise WireValueError(f"{what} must be a number, got {value!r}")
    return float(value)


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise WireValueError(f"{what} must be a string, got {value!r}")
    return value


def _float32(value: Any, what: str) -> float:
    """A JSON number as the nearest float32; past the float32 range (3.5e38) is no FLOAT."""
    number = _number(value, what)
    try:
        return to_float32(number)
    except OverflowError:  # struct cannot pack a finite value past the float32 range
        raise WireValueError(f"{what} {number!r} is beyond the float32 range") from None


def _base64(value: Any, what: str) -> bytes:
    text = _text(value, what)
    if not text.isascii():  # b64decode refuses non-ASCII text with a ValueError of its own
        raise WireValueError(f"{what} is not base64: it holds non-ASCII characters")
    try:
        return base64.b64decode(text, validate=True)
    except binascii.Error:
        raise WireValueError(f"{what} is not base64") from None


def decode_value(ft: FieldType, value: Any) -> Any:
    """The canonical value of a non-null JSON value."""
    t = ft.type
    name = t.name
    if t in _INTEGERS:
        v = _integer(value, name)
        if ft.unsigned and t == ColumnType.BIGINT:  # written as int64: 2^64-1 as -1
            return v & _U64
        return v  # the range of its type is the core's check (cdcwire.model.validation)
    if t == ColumnType.YEAR:
        return _integer(value, name)
    if t == ColumnType.FLOAT:
        return _float32(value, name)
    if t == ColumnType.DOUBLE:
        return _number(value, name)
    if t == ColumnType.DECIMAL:
        return decimal_text(_number(value, name))
    if t in STRING_TYPES:
        return _base64(value, name) if ft.binary else _text(value, name)
    if t == ColumnType.JSON:
        return _text(value, name)
    if t == ColumnType.BIT:
        if ft.bit_length == 1:
            if not isinstance(value, bool):
                raise WireValueError(f"BIT(1) must be a boolean, got {value!r}")
            return int(value)
        raw = _base64(value, name)
        if len(raw) != (ft.bit_length + 7) // 8:
            size = (ft.bit_length + 7) // 8
            raise WireValueError(f"BIT({ft.bit_length}) must be {size} bytes, got {len(raw)}")
        return int.from_bytes(raw, "little")
    if t == ColumnType.ENUM:
        text = _text(value, name)
        if text == "":
            return 0
        try:
            return (ft.elements or ()).index(text) + 1
        except ValueError:
            raise WireValueError(f"ENUM value {text!r} is not one of its allowed elements") from None
    if t == ColumnType.SET:
        text = _text(value, name)
        mask = 0
        for part in text.split(",") if text else ():
            try:
                mask |= 1 << (ft.elements or ()).index(part)
            except ValueError:
                raise WireValueError(f"SET member {part!r} is not one of its allowed elements") from None
        return mask
    if t == ColumnType.DATE:
        return date_text(_integer(value, name))
    if t == ColumnType.DATETIME:
        v = _integer(value, name)
        if ft.fsp is not None and ft.fsp > 3:
            return datetime_text(v, 6)
        return datetime_text(v * 1000, 3 if v % 1000 else 0)
    if t == ColumnType.TIMESTAMP:
        m = _ZONED.fullmatch(_text(value, name))
        if m is None:
            raise WireValueError(f"TIMESTAMP {value!r} is not YYYY-MM-DDTHH:MM:SS[.f]Z")
        return f"{m[1]} {m[2]}"
    if t == ColumnType.TIME:
        return time_text(_integer(value, name))
    raise WireValueError(f"type {name} has no debezium mapping")
