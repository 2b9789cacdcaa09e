"""cs.materialize(format="iceberg"): the tables equal an in-order replay of the stream
(tests/table_replay.py), read back through the Iceberg catalog by PyIceberg's scan and by
polars; DDLs (TRUNCATE, DROP + CREATE, ADD / DROP COLUMN) as a replay runs them; a run killed
after its commits and run again leaves the same tables."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLType, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.foundation.errors import CdcwireError
from cdcwire.spark.tables import iceberg_tables
from cdcwire.spark.tables.table_state import STATE_FILE

from table_replay import replay
from test_spark_materialize_ddl import ddl, resolved, row, source

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def tables_in(out: Path) -> dict[str, dict[tuple, dict]]:
    """Every table of OUT's catalog, read by PyIceberg's scan: name -> key -> row."""
    cat = iceberg_tables.catalog(str(out))
    found = {name: cat.load_table(tuple(name.split("."))).scan().to_arrow().to_pylist()
             for name in iceberg_tables.tables_in(str(out))}
    return {name: {(r["id"],): r for r in rows} for name, rows in found.items()}


def polars_rows(out: Path, name: str) -> dict[tuple, dict]:
    """One table read by polars' Iceberg reader, from the table's current metadata file."""
    table = iceberg_tables.catalog(str(out)).load_table(tuple(name.split(".")))
    rows = pl.scan_iceberg(table, reader_override="native").collect().to_dicts()
    return {(r["id"],): r for r in rows}


def run(spark, uri: str, out: Path):
    return cs.materialize(spark, uri, str(out), format="iceberg")


def test_a_run_and_two_incremental_runs_equal_an_in_order_replay(spark, tmp_path) -> None:
    out = tmp_path / "out"
    first = [row(1, "t", 1, "a"), row(2, "t", 2, "b"), row(3, "u", 1, "x"), resolved(4)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    assert tables_in(out) == replay(first)
    second = [row(5, "t", 2, "b2"), RowChangedEvent(6 << 18, "shop", "t", None, row(0, "t", 1).columns), row(7, "t", 3, "c"),
              resolved(8)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    summary = run(spark, uri, out)
    assert summary.tables["shop.t"].deleted == 1 and summary.tables["shop.t"].updated == 1
    assert tables_in(out) == replay(first + second)
    third = [row(9, "u", 2, "y"), row(10, "t", 4, "d"), resolved(11)]
    cdcwire.write(uri, cdcwire.encode(uri, third))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second + third)
    assert polars_rows(out, "shop.t") == replay(first + second + third)["shop.t"]
    assert iceberg_tables.applied_ts(str(out), "shop.t") == 11 << 18


def test_a_truncate_and_a_drop_then_create_are_run_as_a_replay_runs_them(spark, tmp_path) -> None:
    out = tmp_path / "out"
    first = [row(1, "trunc", 1), row(2, "trunc", 2), row(1, "gone", 1), row(2, "gone", 2), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [ddl(4, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE),
              ddl(5, "gone", "DROP TABLE gone", DDLType.DROP_TABLE),
              ddl(6, "gone", "CREATE TABLE gone (id BIGINT PRIMARY KEY, name VARCHAR(8))", DDLType.CREATE_TABLE),
              row(7, "gone", 9, "new"), resolved(8)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second) == {"shop.trunc": {}, "shop.gone": {(9,): {"id": 9, "name": "new"}}}


def test_a_table_dropped_in_a_later_run_leaves_the_catalog_and_the_output(spark, tmp_path) -> None:
    out = tmp_path / "out"
    first = [row(1, "kept", 1), row(1, "gone", 1), resolved(2)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [ddl(3, "gone", "DROP TABLE gone", DDLType.DROP_TABLE), resolved(4)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second) and not (out / "shop.gone").exists()


def test_columns_added_and_dropped_in_a_later_run_change_the_rows_of_earlier_runs(spark, tmp_path) -> None:
    out, first = tmp_path / "out", [row(1, "t", 1, "ann"), row(2, "t", 2, "bo"), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [ddl(10, "t", "ALTER TABLE t ADD COLUMN qty INT DEFAULT 5", DDLType.ADD_COLUMN),
              ddl(11, "t", "ALTER TABLE t DROP COLUMN name", DDLType.DROP_COLUMN),
              RowChangedEvent(13 << 18, "shop", "t", (Column("id", ColumnType.BIGINT, KEY, 3, "bigint(20)"),
                                                      Column("qty", ColumnType.INT, ColumnFlag.NULLABLE, 7, "int(11)"))),
              resolved(14)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second) == {"shop.t": {(1,): {"id": 1, "qty": 5}, (2,): {"id": 2, "qty": 5},
                                                                   (3,): {"id": 3, "qty": 7}}}


def test_a_run_killed_between_its_tables_commits_and_run_again_leaves_the_same_tables(spark, tmp_path) -> None:
    out = tmp_path / "out"
    first = [row(1, "t", 1, "a"), row(2, "t", 2, "b"), row(1, "u", 1, "x"), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    before = (out / STATE_FILE).read_bytes()
    second = [row(4, "t", 1, "a2"), row(5, "t", 3, "c"), row(6, "u", 2, "y"), resolved(7)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    # killed after shop.t's commit, before shop.u's and the state's: u back at its first snapshot
    (out / STATE_FILE).write_bytes(before)
    u = iceberg_tables.catalog(str(out)).load_table(("shop", "u"))
    u.manage_snapshots().rollback_to_snapshot(u.snapshots()[0].snapshot_id).commit()
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second)
    t = iceberg_tables.catalog(str(out)).load_table(("shop", "t"))
    assert len(t.snapshots()) == 2  # the re-run committed nothing twice to the table already applied


def bucket_files(out: Path, name: str) -> dict[str, list]:
    """The table's current files by bucket name (bucket and B), each file's rows sorted by key."""
    import pyarrow.parquet as pq

    from cdcwire.spark.tables.table_buckets import bucket_of_name

    directory = iceberg_tables.table_directory(str(out), name)
    return {str(bucket_of_name(Path(f).name)): sorted(pq.read_table(directory / f).to_pylist(), key=lambda r: r["id"])
            for f in iceberg_tables.active_files(str(out), name)}


def test_the_plan_per_table_writes_the_same_rows_into_the_same_buckets_as_the_one_plan(spark, tmp_path) -> None:
    from cdcwire.spark.runtime.session_settings import session_settings
    from cdcwire.spark.tables.table_apply import PLAN_SETTING
    from cdcwire.spark.tables.table_buckets import ROWS_PER_BUCKET_SETTING

    first = [row(k, "t", k, f"n{k}") for k in range(1, 13)] + [resolved(20)]
    second = [row(21, "t", 3, "changed"), RowChangedEvent(22 << 18, "shop", "t", None, row(0, "t", 5).columns),
              resolved(23)]
    found = {}
    for plan in ("one", "per-table"):
        with session_settings(spark, {PLAN_SETTING: plan, ROWS_PER_BUCKET_SETTING: "3"}):
            uri, out = source(tmp_path / plan, first), tmp_path / plan / "out"
            run(spark, uri, out)
            cdcwire.write(uri, cdcwire.encode(uri, second))
            run(spark, uri, out)
        assert tables_in(out) == replay(first + second)
        found[plan] = bucket_files(out, "shop.t")
    assert found["one"] == found["per-table"] and len(found["one"]) == 4


def test_a_table_that_outgrows_its_buckets_is_bucketed_anew_for_its_size(spark, tmp_path) -> None:
    from cdcwire.spark.runtime.session_settings import session_settings
    from cdcwire.spark.tables.table_buckets import ROWS_PER_BUCKET_SETTING, bucket_of_name

    out, first = tmp_path / "out", [row(1, "t", 1), row(2, "t", 2), resolved(3)]
    later = [row(10 + k, "t", k) for k in range(3, 13)] + [resolved(30)]
    with session_settings(spark, {ROWS_PER_BUCKET_SETTING: "1"}):
        uri = source(tmp_path, first)
        run(spark, uri, out)
        assert {bucket_of_name(Path(f).name)[1] for f in iceberg_tables.active_files(str(out), "shop.t")} == {2}
        cdcwire.write(uri, cdcwire.encode(uri, later))
        run(spark, uri, out)  # 12 rows in 2 buckets sized for 1 row each: past 4 times their size
    assert {bucket_of_name(Path(f).name)[1] for f in iceberg_tables.active_files(str(out), "shop.t")} == {12}
    assert tables_in(out) == replay(first + later)


def test_the_command_keeps_iceberg_tables_in_the_catalog_its_properties_name(spark, tmp_path, capsys) -> None:
    from cdcwire.cli import main

    events = [row(1, "t", 1, "a"), row(2, "t", 2, "b"), resolved(3)]
    uri, out, db = source(tmp_path, events), tmp_path / "out", tmp_path / "elsewhere.db"
    properties = {"type": "sql", "uri": f"sqlite:///{db}", "warehouse": out.as_uri()}
    flags = [f for k, v in properties.items() for f in ("--catalog-property", f"{k}={v}")]
    assert main(["materialize", uri, "--out", str(out), "--format", "iceberg", "--quiet", *flags]) == 0
    assert "materialized 1 table(s)" in capsys.readouterr().out
    table = iceberg_tables.catalog(str(out), properties).load_table(("shop", "t"))
    assert {(r["id"],): r for r in table.scan().to_arrow().to_pylist()} == replay(events)["shop.t"]
    assert iceberg_tables.tables_in(str(out)) == []  # not in the default catalog under OUT


def renamed(ts: int, old: str, new: str):
    """RENAME TABLE as TiCDC sends it: in the new name's schema and table."""
    schema, table = new.split(".")
    return ddl(ts, table, f"RENAME TABLE {old} TO {new}", DDLType.RENAME_TABLE, schema)


