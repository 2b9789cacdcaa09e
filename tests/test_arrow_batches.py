"""Routed Arrow batches become EventBatches (the encoding stage's columnar input) that stand for
exactly the events the Arrow rows hold, key-change halves applied in this one place."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire.model.event_batch import EventBatch
from cdcwire.model.events import RowChangedEvent, build_row_event
from cdcwire.spark.rows.arrow_batches import routed_event_batch
from cdcwire.spark.rows.arrow_events import events_to_batch
from cdcwire.testing.strategies import all_types_table, event_batches, row_events


def routed(events: list, halves: list[int] | None = None) -> pa.RecordBatch:
    batch = events_to_batch(events)
    return batch.append_column("_cdc_half", pa.array(halves or [0] * len(events), pa.int8()))


@settings(max_examples=150, deadline=None)
@given(event_batches())
def test_an_event_batch_stands_for_the_events_of_its_arrow_rows(events):
    assert list(routed_event_batch(routed(events)).events()) == events


@settings(max_examples=60, deadline=None)
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=5))
def test_every_column_type_keeps_its_value_and_shape(events):
    batch = routed_event_batch(routed(events))
    assert list(batch.events()) == events
    assert batch == EventBatch.of_events(events)


def test_rows_of_one_table_share_one_interned_shape():
    col = lambda v: cdcwire.Column("id", cdcwire.ColumnType.BIGINT, cdcwire.ColumnFlag.HANDLE_KEY, v)
    events = [RowChangedEvent(i, "s", "t", (col(i),)) for i in range(1, 4)]
    batch = routed_event_batch(routed(events))
    assert batch.new_shapes[0] is batch.new_shapes[1] is batch.new_shapes[2]
    assert batch.new_shapes[0] is routed_event_batch(routed(events[:1])).new_shapes[0]


def test_key_change_halves_become_a_delete_of_the_old_image_and_an_insert_of_the_new():
    new = (cdcwire.Column("id", cdcwire.ColumnType.BIGINT, cdcwire.ColumnFlag.HANDLE_KEY, 2),)
    old = (cdcwire.Column("id", cdcwire.ColumnType.BIGINT, cdcwire.ColumnFlag.HANDLE_KEY, 1),)
    update = RowChangedEvent(7, "s", "t", new, old)
    batch = routed_event_batch(routed([update, update, update], [1, 2, 0]))
    assert list(batch.events()) == [
        build_row_event(7, "s", "t", None, old, None),
        build_row_event(7, "s", "t", new, None, None),
        update,
    ]
    assert batch.kinds == ["delete", "insert", "update"]


def test_type_names_in_any_case_read_as_their_column_type():
    event = RowChangedEvent(
        1, "s", "t", (cdcwire.Column("id", cdcwire.ColumnType.BIGINT, cdcwire.ColumnFlag.HANDLE_KEY, 5),)
    )
    batch = routed([event])
    columns = batch.column("columns").to_pylist()
    columns[0][0]["type"] = "bigint"
    lowered = batch.set_column(
        batch.schema.get_field_index("columns"), "columns", pa.array(columns, batch.schema.field("columns").type)
    )
    assert list(routed_event_batch(lowered).events()) == [event]


def test_ddl_type_names_in_any_case_read_as_their_ddl_type():
    event = cdcwire.DDLEvent(3, "s", "t", "CREATE TABLE t (id INT PRIMARY KEY)", cdcwire.DDLType.CREATE_TABLE)
    batch = routed([event])
    lowered = batch.set_column(batch.schema.get_field_index("ddl_type"), "ddl_type", pa.array(["create_table"]))
    assert list(routed_event_batch(lowered).events()) == [event]
