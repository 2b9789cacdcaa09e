"""The message writer's paths: one layout key or several, rows of zero, one or two groups,
and size-table entries of every varint width."""

from __future__ import annotations

import pytest

from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire_craft.encoder import CraftEncoder
from cdcwire_craft.message_writer import LayoutKey, PreparedRow, TermLayouts, rows_message
from cdcwire_craft.table_shape import build_shape

T = ColumnType
F = ColumnFlag


def row(ts: int, text: str, *, old: bool = True, table: str = "t") -> RowChangedEvent:
    image = (Column("id", T.INT, F.HANDLE_KEY, ts), Column("v", T.MEDIUMBLOB, F(0), text))
    return RowChangedEvent(ts, "s", table, image, image if old else None)


@pytest.mark.parametrize("batch", [1, 64])
def test_group_and_body_sizes_of_one_two_and_three_varint_bytes_read_back(craft, batch: int) -> None:
    # group sizes around 10, 100 (2-byte zigzag), 10_000 (2 bytes) and 20_000 (3 bytes: zigzag > 0x3fff)
    events = [row(ts, "x" * n) for ts, n in enumerate([10, 100, 10_000, 20_000, 5, 20_000], 1)]
    config = craft.config(max_batch_size=batch)
    messages = craft.encode(config, events)
    assert len(messages) == (6 if batch == 1 else 1)
    assert craft.decode(config, messages) == craft.carried(config, events)


def test_rows_of_zero_one_and_two_groups_share_a_message(craft) -> None:
    events = [
        row(1, "a"),  # update: new and old groups
        RowChangedEvent(2, "s", "t", (), None),  # no columns at all: no groups
        row(3, "b", old=False),  # insert: one group
        RowChangedEvent(4, "s", "t", None, row(4, "c").columns),  # delete: one (old) group
        row(5, "d", table="u"),  # another table: the message has several layout keys
    ]
    config = craft.config(max_batch_size=64)
    (message,) = craft.encode(config, events)
    assert craft.decode(config, [message]) == craft.carried(config, events)


def test_equal_layout_keys_that_are_different_objects_write_the_same_bytes() -> None:
    """After the encoder's caches reset, a message can hold rows whose keys are equal but
    not identical: they take the several-keys path, which must write what one key writes."""
    shape = build_shape([("id", T.INT, F.HANDLE_KEY), ("v", T.VARCHAR, F(0))])
    first, second = (LayoutKey("s", "t", ((b"\x01", shape), (b"\x02", shape))) for _ in range(2))
    chunk = shape.encode_group((Column("id", T.INT, F.HANDLE_KEY, 7), Column("v", T.VARCHAR, F(0), "x")))[0]
    rows = [PreparedRow(ts, -1, first, (chunk, chunk), 0) for ts in (10, 11, 12)]
    mixed = [rows[0], rows[1]._replace(layout_key=second), rows[2]]
    assert rows_message(mixed, TermLayouts()) == rows_message(rows, TermLayouts())


def test_a_reset_of_the_encoders_table_cache_changes_no_bytes() -> None:
    events = [row(ts, "v" * ts) for ts in range(1, 9)]
    expected = [p.value for p in CraftEncoder(max_batch_size=4).encode(events)]
    encoder = CraftEncoder(max_batch_size=4)
    rows = [encoder.prepare(e) for e in events[:2]]
    encoder._tables.clear()  # as when more than 4096 tables were seen
    rows += [encoder.prepare(e) for e in events[2:]]
    assert rows[0].layout_key is not rows[2].layout_key
    assert [rows_message(rows[:4]), rows_message(rows[4:])] == expected
