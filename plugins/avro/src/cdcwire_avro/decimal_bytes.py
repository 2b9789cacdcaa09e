"""DECIMAL text <-> the unscaled integer of Avro's decimal logical type.

Avro stores a decimal as the two's-complement big-endian bytes of value x 10^scale.
Done with integers, so precision up to MySQL's 65 digits is exact.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation


class DecimalValueError(ValueError):
    """A DECIMAL value that does not fit the column's precision and scale."""


def unscaled(text: str, precision: int, scale: int) -> int:
    """The integer ``text`` x 10^scale; an error when digits are lost or precision passed."""
    # fast path for the plain [-]digits[.digits] text DECIMAL values almost always are
    negative = text[:1] == "-"
    whole, _, fraction = (text[1:] if negative else text).partition(".")
    digits = whole + fraction
    if digits.isascii() and digits.isdigit() and len(fraction) <= scale:
        number = int(digits) * 10 ** (scale - len(fraction))
        if number >= 10**precision:
            raise DecimalValueError(f"{text!r} has more than {precision} digits (decimal({precision},{scale}))")
        return -number if negative else number
    return _unscaled_slow(text, precision, scale)


def _unscaled_slow(text: str, precision: int, scale: int) -> int:
    try:
        d = Decimal(text)
    except (InvalidOperation, TypeError, ValueError):
        raise DecimalValueError(f"{text!r} is not a decimal number") from None
    if not d.is_finite():
        raise DecimalValueError(f"{text!r} is not a finite decimal")
    sign, digits, exponent = d.as_tuple()
    number = int("".join(map(str, digits)) or "0")
    shift = int(exponent) + scale
    if shift >= 0:
        number *= 10**shift
    else:
        number, lost = divmod(number, 10**-shift)
        if lost:
            raise DecimalValueError(f"{text!r} has more than {scale} digits after the point")
    if number >= 10**precision:
        raise DecimalValueError(f"{text!r} has more than {precision} digits (decimal({precision},{scale}))")
    return -number if sign else number


def to_bytes(number: int) -> bytes:
    """Minimal two's-complement big-endian bytes (Java's BigInteger.toByteArray)."""
    return number.to_bytes(number.bit_length() // 8 + 1, "big", signed=True)


def text(number: int, scale: int) -> str:
    """The DECIMAL text of an unscaled integer: exactly ``scale`` digits after the point."""
    digits = tuple(int(c) for c in str(abs(number)))
    return format(Decimal((1 if number < 0 else 0, digits, -scale)), "f")
