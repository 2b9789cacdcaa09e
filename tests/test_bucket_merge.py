"""One bucket's old rows and its changes merged with pyarrow (the one plan's task), no Spark."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

from cdcwire.spark.tables.bucket_merge import merge_bucket, read_bucket


def _rows(table: pa.Table) -> list[dict]:
    return sorted(table.to_pylist(), key=lambda r: repr(list(r.values())))


def test_a_new_bucket_holds_the_upserts_and_counts_them_inserted() -> None:
    changes = pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]})
    rows, counts = merge_bucket(None, changes, pa.array(["U", "D", "U"]), ["id"])
    assert _rows(rows) == [{"id": 1, "name": "a"}, {"id": 3, "name": "c"}]
    assert counts == {"inserted": 2, "updated": 0, "deleted": 0}


def test_an_upsert_replaces_its_keys_row_a_delete_drops_it_and_the_rest_stay() -> None:
    old = pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"]})
    changes = pa.table({"id": [2, 3, 4], "name": ["B", None, "d"]})
    rows, counts = merge_bucket(old, changes, pa.array(["U", "D", "U"]), ["id"])
    assert _rows(rows) == [{"id": 1, "name": "a"}, {"id": 2, "name": "B"}, {"id": 4, "name": "d"}]
    assert counts == {"inserted": 1, "updated": 1, "deleted": 1}


def test_a_delete_of_a_key_the_bucket_lacks_changes_nothing() -> None:
    old = pa.table({"id": [1], "name": ["a"]})
    rows, counts = merge_bucket(old, pa.table({"id": [9], "name": [None]}, schema=old.schema), pa.array(["D"]), ["id"])
    assert _rows(rows) == [{"id": 1, "name": "a"}]
    assert counts == {"inserted": 0, "updated": 0, "deleted": 0}


def test_a_composite_key_matches_on_every_column() -> None:
    old = pa.table({"a": [1, 1], "b": ["x", "y"], "v": [10, 20]})
    changes = pa.table({"a": [1], "b": ["y"], "v": [21]})
    rows, counts = merge_bucket(old, changes, pa.array(["U"]), ["a", "b"])
    assert _rows(rows) == [{"a": 1, "b": "x", "v": 10}, {"a": 1, "b": "y", "v": 21}]
    assert counts["updated"] == 1


def test_a_column_the_changes_add_comes_last_and_is_null_in_the_old_rows() -> None:
    old = pa.table({"id": [1], "name": ["a"]})
    changes = pa.table({"id": [2], "name": ["b"], "email": ["b@x"]})
    rows, _ = merge_bucket(old, changes, pa.array(["U"]), ["id"])
    assert rows.column_names == ["id", "name", "email"]
    assert _rows(rows) == [{"id": 1, "name": "a", "email": None}, {"id": 2, "name": "b", "email": "b@x"}]


def test_a_column_an_upsert_no_longer_has_is_null_in_its_row() -> None:
    old = pa.table({"id": [1, 2], "gone": ["x", "y"]})
    rows, _ = merge_bucket(old, pa.table({"id": [2]}), pa.array(["U"]), ["id"])
    assert _rows(rows) == [{"id": 1, "gone": "x"}, {"id": 2, "gone": None}]


def test_a_type_the_changes_widen_widens_the_old_rows() -> None:
    old = pa.table({"id": pa.array([1], pa.int32()), "price": pa.array([Decimal("1.50")], pa.decimal128(5, 2))})
    changes = pa.table({"id": pa.array([2**40], pa.int64()), "price": pa.array([Decimal("123456.75")], pa.decimal128(10, 2))})
    rows, _ = merge_bucket(old, changes, pa.array(["U"]), ["id"])
    assert rows.schema.field("id").type == pa.int64()
    assert rows.schema.field("price").type == pa.decimal128(10, 2)
    assert sorted(rows.column("id").to_pylist()) == [1, 2**40]


def test_a_bucket_of_several_files_of_older_runs_reads_as_one(tmp_path) -> None:
    pq.write_table(pa.table({"id": [1]}), tmp_path / "a.parquet")
    pq.write_table(pa.table({"id": [2], "later": ["x"]}), tmp_path / "b.parquet")
    rows = read_bucket([str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")])
    assert _rows(rows) == [{"id": 1, "later": None}, {"id": 2, "later": "x"}]
    assert read_bucket([]) is None
