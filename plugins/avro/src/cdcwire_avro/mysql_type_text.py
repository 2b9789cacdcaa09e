"""Reading a column's MySQL type text: DECIMAL precision and scale, ENUM/SET elements, BIT length.

The type code alone does not say these; ``Column.mysql_type`` (``decimal(10,4)``,
``enum('a','b')``, ``bit(12)``) does.
"""

from __future__ import annotations

from typing import Optional

from cdcwire.plugin_api import TypeText, parse_type_text


def _parsed(mysql_type: Optional[str]) -> Optional[TypeText]:
    """The core's one reading of the text (cached, MySQL's limits checked); None if invalid or absent."""
    found = parse_type_text(mysql_type) if mysql_type else None
    return found if isinstance(found, TypeText) else None


def decimal_precision_scale(mysql_type: Optional[str]) -> Optional[tuple[int, int]]:
    """(precision, scale) of ``decimal(P,S)`` / ``decimal(P)``; None when the text does not say."""
    t = _parsed(mysql_type)
    if t is None or t.base not in ("decimal", "numeric", "dec", "fixed") or t.length is None:
        return None
    return t.length, t.scale or 0


def bit_length(mysql_type: Optional[str]) -> Optional[int]:
    """The N of ``bit(N)``; None when the text does not say (MySQL's default of 1 would bound
    values the event model, given no width, does not: the schema then says no length)."""
    t = _parsed(mysql_type)
    return t.length if t is not None and t.base == "bit" and t.length is not None else None


def enum_elements(mysql_type: Optional[str]) -> Optional[tuple[str, ...]]:
    """The element names of ``enum('a','b')`` / ``set('a','b')``, unquoted; None if absent."""
    t = _parsed(mysql_type)
    return None if t is None else t.elements


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
