"""Rows share messages up to max-batch-size and max-message-bytes; DDL and resolved go alone."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.foundation.errors import MessageTooLargeError
from cdcwire.testing.strategies import event_batches
from cdcwire_craft.encoder import CraftEncoder
from cdcwire.plugin_api import MESSAGE_OVERHEAD


def row(ts: int, text: str = "x") -> RowChangedEvent:
    return RowChangedEvent(
        ts, "s", "t",
        (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, ts), Column("v", ColumnType.VARCHAR, ColumnFlag(0), text)),
        None,
    )


def test_max_batch_size_two_puts_five_rows_in_three_messages(craft) -> None:
    config = craft.config(max_batch_size=2)
    events = [row(ts) for ts in range(1, 6)]
    messages = craft.encode(config, events)
    assert len(messages) == 3
    assert [len(craft.decode(config, [m])) for m in messages] == [2, 2, 1]
    assert craft.decode(config, messages) == craft.carried(config, events)


def test_the_default_batch_is_sixteen_rows(craft) -> None:
    config = craft.config()
    messages = craft.encode(config, [row(ts) for ts in range(1, 34)])
    assert [len(craft.decode(config, [m])) for m in messages] == [16, 16, 1]


def test_payloads_count_the_events_they_carry() -> None:
    payloads = list(CraftEncoder(max_batch_size=2).encode([row(1), row(2), row(3), ResolvedEvent(3)]))
    assert [p.events for p in payloads] == [2, 1, 1]


def test_the_kafka_key_is_none_like_the_references_nil_key() -> None:
    payloads = list(CraftEncoder().encode([row(1), DDLEvent(2, "s", "t", "q", DDLType.CREATE_TABLE), ResolvedEvent(2)]))
    assert [p.key for p in payloads] == [None, None, None]


def test_ddl_and_resolved_events_are_one_message_each_after_the_pending_rows(craft) -> None:
    config = craft.config()
    ddl = DDLEvent(3, "s", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN)
    events = [row(1), row(2), ddl, row(4), ResolvedEvent(4), ResolvedEvent(5)]
    messages = craft.encode(config, events)
    assert [len(craft.decode(config, [m])) for m in messages] == [2, 1, 1, 1, 1]
    assert craft.decode(config, messages) == craft.carried(config, events)


def test_max_message_bytes_256_keeps_every_message_within_it(craft) -> None:
    config = craft.config(max_message_bytes=256, max_batch_size=64)
    events = [row(ts, "v" * (ts % 40)) for ts in range(1, 60)]
    messages = craft.encode(config, events)
    assert len(messages) > 1
    for m in messages:
        assert len(m.value) + MESSAGE_OVERHEAD <= 256
    assert craft.decode(config, messages) == craft.carried(config, events)


def test_the_row_that_crosses_the_estimate_stays_in_its_message() -> None:
    # The reference's estimate of each row: header 32 + len("s") + len("t") = 34,
    # columns (2 + 1 + 16) for "id" with a one-byte value and (1 + 1 + 16) for "v" = "x": 71.
    # With max-message-bytes 120: after row 1 the estimate is 71, after row 2 it is 142 > 120,
    # so the message closes holding both rows (the real message is far smaller).
    payloads = list(CraftEncoder(max_batch_size=16, max_message_bytes=120).encode([row(ts) for ts in range(1, 6)]))
    assert [p.events for p in payloads] == [2, 2, 1]
    assert all(len(p.value) + MESSAGE_OVERHEAD <= 120 for p in payloads)


def test_a_crossing_row_that_does_not_really_fit_moves_to_the_next_message() -> None:
    big = [row(ts, "y" * 60) for ts in range(1, 5)]  # estimate ~130 each, real ~90 each
    payloads = list(CraftEncoder(max_batch_size=16, max_message_bytes=160).encode(big))
    assert [p.events for p in payloads] == [1, 1, 1, 1]
    assert all(len(p.value) + MESSAGE_OVERHEAD <= 160 for p in payloads)


def test_a_row_too_large_for_any_message_is_refused_with_its_place() -> None:
    with pytest.raises(MessageTooLargeError) as info:
        list(CraftEncoder(max_message_bytes=100).encode([row(7, "z" * 200)]))
    assert "s.t" in str(info.value)
    assert "commit ts 7" in str(info.value)


def test_a_ddl_too_large_for_any_message_is_refused() -> None:
    with pytest.raises(MessageTooLargeError):
        list(CraftEncoder(max_message_bytes=100).encode([DDLEvent(1, "s", "t", "x" * 200, DDLType.CREATE_TABLE)]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(event_batches(max_size=25))
def test_no_message_ever_passes_max_message_bytes(craft, events: list) -> None:
    config = craft.config(max_message_bytes=1024, max_batch_size=8)
    try:
        messages = craft.encode(config, events)
    except MessageTooLargeError:
        return  # one event larger than the limit on its own: refused, never sent oversize
    assert all(len(m.value) + MESSAGE_OVERHEAD <= 1024 for m in messages)
    assert craft.decode(config, messages) == craft.carried(config, events)
