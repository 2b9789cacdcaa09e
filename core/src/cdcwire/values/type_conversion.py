"""A value converted to a column's new type as MySQL converts it in ``ALTER TABLE ... MODIFY``.

A replay of ``MODIFY c TINYINT`` / ``CHANGE c c DECIMAL(5,1)`` / ``MODIFY c VARCHAR(3)`` into
MySQL (strict mode, as TiDB and MySQL 8 run by default) converts every stored value of the
column or refuses the statement. ``materialize`` must leave what that replay leaves, for the
rows of earlier runs (a pyarrow transform) and the run's own row images (Spark expressions):
both follow this module's rules, the one statement of them:

- to an integer type (TINYINT .. BIGINT, UNSIGNED): a number is rounded half away from zero; a
  value outside the type's range, or a text that is not a number, is refused;
- to ``DECIMAL(p,s)``: rounded half away from zero to ``s`` places (MySQL notes, does not refuse,
  the lost digits); more than ``p - s`` integer digits, or a text that is not a number, is refused;
- to ``CHAR(n)`` / ``VARCHAR(n)`` / TEXT: the value's text; longer than ``n`` characters is refused;
- to ``FLOAT`` / ``DOUBLE``: the number as a float;
- to any other type (dates, times, ENUM, JSON, binary): not converted here (:func:`converts_to` False).

Values are in the events' canonical form (:mod:`.value_kinds`): int, float, str (a DECIMAL as
its text), and come back in it for the new type.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Optional

from .type_text import TypeText, parse_type_text

_INT_BITS = {"tinyint": 8, "bool": 8, "boolean": 8, "int1": 8, "smallint": 16, "int2": 16, "mediumint": 24,
             "middleint": 24, "int3": 24, "int": 32, "integer": 32, "int4": 32, "bigint": 64, "int8": 64}
_DECIMALS = ("decimal", "numeric", "dec", "fixed")
_TEXTS = {"char": 255, "varchar": None, "var_string": None, "tinytext": 255, "text": 65535,
          "mediumtext": 16777215, "longtext": 4294967295}
_FLOATS = ("float", "float4", "double", "real", "float8")


def _parsed(type_text: str) -> Optional[TypeText]:
    found = parse_type_text(type_text) if type_text else None
    return found if isinstance(found, TypeText) else None


def target_kind(type_text: str) -> Optional[str]:
    """"integer", "decimal", "text" or "float": how a value converts to ``type_text``; None when
    this module does not convert to it."""
    t = _parsed(type_text)
    if t is None:
        return None
    if t.base in _INT_BITS:
        return "integer"
    if t.base in _DECIMALS:
        return "decimal"
    if t.base in _TEXTS:
        return "text"
    if t.base in _FLOATS:
        return "float"
    return None


def converts_to(type_text: str) -> bool:
    return target_kind(type_text) is not None


def integer_range(type_text: str) -> tuple[int, int]:
    t = _parsed(type_text)
    bits = _INT_BITS[t.base]
    return (0, (1 << bits) - 1) if t.unsigned else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def decimal_digits(type_text: str) -> tuple[int, int]:
    """(precision, scale) of a DECIMAL type text, MySQL's defaults (10, 0) where it says none."""
    t = _parsed(type_text)
    return (t.length if t.length is not None else 10), (t.scale if t.scale is not None else 0)


def text_length(type_text: str) -> Optional[int]:
    """The most characters a text type holds (None: as many as any value has)."""
    t = _parsed(type_text)
    if t.base in ("char", "varchar", "var_string") and t.length is not None:
        return t.length
    return _TEXTS.get(t.base) if t.base != "char" else 1


def _number(value) -> Optional[Decimal]:
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        try:
            found = Decimal(value.strip())
        except InvalidOperation:
            return None
        return found if found.is_finite() else None
    return None


def converted(value, type_text: str) -> tuple[object, bool]:
    """(the value in the new type, whether MySQL takes it): False where a strict-mode ALTER
    refuses the value (out of range, too long, a text that is not a number); the value is then
    None. Null stays null; a type :func:`converts_to` does not know keeps the value."""
    kind = target_kind(type_text)
    if value is None or kind is None:
        return value, True
    if kind == "text":
        text = value if isinstance(value, str) else _text(value)
        limit = text_length(type_text)
        return (text, True) if limit is None or len(text) <= limit else (None, False)
    number = _number(value)
    if number is None:
        return None, False
    if kind == "float":
        return float(number), True
    if kind == "integer":
        whole = int(number.quantize(Decimal(1), rounding=ROUND_HALF_UP))
        low, high = integer_range(type_text)
        return (whole, True) if low <= whole <= high else (None, False)
    precision, scale = decimal_digits(type_text)
    rounded = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    if abs(rounded) >= Decimal(10) ** (precision - scale):
        return None, False
    return f"{rounded:f}", True


def _text(value) -> str:
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e15 else str(int(value))
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return f"{value:f}" if isinstance(value, Decimal) else str(value)
