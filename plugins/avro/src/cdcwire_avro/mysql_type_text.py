"""Reading a column's MySQL type text: DECIMAL precision and scale, ENUM/SET elements, BIT length.

The type code alone does not say these; ``Column.mysql_type`` (``decimal(10,4)``,
``enum('a','b')``, ``bit(12)``) does.
"""

from __future__ import annotations

import re
from typing import Optional

_DECIMAL = re.compile(r"^\s*(?:decimal|numeric|dec|fixed)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)", re.I)
_BIT = re.compile(r"^\s*bit\s*\(\s*(\d+)\s*\)", re.I)
_ELEMENTS = re.compile(r"^\s*(?:enum|set)\s*\((.*)\)", re.I | re.S)
_QUOTED = re.compile(r"'((?:[^'\\]|''|\\.)*)'", re.S)


def decimal_precision_scale(mysql_type: Optional[str]) -> Optional[tuple[int, int]]:
    """(precision, scale) of ``decimal(P,S)`` / ``decimal(P)``; None when the text does not say."""
    m = _DECIMAL.match(mysql_type or "")
    if m is None:
        return None
    return int(m.group(1)), int(m.group(2) or 0)


def bit_length(mysql_type: Optional[str]) -> int:
    """The N of ``bit(N)``; MySQL's default of 1 when the text does not say."""
    m = _BIT.match(mysql_type or "")
    return int(m.group(1)) if m else 1


def enum_elements(mysql_type: Optional[str]) -> Optional[tuple[str, ...]]:
    """The element names of ``enum('a','b')`` / ``set('a','b')``, unquoted; None if absent."""
    m = _ELEMENTS.match(mysql_type or "")
    if m is None:
        return None
    return tuple(_unquote(e) for e in _QUOTED.findall(m.group(1)))


def _unquote(text: str) -> str:
    return re.sub(r"''|\\(.)", lambda m: m.group(1) if m.group(1) is not None else "'", text)


def quote_element(name: str) -> str:
    """An element as MySQL prints it in a type text: single quotes doubled."""
    return "'" + name.replace("'", "''") + "'"


def escape_allowed(name: str) -> str:
    """An element inside ``allowed``: the reference joins elements with ',' and escapes ',' in them."""
    return name.replace("\\", "\\\\").replace(",", "\\,")


def split_allowed(text: str) -> tuple[str, ...]:
    """The inverse of joining :func:`escape_allowed` elements with ','."""
    if text == "":
        return ()
    out, cur, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if ch == ",":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return tuple(out)
