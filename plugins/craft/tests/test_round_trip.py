"""decode(encode(events)) gives back what craft carries, for every column type."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire.testing.strategies import all_types_table, event_batches, row_events

SETTINGS = settings(
    max_examples=80, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@SETTINGS
@given(event_batches(max_size=30))
def test_mixed_batches_round_trip_in_order(craft, events: list) -> None:
    config = craft.config(max_batch_size=4)
    assert craft.decode(config, craft.encode(config, events)) == craft.carried(config, events)


@SETTINGS
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=6))
def test_every_column_type_round_trips_in_inserts_updates_and_deletes(craft, events: list) -> None:
    config = craft.config()
    assert craft.decode(config, craft.encode(config, events)) == craft.carried(config, events)


@SETTINGS
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=4))
def test_deletes_keep_only_handle_keys_when_asked(craft, events: list) -> None:
    config = craft.config(delete_only_output_handle_key_columns="true")
    back = craft.decode(config, craft.encode(config, events))
    assert back == craft.carried(config, events)
    for event in back:
        if event.is_delete:
            assert [c.name for c in event.pre_columns] == ["id"]


def test_round_trip_through_the_public_api_with_several_partitions() -> None:
    rows = [
        RowChangedEvent(ts, "test", "t", (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, ts),), None)
        for ts in range(1, 30)
    ]
    uri = "file:///tmp/cdcwire-craft-tests/t?protocol=craft&partition-num=3&partition=index-value"
    messages = cdcwire.encode(uri, [*rows, cdcwire.ResolvedEvent(30)])
    assert {m.partition for m in messages} == {0, 1, 2}
    back = cdcwire.decode("craft", messages)
    assert sorted(e.commit_ts for e in back if isinstance(e, RowChangedEvent)) == list(range(1, 30))
    assert sum(isinstance(e, cdcwire.ResolvedEvent) for e in back) == 3  # one per partition


def test_decoded_values_are_canonical_python_values(craft) -> None:
    config = craft.config()
    U, B = ColumnFlag.UNSIGNED, ColumnFlag.BINARY
    columns = (
        Column("i", ColumnType.BIGINT, ColumnFlag(0), -(1 << 63)),
        Column("u", ColumnType.BIGINT, U, (1 << 64) - 1),
        Column("f", ColumnType.FLOAT, ColumnFlag(0), 0.1),
        Column("d", ColumnType.DOUBLE, ColumnFlag(0), 0.1),
        Column("s", ColumnType.VARCHAR, ColumnFlag(0), "héllo"),
        Column("b", ColumnType.VARCHAR, B, b"\x89PNG"),
        Column("t", ColumnType.BLOB, ColumnFlag(0), "text"),
        Column("y", ColumnType.YEAR, U, 2021),
        Column("e", ColumnType.ENUM, ColumnFlag(0), 2),
        Column("dec", ColumnType.DECIMAL, ColumnFlag(0), "129012.1230000"),
        Column("n", ColumnType.INT, ColumnFlag.NULLABLE, None),
    )
    (back,) = craft.decode(config, craft.encode(config, [RowChangedEvent(1, "s", "t", columns, None)]))
    values = {c.name: c.value for c in back.columns}
    assert values == {
        "i": -(1 << 63),
        "u": (1 << 64) - 1,
        "f": 0.10000000149011612,  # float32-rounded
        "d": 0.1,
        "s": "héllo",
        "b": b"\x89PNG",
        "t": "text",
        "y": 2021,
        "e": 2,
        "dec": "129012.1230000",
        "n": None,
    }
    assert all(c.mysql_type is None for c in back.columns)


def test_key_only_delete_of_a_table_without_handle_key_is_refused(craft) -> None:
    # Cutting a keyless delete to its handle-key columns would send an empty image, which no
    # decoder can read back as a delete: refuse it, as open-protocol and canal-json do.
    config = craft.config(delete_only_output_handle_key_columns="true")
    delete = RowChangedEvent(5, "shop", "log", None, (Column("note", ColumnType.VARCHAR, ColumnFlag(0), "x"),))
    with pytest.raises(cdcwire.EncodeError, match="shop.log.*no handle-key column"):
        craft.encode(config, [delete])
