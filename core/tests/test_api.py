from __future__ import annotations

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, DecodeError, Message, ResolvedEvent, RowChangedEvent

PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def row(ts, id_):
    return RowChangedEvent(ts, "test", "t1", (Column("id", ColumnType.INT, PK, id_),))


def test_encode_dispatches_then_encodes_in_topic_partition_order():
    events = [DDLEvent(1, "test", "t1", "q", DDLType.CREATE_TABLE), row(2, 1), row(3, 2), ResolvedEvent(4)]
    msgs = cdcwire.encode("file:///tmp/a/t?protocol=echo-json&partition-num=2&partition=index-value", events)
    assert [m.partition for m in msgs] == sorted(m.partition for m in msgs)
    decoded = cdcwire.decode("echo-json", msgs)
    assert decoded.count(events[0]) == 2 and decoded.count(events[3]) == 2
    assert sorted(e.commit_ts for e in decoded if isinstance(e, RowChangedEvent)) == [2, 3]


def test_encode_keeps_stream_order_within_a_partition():
    events = [row(5, 1), row(3, 1), row(9, 1)]
    msgs = cdcwire.encode("file:///tmp/a/t?protocol=echo-json&partition-num=1", events)
    assert [e.commit_ts for e in cdcwire.decode("echo-json", msgs)] == [5, 3, 9]


def test_decode_accepts_a_uri_or_a_bare_protocol_name():
    msgs = cdcwire.encode("file:///tmp/a/t?protocol=echo-json&partition-num=1", [row(1, 1)])
    assert cdcwire.decode("echo", msgs) == cdcwire.decode("file:///x/t?protocol=echo-json", msgs)


def test_a_decode_error_names_the_message_location():
    bad = Message("orders", 2, None, b"{", offset=41)
    with pytest.raises(DecodeError, match=r"^orders/2/41: ") as info:
        cdcwire.decode("echo-json", [bad])
    assert info.value.where == "orders/2/41"


def test_encode_writes_through_the_file_transport_and_reads_back(tmp_path):
    uri = f"file://{tmp_path}/t?protocol=echo-json&partition-num=3&partition=index-value"
    events = [row(i, i) for i in range(1, 20)]
    cdcwire.write(uri, cdcwire.encode(uri, events))
    back = cdcwire.decode(uri, cdcwire.read(uri))
    assert sorted(back, key=lambda e: e.commit_ts) == events


def test_read_ends_every_partition_where_it_ended_at_the_call(tmp_path):
    uri = f"file://{tmp_path}/t?protocol=echo-json&partition-num=2&partition=index-value"
    first = [row(i, i) for i in range(1, 9)]
    cdcwire.write(uri, cdcwire.encode(uri, first))
    messages = cdcwire.read(uri)  # nothing consumed yet
    cdcwire.write(uri, cdcwire.encode(uri, [row(i, i) for i in range(9, 17)]))
    assert sorted(cdcwire.decode(uri, messages), key=lambda e: e.commit_ts) == first
