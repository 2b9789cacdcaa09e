"""Fuzzing the canal-json decoder at the JSON level: whatever a message's JSON says, the
core's decoder gives valid events (cdcwire.model.validation) or a DecodeError, nothing else.

Random byte edits (the conformance kit's fuzz tests) mostly break the JSON syntax; these
swap string and number tokens of well-formed messages, which reaches the value rules:
TINYINT "99999", INT UNSIGNED "-1", ``\\ud800`` escapes in names and values, month 13.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import DecodeError, Message
from cdcwire.api.codec_calls import decoder_for, encoder_for
from cdcwire.testing.conformance import decoded_or_refused
from cdcwire.testing.mutations import json_token_mutated
from cdcwire.testing.strategies import event_batches

URI = "file:///tmp/cdcwire-canal/t?protocol=canal-json"


@pytest.fixture(params=["", "&enable-tidb-extension=true"], ids=["plain", "extension"])
def config(request):
    return cdcwire.parse_sink_uri(URI + request.param)


def test_json_token_swaps_decode_to_valid_events_or_a_decode_error(config):
    decoder = decoder_for(config)

    @settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
    @given(event_batches(max_size=3), st.data())
    def check(events, data):
        for payload in encoder_for(config, "t", 0).encode(events):
            value = data.draw(json_token_mutated(payload.value or b""))
            decoded_or_refused(decoder, Message("t", 0, payload.key, value, 0))

    check()


def row_message(data: str, mysql_type: str, sql_type: int, table: str = "t") -> Message:
    value = (
        '{"id":0,"database":"s","table":"%s","pkNames":["id"],"isDdl":false,"type":"INSERT","es":0,"ts":1,'
        '"sql":"","sqlType":{"id":4,"c":%d},"mysqlType":{"id":"int","c":"%s"},"old":null,'
        '"data":[{"id":"1","c":%s}]}'
    ) % (table, sql_type, mysql_type, data)
    return Message("t", 0, None, value.encode(), 9)


@pytest.mark.parametrize(
    "message, words",
    [
        (row_message('"99999"', "tinyint", -6), "99999 is outside -128..127"),
        (row_message('"-1"', "int unsigned", 4), "the range of INT UNSIGNED"),
        (row_message('"a\\ud800"', "varchar", 12), "lone surrogate"),
        (row_message('"1"', "int", 4, table="t\\udc80"), "lone surrogate"),
        (row_message('"2024-13-45"', "date", 91), "is not a DATE"),
        (row_message('"abc"', "decimal(10,2)", 3), "is not a decimal number"),
    ],
    ids=["tinyint-99999", "int-unsigned-minus-1", "surrogate-value", "surrogate-table", "month", "decimal"],
)
def test_a_value_the_event_model_refuses_is_a_decode_error_naming_the_message(message, words):
    with pytest.raises(DecodeError) as info:
        cdcwire.decode("canal-json", [message])
    assert str(info.value).startswith("t/0/9: ")
    assert words in str(info.value)
    str(info.value).encode()  # printable: cdcwire inspect prints it
