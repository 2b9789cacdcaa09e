"""Fuzzing the open-protocol decoder at the JSON level: whatever a message's JSON says, the
core's decoder gives valid events (cdcwire.model.validation) or a DecodeError, nothing else.

Random byte edits (the conformance kit's fuzz tests) mostly break the framing or the JSON
syntax; these swap string and number tokens inside well-framed JSON, which reaches the
value rules: TINYINT 99999, INT UNSIGNED -1, flags past 2^63, ``\\ud800`` escapes, 1e999.
"""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import DecodeError, Message
from cdcwire.api.codec_calls import decoder_for, encoder_for
from cdcwire.testing.conformance import decoded_or_refused
from cdcwire.testing.mutations import json_token_mutated
from cdcwire.testing.strategies import event_batches

CONFIG = cdcwire.parse_sink_uri("file:///tmp/cdcwire-open/t?protocol=open-protocol")
VERSION = struct.pack(">Q", 1)
LENGTH = struct.Struct(">Q")


def parts(data: bytes) -> list[bytes]:
    """The length-prefixed JSON parts of a key (after its version) or a value."""
    out, at = [], 0
    while at < len(data):
        (n,) = LENGTH.unpack_from(data, at)
        out.append(data[at + 8 : at + 8 + n])
        at += 8 + n
    return out


def framed(*jsons: bytes) -> bytes:
    return b"".join(LENGTH.pack(len(j)) + j for j in jsons)


def message(key_json: bytes, value_json: bytes) -> Message:
    return Message("t", 0, VERSION + framed(key_json), framed(value_json), 9)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(event_batches(max_size=3), st.data())
def test_json_token_swaps_decode_to_valid_events_or_a_decode_error(events, data):
    decoder = decoder_for(CONFIG)
    for payload in encoder_for(CONFIG, "t", 0).encode(events):
        keys, values = parts(payload.key[8:]), parts(payload.value or b"")
        i = data.draw(st.integers(0, len(keys) - 1))
        if data.draw(st.booleans()):
            keys[i] = data.draw(json_token_mutated(keys[i]))
        elif i < len(values):
            values[i] = data.draw(json_token_mutated(values[i]))
        decoded_or_refused(decoder, Message("t", 0, VERSION + framed(*keys), framed(*values), 0))


ROW_KEY = b'{"ts":1,"scm":"s","tbl":"t","t":1}'


@pytest.mark.parametrize(
    "key_json, value_json, words",
    [
        (ROW_KEY, b'{"u":{"id":{"t":1,"h":true,"f":10,"v":99999}}}', "99999 is outside -128..127"),
        (ROW_KEY, b'{"u":{"id":{"t":3,"h":true,"f":138,"v":-1}}}', "the range of INT UNSIGNED"),
        (ROW_KEY, b'{"u":{"id":{"t":3,"h":true,"f":9223372036854775818,"v":1}}}', "0..2^63-1"),
        (ROW_KEY.replace(b'"t",', b'"t\\ud800",'), b'{"u":{"id":{"t":3,"f":10,"v":1}}}', "lone surrogate"),
        (ROW_KEY, b'{"u":{"id":{"t":3,"f":10,"v":1},"c":{"t":15,"f":0,"v":"\\udc80"}}}', "lone surrogate"),
        (ROW_KEY, b'{"u":{"id":{"t":3,"f":10,"v":1},"c":{"t":10,"f":0,"v":"2024-13-45"}}}', "is not a DATE"),
    ],
    ids=["tinyint-99999", "int-unsigned-minus-1", "flags-past-2^63", "surrogate-table", "surrogate", "month"],
)
def test_a_value_the_event_model_refuses_is_a_decode_error_naming_the_message(key_json, value_json, words):
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(CONFIG, [message(key_json, value_json)])
    assert str(info.value).startswith("t/0/9: the message decodes to an invalid event: s.")
    assert words in str(info.value)
    str(info.value).encode()  # printable: cdcwire inspect prints it
