"""Column values as the reference prints them: for hashing and for text protocols.

Go's ``strconv.FormatFloat(v, 'f', -1, bits)`` gives the shortest decimal that
reads back to the same float of that width, never with an exponent. Python's
``repr`` gives the shortest float64 digits; float32 needs its own search.
"""

from __future__ import annotations

import struct
from decimal import Decimal
from functools import lru_cache

from ..values.type_codes import ColumnType
from .events import Column

_F32 = struct.Struct("<f")


def _plain(digits: str) -> str:
    """Shortest-digits text (maybe with exponent) as plain decimal, Go 'f' style."""
    if "e" in digits or "E" in digits:
        digits = format(Decimal(digits), "f")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    return digits


def float64_text(x: float) -> str:
    """Shortest round-trip float64 text without an exponent (2.0 -> "2")."""
    if x != x or x in (float("inf"), float("-inf")):
        return {True: "NaN"}.get(x != x, "+Inf" if x > 0 else "-Inf")
    return _plain(repr(x))


def float32_text(x: float) -> str:
    """Shortest text that reads back to the same float32, without an exponent."""
    return _float32_text(_F32.pack(x))


@lru_cache(maxsize=65536)
def _float32_text(target: bytes) -> str:
    # keyed by the float32 bits: 0.0 and -0.0 are equal as floats but print differently
    x = _F32.unpack(target)[0]
    if x != x or x in (float("inf"), float("-inf")):
        return float64_text(x)
    for precision in range(1, 10):
        text = "%.*g" % (precision, x)
        try:
            if _F32.pack(float(text)) == target:
                return _plain(text)
        except OverflowError:  # rounding near FLT_MAX went past it; more digits will not
            continue
    return _plain(repr(x))  # unreachable for float32 values: 9 digits always round-trip


def hash_text(column: Column) -> bytes:
    """The bytes the index-value / columns dispatchers hash for a column value."""
    v = column.value
    if v is None:
        return b"null"
    if isinstance(v, bytes):
        return v
    if isinstance(v, str):
        return v.encode()
    if isinstance(v, bool):
        return b"1" if v else b"0"
    if isinstance(v, int):
        return str(v).encode()
    if isinstance(v, float):
        if column.type == ColumnType.FLOAT:
            return float32_text(v).encode()
        return float64_text(v).encode()
    return str(v).encode()
