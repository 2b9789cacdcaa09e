"""A Hypothesis strategy that spoils a JSON document at any key, for decoder fuzz tests.

:func:`cdcwire.testing.mutations.json_token_mutated` swaps string and number tokens, so an
object or array of the document always stays one. Decoders read nested documents (a
schema's field list, a payload's images) and trust their shape as much as their values:
:func:`json_value_mutated` parses the document and, at any path (``["schema", "fields", 1,
"fields", 0, "optional"]``), puts a value of every JSON kind (an object where a boolean was,
a list where a string was), a number past every range, an odd string (non-ASCII where
base64 was, a lone surrogate), or deletes the key.
"""

from __future__ import annotations

import json
from typing import Any, Union

from hypothesis import strategies as st

Path = tuple[Union[str, int], ...]

#: Values of every JSON kind, and the telling ones of each: numbers past int64, uint64 and
#: float32 (3.5e38) and near float64's end, strings that are not base64, not ASCII, not
#: UTF-8 (a lone surrogate), or hold NUL; bad dates; empty and non-empty containers.
TELLING_JSON_VALUES: tuple[Any, ...] = (
    None, True, False, 0, 1, -1, 2, 1.5, -0.5, 3.5e38, -3.5e38, 1.7976931348623157e308, 5e-324,
    127, 128, 255, 256, 65536, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1,
    2**64 - 1, 2**64, 10**30, -(10**30),
    "", " ", "a", "abc", "-1", "1", "1.5", "true", "null", "c", "u", "d", "m", "int", "varchar",
    "é", "日本語", "Zm9v", "Zm9v=", "====", "€€€€", "!!!!", "a\u0000b", "\ud800", "a\udc80b",
    "\u2028", "\U0001f600", "2024-13-45", "2023-11-30T25:61:61Z", "99:99:99",
    [], [None], [1, "a"], [{}], {}, {"a": 1}, {"type": "int"},
)


def json_paths(doc: Any, prefix: Path = ()) -> list[Path]:
    """Every path of a parsed document: each object key and array index, at any depth."""
    out: list[Path] = []
    if isinstance(doc, dict):
        for key, value in doc.items():
            out.append((*prefix, key))
            out.extend(json_paths(value, (*prefix, key)))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            out.append((*prefix, i))
            out.extend(json_paths(value, (*prefix, i)))
    return out


def _parent(doc: Any, path: Path) -> Any:
    for step in path[:-1]:
        doc = doc[step]
    return doc


def _nearby(value: Any) -> list[Any]:
    """Values close to ``value`` that still break rules: a number scaled past its range, a
    string with a non-ASCII or surrogate character in it."""
    if isinstance(value, bool) or value is None:
        return [not value, 0, "true"]
    if isinstance(value, int):
        return [value + 1, value - 1, -value, value * 2**40, float(value), str(value)]
    if isinstance(value, float):
        return [value * 1e30, -value, int(value), str(value)]
    if isinstance(value, str):
        return [value + "é", value[:-1], value + "\ud800", value.upper(), value + ",", f"{value}x"]
    return [[], {}]


@st.composite
def json_value_mutated(draw: Any, data: bytes) -> bytes:
    """``data`` (a JSON document) with one or two keys or items changed: set to a telling value
    (:data:`TELLING_JSON_VALUES`) or a near one (:func:`_nearby`), or deleted. ``data`` that is
    not JSON comes back as it is."""
    try:
        doc = json.loads(data)
    except ValueError:
        return data
    for _ in range(draw(st.integers(1, 2))):
        paths = json_paths(doc)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent, step = _parent(doc, path), path[-1]
        edit = draw(st.sampled_from(("telling", "nearby", "delete")))
        if edit == "delete":
            del parent[step]
        elif edit == "nearby":
            parent[step] = draw(st.sampled_from(_nearby(parent[step])))
        else:
            parent[step] = draw(st.sampled_from(TELLING_JSON_VALUES))
    return json.dumps(doc, ensure_ascii=True, separators=(",", ":")).encode()
