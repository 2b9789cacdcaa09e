"""The merge of many partitions into one commit-ts ordered stream (cdcwire.model.ordered_events)."""

from __future__ import annotations

from cdcwire import Column, ColumnFlag as F, ColumnType as T, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.model.ordered_events import OrderedEvents, ResolvedWatermarks, identity

TOPIC = "orders"


def row(ts: int, key: int, table: str = "t", value: str = "v", delete: bool = False) -> RowChangedEvent:
    image = (Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, key), Column("v", T.VARCHAR, F.NULLABLE, value))
    if delete:
        return RowChangedEvent(commit_ts=ts, schema="app", table=table, pre_columns=image)
    return RowChangedEvent(commit_ts=ts, schema="app", table=table, columns=image)


def ddl(ts: int) -> DDLEvent:
    return DDLEvent(commit_ts=ts, schema="app", table="t", query="alter table t add column c int",
                    ddl_type=DDLType.ADD_COLUMN)


def merger(partitions: int = 2, **kwargs) -> OrderedEvents:
    m = OrderedEvents(**kwargs)
    for p in range(partitions):
        m.track(TOPIC, p)
    return m


def feed(m: OrderedEvents, partition: int, *events, offset: int = 0) -> None:
    """Each event in a message of its own, at consecutive offsets."""
    for i, event in enumerate(events):
        m.add(event, TOPIC, partition, offset + i, 0)


def keyless_row(ts: int, value: str = "v") -> RowChangedEvent:
    return RowChangedEvent(commit_ts=ts, schema="app", table="log",
                           columns=(Column("v", T.VARCHAR, F.NULLABLE, value),))


def released(m: OrderedEvents, limit=None) -> list:
    return [p.event for p in m.release(limit)]


def test_events_of_every_partition_come_out_merged_in_commit_ts_order():
    m = merger(3)
    feed(m, 0, row(10, 1), row(40, 4), ResolvedEvent(50))
    feed(m, 1, row(20, 2), row(25, 5), ResolvedEvent(50))
    feed(m, 2, row(15, 3), row(30, 6), ResolvedEvent(50))
    out = released(m)
    assert [e.commit_ts for e in out] == [10, 15, 20, 25, 30, 40, 50]
    assert out[-1] == ResolvedEvent(50)


def test_only_events_at_or_below_the_least_resolved_ts_are_released():
    m = merger(2)
    feed(m, 0, row(10, 1), row(30, 3), ResolvedEvent(30))
    feed(m, 1, row(20, 2), ResolvedEvent(20), row(25, 4))
    assert [e.commit_ts for e in released(m)] == [10, 20, 20]  # the rows up to 20, then resolved 20
    assert len(m) == 2
    feed(m, 1, ResolvedEvent(40), offset=3)
    assert released(m) == [row(25, 4), row(30, 3), ResolvedEvent(30)]
    assert len(m) == 0


def test_a_partition_without_a_resolved_ts_holds_everything_back():
    m = merger(3)
    feed(m, 0, row(10, 1), ResolvedEvent(100))
    feed(m, 1, row(20, 2), ResolvedEvent(100))
    feed(m, 2, row(30, 3))
    assert released(m) == []
    assert m.watermarks.minimum is None
    feed(m, 2, ResolvedEvent(100), offset=1)
    assert [e.commit_ts for e in released(m)] == [10, 20, 30, 100]


def test_a_partition_that_delivered_nothing_yet_holds_everything_back():
    m = merger(2)
    feed(m, 0, row(10, 1), ResolvedEvent(100))
    assert released(m) == []


def test_broadcast_copies_of_a_ddl_and_a_resolved_event_come_out_once():
    m = merger(3)
    for p in range(3):
        feed(m, p, ddl(5), ResolvedEvent(8))
    out = released(m)
    assert out == [ddl(5), ResolvedEvent(8)]
    assert m.copies == 2


def test_a_message_read_again_while_its_rows_are_held_is_dropped():
    m = merger(1)
    feed(m, 0, row(10, 1), row(11, 2))
    feed(m, 0, row(10, 1), row(11, 2))  # the same offsets again
    feed(m, 0, ResolvedEvent(20), offset=2)
    assert released(m) == [row(10, 1), row(11, 2), ResolvedEvent(20)]
    assert m.copies == 2


def test_identical_rows_of_a_keyless_table_at_two_places_are_both_kept():
    m = merger(1)
    feed(m, 0, keyless_row(10), keyless_row(10), ResolvedEvent(20))
    assert released(m) == [keyless_row(10), keyless_row(10), ResolvedEvent(20)]
    assert m.copies == 0


def test_identical_rows_in_one_message_are_both_kept():
    m = merger(1)
    m.add(keyless_row(10), TOPIC, 0, 0, 0)
    m.add(keyless_row(10), TOPIC, 0, 0, 1)
    feed(m, 0, ResolvedEvent(20), offset=1)
    assert released(m) == [keyless_row(10), keyless_row(10), ResolvedEvent(20)]


