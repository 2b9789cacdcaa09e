"""The event DataFrame schema holds every event losslessly, and Spark agrees with Arrow on it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire.spark.arrow_events import batch_to_events, events_to_batch
from cdcwire.spark.schema import ARROW_EVENT_SCHEMA, EVENT_SCHEMA
from cdcwire.testing.strategies import all_types_table, event_batches, row_events


@settings(max_examples=150, deadline=None)
@given(event_batches())
def test_events_survive_the_arrow_layout(events):
    assert batch_to_events(events_to_batch(events)) == events


@settings(max_examples=60, deadline=None)
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=5))
def test_keys_only_keeps_just_the_handle_key_columns(events):
    light = batch_to_events(events_to_batch(events), keys_only=True)
    assert [e.handle_key_columns() for e in light] == [e.handle_key_columns() for e in events]
    assert all(c.is_handle_key for e in light for c in e.image)


def test_unsigned_64_bit_values_and_commit_ts_keep_every_bit():
    top = (1 << 64) - 1
    event = cdcwire.RowChangedEvent(
        top, "s", "t", (cdcwire.Column("u", cdcwire.ColumnType.BIGINT, cdcwire.ColumnFlag.UNSIGNED, top),)
    )
    batch = events_to_batch([event])
    assert batch.column("columns")[0][0]["value"]["uint"].as_py() == top
    assert batch_to_events(batch) == [event]


def test_spark_reads_events_in_the_documented_schema(spark, tmp_path):
    events = [cdcwire.ResolvedEvent(5), cdcwire.DDLEvent(3, "s", "t", "CREATE TABLE t (a int)", cdcwire.DDLType.CREATE_TABLE)]
    path = tmp_path / "e.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        cdcwire.write_jsonl(events, f)
    from cdcwire import spark as cs

    df = cs.read_events(spark, str(path))
    assert df.schema == EVENT_SCHEMA
    assert [r["kind"] for r in df.collect()] == ["resolved", "ddl"]
    parquet = str(tmp_path / "e.parquet")
    df.write.parquet(parquet)
    assert cs.read_events(spark, parquet).schema == EVENT_SCHEMA
    assert ARROW_EVENT_SCHEMA.names == EVENT_SCHEMA.names
