"""Ways to spoil valid messages, for decoder fuzz tests and the decoding tiers' differential test.

:func:`mutated` edits bytes anywhere (any protocol); :func:`json_token_mutated` swaps one
string or number token of a JSON document for a telling one, which reaches the value
rules of the JSON protocols that random byte edits rarely get past the parser to. Both are
Hypothesis strategies; :func:`seeded_mutated` and :func:`seeded_json_token_mutated` make the
same edits from a ``random.Random``, for a test that reads thousands of mutated messages in
one go (a Spark read per tier) where a Hypothesis example per message would cost a read each.
"""

from __future__ import annotations

import random
import re
from typing import Any, Callable, Sequence

from hypothesis import strategies as st

#: Bytes that break decoders in telling ways: JSON escapes of a lone surrogate and of NUL,
#: numbers past every integer type and past float64, NaN, varint continuation bytes.
_TELLING = (
    b"\\ud800", b"\\u0000", b"99999", b"-1", b"18446744073709551616", b"1e999", b"NaN",
    b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", b"\x80", b"\x00", b'"', b"{", b"]",
)

#: Numbers at the edges of the integer widths the protocols carry (int32, int64, uint64 and
#: one past each; canal-json's es limit 2^46), and numbers that are integers in value but not
#: in form (-0, 1.0, 1e2, 1E2), past float64 (1e400) or below its least (1e-400), and numbers
#: as strings: where two parsers (orjson, Jackson, the standard library) tend to part ways.
NUMBER_EDGE_TOKENS = (
    b"2147483647", b"2147483648", b"-2147483648", b"-2147483649",
    b"9223372036854775807", b"9223372036854775808", b"-9223372036854775808", b"-9223372036854775809",
    b"18446744073709551615", b"18446744073709551616", b"-18446744073709551616",
    b"70368744177663", b"70368744177664", b"123456789012345678901234567890",
    b"-0", b"-0.0", b"0.0", b"1.0", b"4.0", b"1e2", b"1E2", b"1e400", b"-1e400", b"1e-400", b'"1"', b'"0"',
)

#: JSON tokens that break value rules: lone surrogate and NUL escapes, integers past every
#: type's range, a number past float64, negative numbers, bad dates and decimals, wrong kinds.
TELLING_JSON_TOKENS = (
    b'"\\ud800"', b'"a\\udc80b"', b'"a\\u0000b"', b"99999", b"-1", b"-129", b"65536", b"4294967296",
    b"18446744073709551616", b"9223372036854775808", b"-9223372036854775809", b"1e999", b"-1e999",
    b"1.5", b'"2024-13-45"', b'"2024-01-01 25:00:00"', b'"abc"', b'"-"', b"null", b"true", b"[]", b"{}",
    b'"2024-02-30"', b'"2023-02-29 10:00:00"', b'"{"', b'"123456789012345678.12345"', b'"decimal(100000000,2)"',
    b'"varchar(10)"', b'"bit(65)"', b'"enum(\'a\')"', b'"set(\'a\')"', b'"bit(1)"', b'"decimal(3,1)"',
    *NUMBER_EDGE_TOKENS,
)
_JSON_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?')

_Integers = Callable[[int, int], int]
_Pick = Callable[[Sequence[Any]], Any]


def _byte_edits(data: bytes, integers: _Integers, pick: _Pick, some_bytes: Callable[[], bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(integers(1, 3)):
        at = integers(0, len(out))
        edit = pick(("set", "insert", "delete", "repeat", "telling"))
        if edit == "set" and at < len(out):
            out[at] = integers(0, 255)
        elif edit == "insert":
            out[at:at] = some_bytes()
        elif edit == "delete":
            del out[at : at + integers(1, 8)]
        elif edit == "repeat":
            out[at:at] = out[at : at + integers(1, 16)]
        else:
            out[at : at + integers(0, 4)] = pick(_TELLING)
    return bytes(out)


def _token_swaps(data: bytes, spans: Callable[[list[tuple[int, int]]], list[tuple[int, int]]], pick: _Pick) -> bytes:
    tokens = [m.span() for m in _JSON_TOKEN.finditer(data)]
    if not tokens:
        return data
    out = data
    for start, end in sorted(spans(tokens), reverse=True):
        out = out[:start] + pick(TELLING_JSON_TOKENS) + out[end:]
    return out


@st.composite
def mutated(draw: Any, data: bytes) -> bytes:
    """``data`` with a few random edits: bytes changed, inserted, deleted or repeated, and
    telling byte strings (:data:`_TELLING`) put in."""
    return _byte_edits(
        data, lambda a, b: draw(st.integers(a, b)), lambda seq: draw(st.sampled_from(seq)),
        lambda: draw(st.binary(min_size=1, max_size=4)),
    )


@st.composite
def json_token_mutated(draw: Any, data: bytes) -> bytes:
    """``data`` (a JSON document) with one or two string or number tokens replaced by telling ones."""
    return _token_swaps(
        data, lambda tokens: draw(st.lists(st.sampled_from(tokens), min_size=1, max_size=2, unique=True)),
        lambda seq: draw(st.sampled_from(seq)),
    )


def seeded_mutated(rng: random.Random, data: bytes) -> bytes:
    """:func:`mutated`'s edits, drawn from ``rng``."""
    return _byte_edits(data, rng.randint, rng.choice, lambda: rng.randbytes(rng.randint(1, 4)))


def seeded_json_token_mutated(rng: random.Random, data: bytes) -> bytes:
    """:func:`json_token_mutated`'s swaps, drawn from ``rng``."""
    return _token_swaps(data, lambda tokens: rng.sample(tokens, min(len(tokens), rng.randint(1, 2))), rng.choice)
