"""Avro messages carrying what the event model refuses decode to a DecodeError.

Avro's own encoder writes NaN and infinite doubles and, with the TiDB extension, any
long as the commit ts, so such messages exist (an older writer, another implementation);
the core's decoder refuses each, naming the message, the column and the rule. The
conformance kit's fuzz tests (random and mutated bytes, broken events) run on avro in
test_conformance.py.
"""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DecodeError, Message, RowChangedEvent
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
KEY = Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1, "int(11)")


@pytest.fixture
def config(avro_uri: str):
    return cdcwire.parse_sink_uri(avro_uri + "&enable-tidb-extension=true")


def written(config, event: RowChangedEvent) -> Message:
    """The message avro's own encoder writes for the event (no core check)."""
    [payload] = open_sink(config).codec.encoder(config, "tidb_s_t", 0).encode([event])
    return Message("tidb_s_t", 0, payload.key, payload.value, 4)


def insert(column: Column) -> RowChangedEvent:
    return RowChangedEvent(5, "s", "t", (KEY, column))


@pytest.mark.parametrize(
    "event, words",
    [
        (insert(Column("c", T.DOUBLE, F(0), float("nan"), "double")), "must be finite"),
        (insert(Column("c", T.FLOAT, F(0), float("-inf"), "float")), "must be finite"),
        (RowChangedEvent(-5, "s", "t", (KEY,)), "commit_ts: must be an int in 0..2^64-1, got -5"),
        (insert(Column("c", T.DATE, F.BINARY, "2024-13-45", "date")), "is not a DATE"),
    ],
    ids=["double-nan", "float-minus-inf", "negative-commit-ts", "month-13"],
)
def test_a_value_the_event_model_refuses_is_a_decode_error_naming_the_message(config, event, words):
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(config, [written(config, event)])
    assert str(info.value).startswith("tidb_s_t/0/4: the message decodes to an invalid event: s.t@")
    assert words in str(info.value)