def test_a_row_replayed_after_its_partitions_resolved_ts_is_dropped():
    m = merger(2)
    feed(m, 0, row(10, 1), ResolvedEvent(20))
    feed(m, 0, row(10, 1), offset=2)  # at-least-once redelivery, after the resolved ts that covers it
    feed(m, 1, ResolvedEvent(20))
    assert released(m) == [row(10, 1), ResolvedEvent(20)]
    assert m.replays == 1


def test_a_row_replayed_after_it_was_released_is_dropped():
    m = merger(2)
    feed(m, 0, row(10, 1), ResolvedEvent(20))
    feed(m, 1, row(12, 2), ResolvedEvent(20))
    assert [e.commit_ts for e in released(m)] == [10, 12, 20]
    feed(m, 1, row(10, 1), row(12, 2), row(21, 3), offset=2)  # replays, then a new row
    feed(m, 0, ResolvedEvent(30), offset=2)
    feed(m, 1, ResolvedEvent(30), offset=5)
    assert released(m) == [row(21, 3), ResolvedEvent(30)]
    assert m.replays == 2


def test_replays_of_a_resolved_event_do_not_move_the_watermark_back():
    m = merger(1)
    feed(m, 0, ResolvedEvent(30), ResolvedEvent(20))
    assert m.watermarks.of((TOPIC, 0)) == 30
    assert released(m) == [ResolvedEvent(30)]
    feed(m, 0, ResolvedEvent(30), offset=2)
    assert released(m) == []  # nothing new: no second resolved event


def test_rows_with_one_commit_ts_and_different_keys_or_kinds_are_all_kept():
    m = merger(1)
    # a key-changing update, split: delete of key 1 and insert of key 2 in one transaction
    feed(m, 0, row(10, 1, delete=True), row(10, 2), row(10, 1, table="other"), ResolvedEvent(10))
    assert released(m)[:-1] == [row(10, 1, delete=True), row(10, 2), row(10, 1, table="other")]


def test_a_ddl_comes_before_rows_of_its_commit_ts_and_ties_keep_arrival_order():
    m = merger(2)
    feed(m, 1, row(10, 2), row(10, 3))
    feed(m, 0, row(10, 1), ddl(10))
    feed(m, 0, ResolvedEvent(10), offset=2)
    feed(m, 1, ResolvedEvent(10), offset=2)
    assert released(m)[:-1] == [ddl(10), row(10, 2), row(10, 3), row(10, 1)]


def test_a_limit_caps_the_release_and_its_resolved_event():
    m = merger(1)
    feed(m, 0, row(10, 1), row(20, 2), ResolvedEvent(30))
    assert released(m, limit=15) == [row(10, 1), ResolvedEvent(15)]
    assert released(m) == [row(20, 2), ResolvedEvent(30)]


def test_held_offset_is_the_earliest_message_with_an_event_still_held():
    m = merger(2)
    feed(m, 0, row(10, 1), row(30, 3), ResolvedEvent(30), offset=5)
    feed(m, 1, ResolvedEvent(20))
    assert m.held_offset(TOPIC, 0) == 5
    released(m)
    assert m.held_offset(TOPIC, 0) == 6  # the row at 10 went out; the one at 30 is held
    assert m.held_offset(TOPIC, 1) is None


def test_what_an_earlier_run_released_is_dropped_on_resume():
    m = merger(1, released_up_to=20)
    feed(m, 0, row(15, 1), row(25, 2), ResolvedEvent(30))
    assert released(m) == [row(25, 2), ResolvedEvent(30)]
    assert m.replays == 1


def test_the_least_resolved_ts_waits_for_every_tracked_partition():
    w = ResolvedWatermarks()
    w.track(("a", 0))
    w.track(("a", 1))
    assert w.advance(("a", 0), 10) and w.minimum is None
    assert w.advance(("a", 1), 5) and w.minimum == 5
    assert not w.advance(("a", 1), 5)
    w.track(("b", 0))  # a partition that appeared: it holds the minimum back again
    assert w.minimum is None


def test_a_rows_identity_is_its_place_and_a_ddls_its_content():
    assert identity(row(1, 1), TOPIC, 0, 5, 0) == identity(row(1, 1), TOPIC, 0, 5, 0)
    assert identity(row(1, 1), TOPIC, 0, 5, 0) != identity(row(1, 1), TOPIC, 0, 6, 0)
    assert identity(row(1, 1), TOPIC, 0, 5, 0) != identity(row(1, 1), TOPIC, 0, 5, 1)
    assert identity(row(1, 1), TOPIC, 0) is None  # no place: never a copy
    assert identity(ddl(5), TOPIC, 0, 1, 0) == identity(ddl(5), TOPIC, 2, 9, 0)
