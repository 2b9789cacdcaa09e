"""Craft messages carrying what the event model refuses decode to a DecodeError.

Craft's own encoder writes any integer that fits a varint, any float and any column
names, so messages with TINYINT 99999, flags past 2^63, NaN or one column name twice
exist (an older writer, another implementation); the core's decoder refuses each, naming
the message, the column and the rule. The conformance kit's fuzz tests (random and mutated
bytes, broken events) run on craft in test_conformance.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DecodeError, Message, RowChangedEvent
from cdcwire.api.codec_calls import decoder_for
from cdcwire.testing.broken_events import Broken, broken_row_events
from cdcwire.model.validation import is_valid
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
CONFIG = cdcwire.parse_sink_uri("file:///tmp/cdcwire-craft/t?protocol=craft")
KEY = Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1, "int(11)")


def written(*columns: Column) -> Message:
    """The message craft's own encoder writes for an insert of these columns (no core check)."""
    event = RowChangedEvent(5, "s", "t", (KEY, *columns))
    [payload] = open_sink(CONFIG).codec.encoder(CONFIG, "t", 0).encode([event])
    return Message("t", 0, payload.key, payload.value, 4)


@pytest.mark.parametrize(
    "column, words",
    [
        (Column("c", T.TINYINT, F(0), 99999, "tinyint(4)"), "99999 is outside -128..127"),
        (Column("c", T.INT, F(1 << 63), 1, "int(11)"), "0..2^63-1"),
        (Column("c", T.DOUBLE, F(0), float("nan"), "double"), "must be finite"),
        (Column("c", T.FLOAT, F(0), float("inf"), "float"), "must be finite"),
        (Column("id", T.INT, F(0), 2, "int(11)"), "column 'id' appears twice"),
        (Column("c", T.DATE, F.BINARY, "2024-13-45", "date"), "is not a DATE"),
    ],
    ids=["tinyint-99999", "flags-past-2^63", "double-nan", "float-inf", "name-twice", "month-13"],
)
def test_a_value_the_event_model_refuses_is_a_decode_error_naming_the_message(column, words):
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(CONFIG, [written(column)])
    assert str(info.value).startswith("t/0/4: the message decodes to an invalid event: s.t@5: ")
    assert words in str(info.value)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(broken_row_events())
def test_the_raw_decoder_gives_back_what_was_written_and_the_core_refuses_it_if_invalid(broken: Broken):
    try:  # craft's own encoder, unguarded: the core never gives it such an event
        payloads = list(open_sink(CONFIG).codec.encoder(CONFIG, "t", 0).encode([broken.event]))
    except Exception:
        return
    for p in payloads:
        message = Message("t", 0, p.key, p.value, 0)
        try:
            raw = open_sink(CONFIG).codec.decoder(CONFIG).decode(message)
        except DecodeError:  # craft refuses it itself (bytes that are not UTF-8 in a text column)
            with pytest.raises(DecodeError):
                decoder_for(CONFIG).decode(message)
            continue
        if all(is_valid(e) for e in raw):
            assert decoder_for(CONFIG).decode(message) == raw
        else:
            with pytest.raises(DecodeError, match="decodes to an invalid event"):
                decoder_for(CONFIG).decode(message)