def test_a_table_an_earlier_run_wrote_keeps_its_rows_under_its_new_name_in_the_catalog(spark, tmp_path) -> None:
    out, first = tmp_path / "out", [row(1, "a", 1, "x"), row(2, "a", 2, "y"), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [renamed(4, "shop.a", "shop.b"), row(5, "b", 1, "x2"), row(6, "b", 3, "z"), resolved(7)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second) == {"shop.b": {(1,): {"id": 1, "name": "x2"}, (2,): {"id": 2, "name": "y"},
                                                                   (3,): {"id": 3, "name": "z"}}}
    b = iceberg_tables.catalog(str(out)).load_table(("shop", "b"))
    assert len(b.snapshots()) == 2  # the table itself renamed: its history kept


def test_a_table_renamed_into_another_schema_moves_to_that_namespace(spark, tmp_path) -> None:
    out, first = tmp_path / "out", [row(1, "a", 1, "x"), resolved(2)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [renamed(3, "shop.a", "archive.a"), resolved(4)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second) == {"archive.a": {(1,): {"id": 1, "name": "x"}}}
    assert ("archive", "a") in iceberg_tables.catalog(str(out)).list_tables("archive")


def test_two_tables_swapped_by_renames_at_one_ts_come_out_swapped(spark, tmp_path) -> None:
    out, first = tmp_path / "out", [row(1, "a", 1, "from-a"), row(2, "b", 2, "from-b"), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [renamed(4, "shop.a", "shop.tmp"), renamed(4, "shop.b", "shop.a"), renamed(4, "shop.tmp", "shop.b"),
              row(5, "a", 3, "new-in-a"), resolved(6)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second)
    assert set(tables_in(out)["shop.a"]) == {(2,), (3,)} and set(tables_in(out)["shop.b"]) == {(1,)}


def test_a_table_created_under_a_renamed_tables_old_name_gets_a_directory_of_its_own(spark, tmp_path) -> None:
    out, first = tmp_path / "out", [row(1, "a", 1, "old"), resolved(2)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [renamed(3, "shop.a", "shop.b"), row(4, "a", 7, "new"), resolved(5)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second)
    cat = iceberg_tables.catalog(str(out))
    assert cat.load_table(("shop", "b")).location().endswith("/shop.a")
    assert cat.load_table(("shop", "a")).location().endswith("/shop.a-2")


def test_a_run_killed_in_the_middle_of_its_renames_finishes_them_when_run_again(spark, tmp_path, monkeypatch) -> None:
    from cdcwire.spark.tables import iceberg_renames

    out, first = tmp_path / "out", [row(1, "a", 1, "from-a"), row(2, "b", 2, "from-b"), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out)
    second = [renamed(4, "shop.a", "shop.tmp"), renamed(4, "shop.b", "shop.a"), renamed(4, "shop.tmp", "shop.b"),
              resolved(5)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    renaming = iceberg_renames.rename_iceberg_tables

    def killed_after_the_first_phase(out_, journal, saved, properties=None):
        def saved_then_killed(renamed_journal):
            saved(renamed_journal)
            raise KeyboardInterrupt  # the run dies with both tables in the renaming namespace

        renaming(out_, journal, saved_then_killed, properties)

    monkeypatch.setattr("cdcwire.spark.tables.materialize.rename_iceberg_tables", killed_after_the_first_phase)
    with pytest.raises(KeyboardInterrupt):
        run(spark, uri, out)
    assert tables_in(out) == {}
    monkeypatch.undo()
    run(spark, uri, out)
    assert tables_in(out) == replay(first + second) == {"shop.a": {(2,): {"id": 2, "name": "from-b"}},
                                                        "shop.b": {(1,): {"id": 1, "name": "from-a"}}}
