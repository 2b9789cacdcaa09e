"""How row changes share messages: max-batch-size, max-message-bytes, oversize rows."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, MessageTooLargeError, ResolvedEvent, RowChangedEvent
from cdcwire.model.message import Payload
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
URI = "file:///tmp/cdcwire-open/t?protocol=open-protocol"
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def encode(events, **params: object) -> list[Payload]:
    query = "".join(f"&{k}={v}" for k, v in params.items())
    config = cdcwire.parse_sink_uri(URI + query)
    return list(open_sink(config).codec.encoder(config, "t", 0).encode(events))


def row(i: int, text: str = "aa", ts: int = 100) -> RowChangedEvent:
    return RowChangedEvent(ts, "test", "t1", (Column("id", T.INT, KEY, i), Column("val", T.VARCHAR, F.NULLABLE, text)))


def message_cost(p: Payload) -> int:
    return len(p.key) + len(p.value) + 36


def test_five_rows_with_max_batch_size_two_make_three_messages() -> None:
    payloads = encode([row(i) for i in range(5)], **{"max-batch-size": 2})
    assert [p.events for p in payloads] == [2, 2, 1]


def test_default_batch_holds_sixteen_rows() -> None:
    payloads = encode([row(i) for i in range(40)])
    assert [p.events for p in payloads] == [16, 16, 8]


def test_batched_message_frames_one_length_and_json_per_event() -> None:
    [p] = encode([row(1), row(2)])
    assert p.key[:8] == (1).to_bytes(8, "big")
    n = int.from_bytes(p.key[8:16], "big")
    assert json.loads(p.key[16 : 16 + n]) == {"ts": 100, "scm": "test", "tbl": "t1", "t": 1}
    m = int.from_bytes(p.value[:8], "big")
    assert json.loads(p.value[8 : 8 + m])["u"]["id"]["v"] == 1


def test_ddl_and_resolved_events_travel_alone_between_row_batches() -> None:
    ddl = DDLEvent(99, "test", "t1", "TRUNCATE TABLE t1", DDLType.TRUNCATE_TABLE)
    payloads = encode([row(1), row(2), ddl, row(3), ResolvedEvent(101), row(4)])
    assert [p.events for p in payloads] == [2, 1, 1, 1, 1]
    assert json.loads(payloads[1].key[16:])["t"] == 2
    assert json.loads(payloads[3].key[16:]) == {"ts": 101, "t": 3}


def test_resolved_value_is_eight_zero_bytes() -> None:
    [p] = encode([ResolvedEvent(5)])
    assert p.value == bytes(8)


def test_small_max_message_bytes_splits_and_keeps_every_message_within_it() -> None:
    limit = 400
    payloads = encode([row(i, "x" * (i * 7 % 60)) for i in range(30)], **{"max-message-bytes": limit})
    assert len(payloads) > 3
    assert all(message_cost(p) <= limit for p in payloads)
    assert sum(p.events for p in payloads) == 30


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=12), st.integers(600, 6000))
def test_no_message_passes_max_message_bytes_whatever_the_rows(events: list, limit: int) -> None:
    try:
        payloads = encode(events, **{"max-message-bytes": limit, "max-batch-size": 5})
    except MessageTooLargeError:
        return
    assert all(message_cost(p) <= limit for p in payloads)
    assert all(p.events <= 5 for p in payloads)


def test_a_message_is_filled_up_to_the_limit_exactly() -> None:
    one = encode([row(1)])[0]
    two = encode([row(1), row(2)])[0]
    limit = message_cost(two)
    assert [p.events for p in encode([row(1), row(2)], **{"max-message-bytes": limit})] == [2]
    assert [p.events for p in encode([row(1), row(2)], **{"max-message-bytes": limit - 1})] == [1, 1]
    assert message_cost(one) < limit


def test_single_row_too_large_raises_naming_table_ts_and_sizes() -> None:
    big = row(1, "y" * 500, ts=4242)
    with pytest.raises(MessageTooLargeError, match=r"test\.t1 at commit ts 4242 needs \d+ bytes.*max-message-bytes=200"):
        encode([big], **{"max-message-bytes": 200})


def test_single_row_that_fits_exactly_is_sent() -> None:
    [p] = encode([row(1, "z" * 50)])
    assert encode([row(1, "z" * 50)], **{"max-message-bytes": message_cost(p)})[0].value == p.value


def test_handle_key_only_sends_just_the_key_columns_and_marks_ohk() -> None:
    big = row(7, "y" * 500)
    [p] = encode([big], **{"max-message-bytes": 200, "large-message-handle-option": "handle-key-only"})
    assert json.loads(p.key[16:]) == {"ts": 100, "scm": "test", "tbl": "t1", "t": 1, "ohk": True}
    assert json.loads(p.value[8:]) == {"u": {"id": {"t": 3, "h": True, "f": 10, "v": 7}}}


def test_handle_key_only_leaves_rows_that_fit_untouched() -> None:
    payloads = encode([row(1)], **{"max-message-bytes": 400, "large-message-handle-option": "handle-key-only"})
    assert b"ohk" not in payloads[0].key and b'"val"' in payloads[0].value


def test_handle_key_only_still_refuses_a_key_too_large_to_send() -> None:
    huge_key = RowChangedEvent(1, "test", "t1", (Column("id", T.VARCHAR, KEY, "k" * 300),))
    with pytest.raises(MessageTooLargeError, match="even with only its handle-key columns"):
        encode([huge_key], **{"max-message-bytes": 200, "large-message-handle-option": "handle-key-only"})


def test_ddl_too_large_for_the_limit_is_refused() -> None:
    ddl = DDLEvent(1, "test", "t1", "ALTER TABLE t1 COMMENT '" + "c" * 300 + "'", DDLType.MODIFY_TABLE_COMMENT)
    with pytest.raises(MessageTooLargeError, match="DDL of test.t1"):
        encode([ddl], **{"max-message-bytes": 200})


def test_handle_key_only_row_decodes_to_the_key_columns_as_carried() -> None:
    config = cdcwire.parse_sink_uri(URI + "&max-message-bytes=200&large-message-handle-option=handle-key-only")
    big = row(7, "y" * 500)
    messages = [cdcwire.Message("t", 0, p.key, p.value) for p in encode([big], **{"max-message-bytes": 200, "large-message-handle-option": "handle-key-only"})]
    [back] = cdcwire.decode(config, messages)
    assert back == open_sink(config).codec.carrier(config)(big)
    assert [c.name for c in back.columns] == ["id"]
