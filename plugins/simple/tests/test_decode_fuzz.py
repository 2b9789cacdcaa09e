"""Fuzzing the simple decoder as a reader meets a stream: one decoder for the whole run, valid
and spoiled messages mixed, so spoiled BOOTSTRAPs and DDLs change the table schemas later rows
are typed by. Whatever a message says, the read gives valid events or a DecodeError naming it.

A longer run: ``CDCWIRE_FUZZ_EXAMPLES=2000`` (counts printed with -s).
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import DecodeError, Message, PollDecoder
from cdcwire.testing.conformance import round_trip
from cdcwire.testing.decode_fuzz import FuzzTally, spoiled
from cdcwire.testing.strategies import event_batches

EXAMPLES = int(os.environ.get("CDCWIRE_FUZZ_EXAMPLES", "40"))
URIS = {
    "json": "file:///tmp/simple-fuzz/t?protocol=simple",
    "avro": "file:///tmp/simple-fuzz/t?protocol=simple&encoding-format=avro",
}


def fuzz_stream(uri: str, examples: int, json_tokens: bool) -> FuzzTally:
    """Streams of generated events, each message kept or spoiled, read by one PollDecoder."""
    tally = FuzzTally()
    poll = PollDecoder(uri)

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(event_batches(max_size=4), st.data())
    def check(events, data):
        messages, _ = round_trip(uri, events)
        for m in messages:
            value = data.draw(spoiled(m.value or b"", json_tokens))
            tally.decode(poll, Message(m.topic, m.partition, m.key, value, m.offset))

    check()
    return tally


@pytest.mark.parametrize("encoding", sorted(URIS))
def test_a_stream_of_spoiled_and_valid_messages_reads_as_valid_events_or_decode_errors(encoding):
    tally = fuzz_stream(URIS[encoding], EXAMPLES, json_tokens=encoding == "json")
    print(f"simple {encoding} (PollDecoder):", tally)
    assert tally.inputs and tally.decode_errors
    tally.assert_clean()


def bootstrap_and_row(**changes) -> list[Message]:
    """A BOOTSTRAP of table s.t (id INT key, c FLOAT) and one INSERT, the INSERT's fields changed."""
    uri = URIS["json"]
    event = cdcwire.RowChangedEvent(5, "s", "t", (
        cdcwire.Column("id", cdcwire.ColumnType.INT, cdcwire.ColumnFlag.HANDLE_KEY | cdcwire.ColumnFlag.PRIMARY_KEY,
                       1, "int(11)"),
        cdcwire.Column("c", cdcwire.ColumnType.FLOAT, cdcwire.ColumnFlag.NULLABLE, 1.5, "float"),
    ))
    bootstrap, insert = (json.loads(m.value) for m in cdcwire.encode(uri + "&partition-num=1", [event]))
    insert["data"].update(changes)
    return [Message("t", 0, None, json.dumps(m).encode(), i) for i, m in enumerate((bootstrap, insert))]


def test_a_float_past_the_float32_range_is_a_decode_error_naming_the_message():
    with pytest.raises(DecodeError, match=r"^t/0/1: simple data.c: 3.5e\+38 is beyond the FLOAT range"):
        cdcwire.decode("simple", bootstrap_and_row(c="3.5e38"))


def test_a_type_that_is_not_a_string_is_a_decode_error_naming_the_message():
    message = Message("t", 0, None, b'{"version":1,"type":{},"commitTs":1}', 7)
    with pytest.raises(DecodeError, match=r"^t/0/7: simple type must be a string, got '\{\}'"):
        cdcwire.decode("simple", [message])


def test_a_bootstrap_whose_indexes_are_no_list_is_a_decode_error_naming_the_message():
    bootstrap = json.loads(bootstrap_and_row()[0].value)
    bootstrap["tableSchema"]["indexes"] = 1
    message = Message("t", 0, None, json.dumps(bootstrap).encode(), 3)
    with pytest.raises(DecodeError, match=r"^t/0/3: simple tableSchema.indexes must be a list, got '1'"):
        cdcwire.decode("simple", [message])
