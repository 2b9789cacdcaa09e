"""The one reading of a column's MySQL type text (``Column.mysql_type``): ``decimal(10,4)``,
``enum('a','b')``, ``bit(12)``, ``int(10) unsigned``, ``datetime(6)``.

Protocols carry the type text beside the type code, and encoders size their output from
it (avro's decimal schema, BIT's byte count, ENUM's symbols). A hostile text must not cost
more than its length: every number in it is read with at most ten digits and checked
against MySQL's limits (DECIMAL precision <= 65, scale <= 30 and <= precision, CHAR <= 255,
VARCHAR <= 65535, BIT width 1..64, ENUM <= 65535 and SET <= 64 elements, fractional
seconds <= 6), so that ``10 ** precision`` can never be asked for a text past them. A text
beyond them, or one this reader does not know, is invalid: :func:`type_text_problem` says
why, and the validation refuses the column (:mod:`cdcwire.model.validation`).

Texts repeat on every event of a table, so each one is parsed once (a bounded cache).
A bare name (canal-json's ``decimal``, ``enum``, ``bit``) is valid and says nothing of
the arguments: those are then unknown (None), not MySQL's defaults.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Union

from ..foundation.bounded_cache import BoundedCache
from .type_codes import ColumnType as T

_STRINGS = frozenset({T.CHAR, T.VARCHAR, T.VAR_STRING})
_BLOBS = frozenset({T.TINYBLOB, T.BLOB, T.MEDIUMBLOB, T.LONGBLOB})
_GEOMETRY = frozenset({T.GEOMETRY})

#: Base name -> the type codes that may carry it. Text and BLOB names accept any BLOB code and
#: CHAR/VARCHAR names any string code: protocols and servers disagree on which exact one.
_CODES_BY_NAME: dict[str, frozenset[T]] = {
    **dict.fromkeys(("tinyint", "bool", "boolean", "int1"), frozenset({T.TINYINT})),
    **dict.fromkeys(("smallint", "int2"), frozenset({T.SMALLINT})),
    **dict.fromkeys(("mediumint", "middleint", "int3"), frozenset({T.MEDIUMINT})),
    **dict.fromkeys(("int", "integer", "int4"), frozenset({T.INT})),
    **dict.fromkeys(("bigint", "int8"), frozenset({T.BIGINT})),
    **dict.fromkeys(("float", "float4"), frozenset({T.FLOAT, T.DOUBLE})),
    **dict.fromkeys(("double", "real", "float8"), frozenset({T.DOUBLE})),
    **dict.fromkeys(("decimal", "numeric", "dec", "fixed"), frozenset({T.DECIMAL})),
    "null": frozenset({T.NULL}),
    "timestamp": frozenset({T.TIMESTAMP}),
    "date": frozenset({T.DATE, T.NEWDATE}),
    "time": frozenset({T.TIME}),
    "datetime": frozenset({T.DATETIME}),
    "year": frozenset({T.YEAR}),
    "bit": frozenset({T.BIT}),
    "json": frozenset({T.JSON}),
    "enum": frozenset({T.ENUM}),
    "set": frozenset({T.SET}),
    **dict.fromkeys(("char", "binary", "varchar", "varbinary", "var_string"), _STRINGS),
    **dict.fromkeys(
        ("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob"), _BLOBS
    ),
    **dict.fromkeys(
        ("geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
         "geometrycollection"),
        _GEOMETRY,
    ),
}

_INTEGERS = ("tinyint", "bool", "boolean", "int1", "smallint", "int2", "mediumint", "middleint", "int3",
             "int", "integer", "int4", "bigint", "int8")
#: Base name -> the largest first (and second) number its parentheses may hold.
_NUMBER_LIMITS: dict[str, tuple[int, Optional[int]]] = {
    **dict.fromkeys(_INTEGERS, (255, None)),
    **dict.fromkeys(("decimal", "numeric", "dec", "fixed"), (65, 30)),
    **dict.fromkeys(("float", "float4", "double", "real", "float8"), (255, 30)),
    **dict.fromkeys(("timestamp", "time", "datetime"), (6, None)),
    "year": (4, None),
    "bit": (64, None),
    **dict.fromkeys(("char", "binary"), (255, None)),
    **dict.fromkeys(("varchar", "varbinary", "var_string"), (65535, None)),
    **dict.fromkeys(("tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob"),
                    (4294967295, None)),
}
_ELEMENT_LIMITS = {"enum": 65535, "set": 64}

_HEAD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*")
_NUMBERS = re.compile(r"\(\s*([0-9]{1,10})\s*(?:,\s*([0-9]{1,10})\s*)?\)\s*")
_ELEMENT = r"'(?:[^'\\]|''|\\.)*'"
_ELEMENTS = re.compile(rf"\(\s*({_ELEMENT}(?:\s*,\s*{_ELEMENT})*)\s*\)\s*", re.S)
_ONE_ELEMENT = re.compile(_ELEMENT, re.S)
_ESCAPE = re.compile(r"''|\\(.)", re.S)
#: What may follow: attribute words (unsigned, zerofill, binary, character set x, collate y).
_TAIL = re.compile(r"(?:[A-Za-z0-9_]+\s*)*")


@dataclass(frozen=True, slots=True)
class TypeText:
    """What a valid type text says; None where it does not say (a bare ``decimal``)."""

    base: str  # the base name, lower case
    codes: frozenset  # the type codes (ColumnType) that may carry it
    unsigned: bool  # says unsigned or zerofill
    length: Optional[int] = None  # the first number: display width, length, BIT width, DECIMAL precision, fsp
    scale: Optional[int] = None  # the second number: DECIMAL/FLOAT scale
    elements: Optional[tuple[str, ...]] = None  # ENUM and SET element names, unquoted


_PARSED: BoundedCache[str, Union[TypeText, str]] = BoundedCache(4096)


def parse_type_text(text: str) -> Union[TypeText, str]:
    """The :class:`TypeText` of a MySQL type text, or why it is not a valid one (a str). Cached."""
    found = _PARSED.get(text)
    if found is None:
        found = _PARSED.remember(text, _parse(text))
    return found


def type_text_problem(text: str) -> Optional[str]:
    """Why ``text`` is not a valid MySQL type text, or None."""
    found = parse_type_text(text)
    return found if isinstance(found, str) else None


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else f"{text[:60]!r}... ({len(text)} characters)"


def _parse(text: str) -> Union[TypeText, str]:
    head = _HEAD.match(text)
    base = head.group(1).lower() if head else ""
    codes = _CODES_BY_NAME.get(base)
    if codes is None:
        return f"type text {_shown(text)} does not start with a MySQL type name"
    at = head.end()  # type: ignore[union-attr]
    length = scale = None
    elements = None
    if base in _ELEMENT_LIMITS:
        m = _ELEMENTS.match(text, at)
        if m is not None:
            elements = tuple(_ESCAPE.sub(_unescape, e[1:-1]) for e in _ONE_ELEMENT.findall(m.group(1)))
            if len(elements) > _ELEMENT_LIMITS[base]:
                return (f"type text {_shown(text)} has {len(elements)} elements, more than"
                        f" {base.upper()}'s {_ELEMENT_LIMITS[base]}")
            at = m.end()
    elif text.startswith("(", at):
        m = _NUMBERS.match(text, at)
        limits = _NUMBER_LIMITS.get(base)
        if m is None or limits is None or (m.group(2) is not None and limits[1] is None):
            return f"type text {_shown(text)} has arguments {base.upper()} does not take"
        length = int(m.group(1))
        scale = None if m.group(2) is None else int(m.group(2))
        problem = _limit_problem(base, length, scale, limits)
        if problem is not None:
            return f"type text {_shown(text)}: {problem}"
        at = m.end()
    tail = _TAIL.fullmatch(text, at)
    if tail is None:
        return f"type text {_shown(text)} has {_shown(text[at:])} after its type, not attribute words"
    words = text[at:].lower().split()
    return TypeText(base, codes, "unsigned" in words or "zerofill" in words, length, scale, elements)


def _unescape(m: "re.Match[str]") -> str:
    return "'" if m.group(1) is None else m.group(1)


def _limit_problem(base: str, first: int, second: Optional[int], limits: tuple[int, Optional[int]]) -> Optional[str]:
    name = base.upper()
    if first > limits[0]:
        return f"{first} is more than {name}'s limit of {limits[0]}"
    if base in ("decimal", "numeric", "dec", "fixed"):
        if first < 1:
            return "DECIMAL precision must be at least 1"
        if second is not None and second > first:
            return f"scale {second} is more than the precision {first}"
    if base == "bit" and first < 1:
        return "BIT width must be 1..64"
    if second is not None and limits[1] is not None and second > limits[1]:
        return f"scale {second} is more than {name}'s limit of {limits[1]}"
    return None
