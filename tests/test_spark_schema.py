"""The event DataFrame schema holds every event losslessly, Spark agrees with Arrow on it, and a
row that is not an event comes out with its reason."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import CdcwireError
from cdcwire.spark.rows.arrow_events import batch_problems, batch_to_events, checked_events, events_to_batch, events_to_permissive_batch
from cdcwire.spark.rows.schema import ARROW_EVENT_SCHEMA, EVENT_SCHEMA
from cdcwire.testing.strategies import all_types_table, event_batches, row_events
from cdcwire.workload import Workload


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


# --- rows that are not events (Parquet files, a user's own DataFrame) -----------------------

_EVENTS = list(Workload(80, seed=1, ddl_every=10, resolved_every=3))


def _first(kind: str) -> int:
    return next(i for i, e in enumerate(events_to_batch(_EVENTS).column("kind").to_pylist()) if e == kind)


def _bad_batch(kind: str, spoil) -> tuple[pa.RecordBatch, int]:
    """The events as a batch, with the first row of ``kind`` spoiled by ``spoil(row)``."""
    rows = events_to_batch(_EVENTS).to_pylist()
    at = _first(kind)
    spoil(rows[at])
    return pa.RecordBatch.from_pylist(rows, schema=ARROW_EVENT_SCHEMA), at


_AN_IMAGE = events_to_batch(_EVENTS).to_pylist()[_first("insert")]["columns"]

MALFORMED = {
    "unknown column type": ("insert", lambda r: r["columns"][1].update(type="VARCHAR2"), "has unknown type 'VARCHAR2'"),
    "null column type": ("insert", lambda r: r["columns"][1].update(type=None), "has unknown type None"),
    "unknown DDL type": ("ddl", lambda r: r.update(ddl_type="CREATE_THING"), "unknown DDL type 'CREATE_THING'"),
    "unknown kind": ("insert", lambda r: r.update(kind="upsert"), "unknown event kind 'upsert'"),
    "no kind": ("insert", lambda r: r.update(kind=None), "the row has no event kind"),
    "insert with an old image": (
        "insert", lambda r: r.update(pre_columns=r["columns"]), "kind 'insert' needs columns and no pre_columns"
    ),
    "delete with a new image": (
        "delete", lambda r: r.update(columns=r["pre_columns"]), "kind 'delete' needs pre_columns and no columns"
    ),
    "update without an old image": (
        "update", lambda r: r.update(pre_columns=None), "kind 'update' needs both columns and pre_columns"
    ),
    "resolved with an image": ("resolved", lambda r: r.update(columns=_AN_IMAGE), "kind 'resolved' needs no column images"),
    "insert with an empty image": ("insert", lambda r: r.update(columns=[]), "columns is an empty image"),
    "null commit ts": ("insert", lambda r: r.update(commit_ts=None), "commit_ts is null"),
    "negative commit ts": ("delete", lambda r: r.update(commit_ts=Decimal(-1)), "commit_ts -1 is outside 0..2^64-1"),
    "two value fields set": (
        "insert", lambda r: r["columns"][0]["value"].update(string="7"), "column 'id' has more than one value field set"
    ),
    "column without a name": ("update", lambda r: r["pre_columns"][0].update(name=None), "pre_columns: a column has no name"),
}


@pytest.mark.parametrize("case", list(MALFORMED), ids=list(MALFORMED))
def test_a_row_that_is_not_an_event_comes_out_as_none_with_its_reason(case):
    kind, spoil, reason = MALFORMED[case]
    batch, at = _bad_batch(kind, spoil)
    events, problems = checked_events(batch)
    assert list(problems) == [at] and reason in problems[at]
    assert events[at] is None
    assert [e for i, e in enumerate(events) if i != at] == [e for i, e in enumerate(_EVENTS) if i != at]


@pytest.mark.parametrize("case", list(MALFORMED), ids=list(MALFORMED))
def test_the_check_without_events_finds_the_same_row_and_reason(case):
    kind, spoil, reason = MALFORMED[case]
    batch, at = _bad_batch(kind, spoil)
    assert batch_problems(batch) == checked_events(batch)[1]


def test_a_batch_of_valid_events_has_no_problems():
    assert batch_problems(events_to_batch(_EVENTS)) == {}


def test_batch_to_events_refuses_a_malformed_row_naming_it_and_the_reason():
    batch, at = _bad_batch("insert", lambda r: r.update(kind="upsert"))
    with pytest.raises(CdcwireError, match=rf"row {at} of an event batch is malformed: unknown event kind 'upsert'"):
        batch_to_events(batch)


def test_type_names_match_in_any_case_as_in_event_json():
    rows = events_to_batch(_EVENTS).to_pylist()
    for row in rows:
        for column in (row["columns"] or []) + (row["pre_columns"] or []):
            column["type"] = column["type"].lower()
        if row["ddl_type"]:
            row["ddl_type"] = row["ddl_type"].title()
    assert batch_to_events(pa.RecordBatch.from_pylist(rows, schema=ARROW_EVENT_SCHEMA)) == _EVENTS


def test_a_null_value_struct_is_sql_null():
    rows = events_to_batch(_EVENTS).to_pylist()
    at = _first("insert")
    rows[at]["columns"][1]["value"] = None
    [event] = batch_to_events(pa.RecordBatch.from_pylist([rows[at]], schema=ARROW_EVENT_SCHEMA))
    assert event.columns[1].value is None and event.columns[1].name == _EVENTS[at].columns[1].name


def test_a_batch_of_only_malformed_records_has_every_event_column_null():
    bad = {"source": "e.jsonl:1", "reason": "not json", "text": "{"}
    batch = events_to_permissive_batch([None, None], [bad, bad])
    assert batch.column("kind").null_count == 2 and batch.column("_malformed").to_pylist() == [bad, bad]


def test_stages_collect_garbage_less_often_and_put_the_collector_back():
    import gc

    from cdcwire.spark.runtime.collector import STAGE_THRESHOLD, fewer_collections

    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold()[0] == STAGE_THRESHOLD and gc.get_freeze_count() > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
