"""Go's ``json.MarshalIndent`` reproduced, for the bytes a schema file's checksum is taken of.

TiCDC names a schema file by the CRC32 of Go's indented JSON of its columns, so the check
needs Go's exact text: HTML characters and U+2028/U+2029 escaped (``\\u003c``), short
escapes for ``\\b \\f \\n \\r \\t``, other control characters as ``\\u00xx``, non-ASCII as
it is, floats in Go's shortest form, ``": "`` after keys and the given indent.
"""

from __future__ import annotations

import json
from typing import Any

from ...model.value_text import float64_text

_GO_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    if any(c in out for c in _GO_ESCAPES):
        out = "".join(_GO_ESCAPES.get(c, c) for c in out)
    return out


def marshal_indent(value: Any, indent: str = "    ", prefix: str = "") -> str:
    """``value`` (dicts in key order, lists, str, int, float, bool, None) as Go marshals it indented."""
    return _marshal(value, indent, prefix)


def _marshal(value: Any, indent: str, at: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float64_text(value)
    if isinstance(value, str):
        return go_string(value)
    inner = at + indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        fields = [f"{inner}{go_string(k)}: {_marshal(v, indent, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(fields) + "\n" + at + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(inner + _marshal(v, indent, inner) for v in value) + "\n" + at + "]"
    raise TypeError(f"no Go JSON form for {type(value).__name__}")
