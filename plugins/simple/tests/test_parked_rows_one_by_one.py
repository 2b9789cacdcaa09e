"""Rows parked until their table's BOOTSTRAP are decided one by one when it comes, each at its
own place: one with a bad value is skipped, kept malformed or refused naming its own message,
and the others come out."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import DecodeError, Message, PollDecoder, RowChangedEvent
from simple_cases import user_columns

URI = "file:///tmp/simple-parked/t?protocol=simple&partition-num=1"


def rows_before_their_bootstrap(bad_at: int = 2) -> list[Message]:
    """Five INSERTs of simple.user at offsets 0..4 (the one at ``bad_at`` with a FLOAT "abc"),
    then the table's BOOTSTRAP at offset 5."""
    written = cdcwire.encode(URI, [RowChangedEvent(10 + i, "simple", "user", user_columns(i, f"n{i}", 20, 1.5))
                                   for i in range(5)])
    bootstrap, *inserts = (json.loads(m.value) for m in written)
    inserts[bad_at]["data"]["score"] = "abc"
    return [Message("t", 0, None, json.dumps(m).encode(), i) for i, m in enumerate([*inserts, bootstrap])]


def test_a_poll_decoder_that_skips_gives_the_valid_parked_rows_and_skips_the_bad_one() -> None:
    poll = PollDecoder(URI, skip_undecodable=True)
    rows = [e for m in rows_before_their_bootstrap() for e in poll(m)]
    assert [r.columns[0].value for r in rows] == [0, 1, 3, 4]
    assert poll.skipped == 1


def test_a_read_that_stops_names_the_bad_parked_rows_own_message() -> None:
    with pytest.raises(DecodeError, match=r"^t/0/2: simple data.score: must be a number as a string, got 'abc'"):
        cdcwire.decode(URI, rows_before_their_bootstrap())


def test_two_bad_parked_rows_are_two_skips_and_the_error_counts_the_second() -> None:
    messages = rows_before_their_bootstrap()
    second = json.loads(messages[4].value)
    second["data"]["score"] = "xyz"
    messages[4] = Message("t", 0, None, json.dumps(second).encode(), 4)
    poll = PollDecoder(URI, skip_undecodable=True)
    assert [e.columns[0].value for m in messages for e in poll(m)] == [0, 1, 3]
    assert poll.skipped == 2
    with pytest.raises(DecodeError, match=r"^t/0/2: .*\(and 1 more held rows refused\)"):
        cdcwire.decode(URI, messages)
