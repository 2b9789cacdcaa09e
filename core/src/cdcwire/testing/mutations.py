"""Hypothesis strategies that spoil valid messages, for decoder fuzz tests.

:func:`mutated` edits bytes anywhere (any protocol); :func:`json_token_mutated` swaps one
string or number token of a JSON document for a telling one, which reaches the value
rules of the JSON protocols that random byte edits rarely get past the parser to.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

#: Bytes that break decoders in telling ways: JSON escapes of a lone surrogate and of NUL,
#: numbers past every integer type and past float64, NaN, varint continuation bytes.
_TELLING = (
    b"\\ud800", b"\\u0000", b"99999", b"-1", b"18446744073709551616", b"1e999", b"NaN",
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x80", b"\x00", b'"', b"{", b"]",
)


@st.composite
def mutated(draw: Any, data: bytes) -> bytes:
    """``data`` with a few random edits: bytes changed, inserted, deleted or repeated, and
    telling byte strings (:data:`_TELLING`) put in."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(out)))
        edit = draw(st.sampled_from(("set", "insert", "delete", "repeat", "telling")))
        if edit == "set" and at < len(out):
            out[at] = draw(st.integers(0, 255))
        elif edit == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=4))
        elif edit == "delete":
            del out[at : at + draw(st.integers(1, 8))]
        elif edit == "repeat":
            out[at:at] = out[at : at + draw(st.integers(1, 16))]
        else:
            out[at : at + draw(st.integers(0, 4))] = draw(st.sampled_from(_TELLING))
    return bytes(out)


#: JSON tokens that break value rules: lone surrogate and NUL escapes, integers past every
#: type's range, a number past float64, negative numbers, bad dates and decimals, wrong kinds.
TELLING_JSON_TOKENS = (
    b'"\\ud800"', b'"a\\udc80b"', b'"a\\u0000b"', b"99999", b"-1", b"-129", b"65536", b"4294967296",
    b"18446744073709551616", b"9223372036854775808", b"-9223372036854775809", b"1e999", b"-1e999",
    b"1.5", b'"2024-13-45"', b'"2024-01-01 25:00:00"', b'"abc"', b'"-"', b"null", b"true", b"[]", b"{}",
    b'"2024-02-30"', b'"2023-02-29 10:00:00"', b'"{"', b'"123456789012345678.12345"', b'"decimal(100000000,2)"',
    b'"varchar(10)"', b'"bit(65)"', b'"enum(\'a\')"', b'"set(\'a\')"', b'"bit(1)"', b'"decimal(3,1)"',
)
_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')


@st.composite
def json_token_mutated(draw: Any, data: bytes) -> bytes:
    """``data`` (a JSON document) with one or two string or number tokens replaced by telling ones."""
    tokens = [m.span() for m in _JSON_TOKEN.finditer(data)]
    if not tokens:
        return data
    out = data
    picked = draw(st.lists(st.sampled_from(tokens), min_size=1, max_size=2, unique=True))
    for start, end in sorted(picked, reverse=True):
        out = out[:start] + draw(st.sampled_from(TELLING_JSON_TOKENS)) + out[end:]
    return out
