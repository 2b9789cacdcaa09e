"""cs.materialize runs the DDLs of the stream as a replay does (tests/table_replay.py is the
replay): TRUNCATE TABLE empties a table, DROP TABLE / DROP DATABASE remove tables, a CREATE of a
dropped name starts empty; within one run and across runs, Parquet and Delta."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.tables.table_state import TablesState

from table_replay import replay

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def row(ts: int, table: str, key: int, name: str = "x", schema: str = "shop") -> RowChangedEvent:
    return RowChangedEvent(ts << 18, schema, table, (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
                                                     Column("name", ColumnType.VARCHAR, ColumnFlag.NULLABLE, name,
                                                            "varchar(8)")))


def ddl(ts: int, table: str, query: str, kind: DDLType, schema: str = "shop") -> DDLEvent:
    return DDLEvent(ts << 18, schema, table, query, kind)


def resolved(ts: int) -> ResolvedEvent:
    return ResolvedEvent(ts << 18)


def source_uri(tmp_path: Path) -> str:
    return f"file://{tmp_path}/src/db?protocol=canal-json&partition-num=1&enable-tidb-extension=true"


def source(tmp_path: Path, events: list) -> str:
    uri = source_uri(tmp_path)
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def tables_in(out: Path, fmt: str) -> dict[str, dict[tuple, dict]]:
    """Every table a reader finds under OUT: name -> key -> row."""
    if fmt == "delta":
        from deltalake import DeltaTable

        found = {d.name: DeltaTable(str(d)).to_pyarrow_table().to_pylist()
                 for d in sorted(out.iterdir()) if (d / "_delta_log").is_dir()}
    else:
        snapshots = TablesState.load(str(out), "parquet").snapshots
        found = {name: pq.read_table(out / d).to_pylist() for name, d in snapshots.items()}
    return {name: {(r["id"],): r for r in rows} for name, rows in found.items()}


def run(spark, uri: str, out: Path, fmt: str):
    return cs.materialize(spark, uri, str(out), format=fmt)


FIVE_ROWS = [row(i, "trunc", i) for i in range(1, 6)]

#: The runs many later-run tests start from, by name: five rows of shop.trunc, then its DROP.
FIRST = [*FIVE_ROWS, resolved(6)]
DROPPED = [ddl(10, "trunc", "DROP TABLE trunc", DDLType.DROP_TABLE), resolved(11)]
RUNS = {"five rows": FIRST, "dropped": DROPPED}


@pytest.fixture(scope="module")
def after_runs(spark, tmp_path_factory):
    """``after_runs(fmt, "five rows", "dropped")``: (uri, OUT) as the named runs left them, each
    run materialized once for the module and kept; a test gets its own copy to write on. The copy
    is always at one path: a run's state names its source's URI and refuses to continue another."""
    base = tmp_path_factory.mktemp("after-runs")
    here, kept = base / "here", {}

    def restore(fmt: str, *names: str) -> tuple[str, Path]:
        key = (fmt, *names)
        if key not in kept:
            if len(names) > 1:
                uri, out = restore(fmt, *names[:-1])
            else:
                shutil.rmtree(here, ignore_errors=True)
                uri, out = source_uri(here), here / "out"
            cdcwire.write(uri, cdcwire.encode(uri, RUNS[names[-1]]))
            run(spark, uri, out, fmt)
            kept[key] = base / "-".join(key)
            shutil.copytree(here, kept[key], symlinks=True)
        shutil.rmtree(here, ignore_errors=True)
        shutil.copytree(kept[key], here, symlinks=True)
        return source_uri(here), here / "out"
    return restore


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_truncate_keeps_only_the_rows_after_it(spark, tmp_path, fmt) -> None:
    events = [*FIVE_ROWS, ddl(10, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE),
              row(11, "trunc", 6), row(12, "trunc", 2, "again"), resolved(13)]
    run(spark, source(tmp_path, events), tmp_path / "out", fmt)
    assert tables_in(tmp_path / "out", fmt) == replay(events)


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_dropped_and_created_table_holds_only_the_rows_after_the_create(spark, tmp_path, fmt) -> None:
    events = [*(row(i, "dropped", i) for i in range(1, 6)), ddl(10, "dropped", "DROP TABLE dropped", DDLType.DROP_TABLE),
              ddl(11, "dropped", "CREATE TABLE dropped (id BIGINT PRIMARY KEY, name VARCHAR(8))", DDLType.CREATE_TABLE),
              row(12, "dropped", 9), resolved(13)]
    run(spark, source(tmp_path, events), tmp_path / "out", fmt)
    assert tables_in(tmp_path / "out", fmt) == replay(events)


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_table_truncated_in_a_later_run_is_left_empty_with_its_columns(spark, after_runs, fmt) -> None:
    (uri, out), first = after_runs(fmt, "five rows"), FIRST
    second = [ddl(10, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE), resolved(11)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, fmt)
    assert tables_in(out, fmt) == replay(first + second) == {"shop.trunc": {}}
    if fmt == "delta":
        from deltalake import DeltaTable

        table = DeltaTable(str(out / "shop.trunc"))
        assert [f.name for f in table.schema().fields] == ["id", "name"]
        assert table.history(1)[0]["operationParameters"]["mode"] == "Overwrite"
    else:
        snapshot = out / TablesState.load(str(out), "parquet").snapshots["shop.trunc"]
        assert pq.read_table(snapshot).column_names == ["id", "name"]


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_table_dropped_in_a_later_run_leaves_the_output(spark, tmp_path, fmt) -> None:
    out, first = tmp_path / "out", [*FIVE_ROWS, row(6, "kept", 1), resolved(7)]
    uri = source(tmp_path, first)
    run(spark, uri, out, fmt)
    second = [ddl(10, "trunc", "DROP TABLE trunc", DDLType.DROP_TABLE), resolved(11)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, fmt)
    assert tables_in(out, fmt) == replay(first + second) and not (out / "shop.trunc").exists()
    assert set(TablesState.load(str(out), fmt).applied) == {"shop.kept"}


def test_a_delta_table_dropped_and_created_again_in_a_later_run_has_only_the_new_columns(spark, after_runs) -> None:
    (uri, out), first = after_runs("delta", "five rows"), FIRST
    qty = RowChangedEvent(12 << 18, "shop", "trunc", (Column("id", ColumnType.BIGINT, KEY, 1, "bigint(20)"),
                                                      Column("qty", ColumnType.INT, ColumnFlag.NULLABLE, 3, "int(11)")))
    second = [ddl(10, "trunc", "DROP TABLE trunc", DDLType.DROP_TABLE),
              ddl(11, "trunc", "CREATE TABLE trunc (id BIGINT PRIMARY KEY, qty INT)", DDLType.CREATE_TABLE), qty,
              resolved(13)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, "delta")
    from deltalake import DeltaTable

    assert tables_in(out, "delta") == replay(first + second)
    assert [f.name for f in DeltaTable(str(out / "shop.trunc")).schema().fields] == ["id", "qty"]


def test_a_truncate_above_the_resolved_ts_waits_for_the_run_that_releases_it(spark, tmp_path) -> None:
    out = tmp_path / "out"
    first = [*FIVE_ROWS, resolved(6), ddl(10, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE), row(11, "trunc", 7)]
    uri = source(tmp_path, first)
    run(spark, uri, out, "parquet")
    assert tables_in(out, "parquet") == replay(first[:6])
    cdcwire.write(uri, cdcwire.encode(uri, [resolved(12)]))
    run(spark, uri, out, "parquet")
    assert tables_in(out, "parquet") == replay(first) and len(replay(first)["shop.trunc"]) == 1


def test_a_dropped_database_takes_its_tables_and_leaves_the_others(spark, tmp_path) -> None:
    out = tmp_path / "out"
    events = [row(1, "a", 1), row(2, "b", 1), row(3, "c", 1, schema="app"),
              ddl(10, "", "DROP DATABASE shop", DDLType.DROP_SCHEMA), row(11, "b", 2), resolved(12)]
    uri = source(tmp_path, events[:3] + [resolved(4)])
    run(spark, uri, out, "parquet")
    cdcwire.write(uri, cdcwire.encode(uri, events[3:]))
    run(spark, uri, out, "parquet")
    assert tables_in(out, "parquet") == replay(events)
    assert set(tables_in(out, "parquet")) == {"app.c", "shop.b"}


def test_a_truncate_in_a_later_run_with_rows_after_it_overwrites_the_delta_table_with_them(spark, after_runs) -> None:
    (uri, out), first = after_runs("delta", "five rows"), FIRST
    second = [row(8, "trunc", 1, "late"), ddl(10, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE),
              row(11, "trunc", 2, "new"), resolved(12)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, "delta")
    from deltalake import DeltaTable

    assert tables_in(out, "delta") == replay(first + second)
    assert DeltaTable(str(out / "shop.trunc")).history(1)[0]["operationParameters"]["mode"] == "Overwrite"


# -- the DDL policy -------------------------------------------------------------------------

TRUNCATED = [*FIVE_ROWS, ddl(10, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE), row(11, "trunc", 6),
             resolved(12)]


def test_skip_destructive_keeps_the_rows_a_truncate_removes_and_reports_it(spark, tmp_path) -> None:
    summary = cs.materialize(spark, source(tmp_path, TRUNCATED), str(tmp_path / "out"), ddl_policy="skip-destructive")
    assert tables_in(tmp_path / "out", "parquet") == replay([e for e in TRUNCATED if not isinstance(e, DDLEvent)])
    [seen] = summary.ddls["shop.trunc"]
    assert (seen.ddl_type, seen.action) == ("TRUNCATE_TABLE", "skipped (policy skip-destructive)")
    assert "TRUNCATE_TABLE: skipped (policy skip-destructive)" in summary.report()


def test_stop_stops_at_a_ddl_not_applied_naming_table_ddl_and_commit_ts_and_writes_nothing(spark, tmp_path,
                                                                                             capsys) -> None:
    from cdcwire.cli import main

    events = [*FIVE_ROWS, ddl(10, "trunc", "ALTER TABLE trunc TRUNCATE PARTITION p0", DDLType.TRUNCATE_TABLE_PARTITION),
              resolved(11)]
    uri, out = source(tmp_path, events), tmp_path / "out"
    assert main(["materialize", uri, "--out", str(out), "--ddl-policy", "stop", "--quiet"]) != 0
    assert (f"shop.trunc: DDL at commit ts {10 << 18} is not applied by materialize (TRUNCATE_TABLE_PARTITION: ALTER"
            " TABLE trunc TRUNCATE PARTITION p0)") in capsys.readouterr().err
    assert not (out / "_cdcwire_state.json").exists()


def test_an_excluded_ddl_kind_keeps_the_rows_and_the_summary_says_so(spark, tmp_path, capsys) -> None:
    from cdcwire.cli import main

    uri, out = source(tmp_path, TRUNCATED), tmp_path / "out"
    assert main(["materialize", uri, "--out", str(out), "--exclude-ddls", "TRUNCATE_TABLE", "--quiet"]) == 0
    assert tables_in(out, "parquet") == replay([e for e in TRUNCATED if not isinstance(e, DDLEvent)])
    printed = capsys.readouterr().out
    assert "DDLs (policy apply; exclude TRUNCATE_TABLE):" in printed
    assert "TRUNCATE_TABLE: skipped (its kind is left out by the include / exclude lists)" in printed


def test_a_ddl_kind_list_naming_no_kind_is_refused_before_spark_starts(tmp_path, capsys) -> None:
    from cdcwire.cli import main

    uri = source(tmp_path, TRUNCATED)
    assert main(["materialize", uri, "--out", str(tmp_path / "out"), "--include-ddls", "TRUNCATE", "--quiet"]) != 0
    assert "include_ddls: 'TRUNCATE' names no DDL kind" in capsys.readouterr().err


def test_the_summary_lists_each_tables_ddls_and_what_was_done(spark, tmp_path) -> None:
    events = [*TRUNCATED[:-1], ddl(13, "trunc", "ALTER TABLE trunc ADD INDEX i (name)", DDLType.ADD_INDEX),
              ddl(14, "trunc", "ALTER TABLE trunc EXCHANGE PARTITION p0 WITH TABLE t2", DDLType.EXCHANGE_TABLE_PARTITION),
              resolved(15)]
    summary = cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert [(d.ddl_type, d.action) for d in summary.ddls["shop.trunc"]] == [
        ("TRUNCATE_TABLE", "applied"), ("ADD_INDEX", "no effect on rows"), ("EXCHANGE_TABLE_PARTITION", "not applied")]


# -- column DDLs ---------------------------------------------------------------------------

def test_an_added_column_gives_the_rows_before_it_its_default_within_a_run(spark, tmp_path) -> None:
    added = RowChangedEvent(12 << 18, "shop", "t", (*row(0, "t", 3).columns,
                                                    Column("qty", ColumnType.INT, ColumnFlag.NULLABLE, 7, "int(11)")))
    events = [row(1, "t", 1), row(2, "t", 2),
              ddl(10, "t", "ALTER TABLE t ADD COLUMN qty INT NOT NULL DEFAULT 5", DDLType.ADD_COLUMN), added, resolved(13)]
    cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert tables_in(tmp_path / "out", "parquet") == replay(events)


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_column_added_with_a_default_that_no_later_row_carries_holds_the_default(spark, tmp_path, fmt) -> None:
    out, first = tmp_path / "out", [row(1, "t", 1), resolved(2)]
    uri = source(tmp_path, first)
    run(spark, uri, out, fmt)
    second = [row(3, "t", 2), ddl(10, "t", "ALTER TABLE t ADD COLUMN qty INT DEFAULT 7", DDLType.ADD_COLUMN),
              resolved(11)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, fmt)
    assert tables_in(out, fmt) == replay(first + second)
    assert [r["qty"] for r in tables_in(out, fmt)["shop.t"].values()] == [7, 7]


def test_a_column_added_by_a_bare_name_keeps_its_case_and_its_default(spark, tmp_path) -> None:
    added = RowChangedEvent(12 << 18, "shop", "t", (*row(0, "t", 3).columns,
                                                    Column("Qty", ColumnType.INT, ColumnFlag.NULLABLE, 9, "int(11)")))
    events = [row(1, "t", 1), ddl(10, "t", "ALTER TABLE t ADD COLUMN Qty INT DEFAULT 5", DDLType.ADD_COLUMN), added,
              resolved(13)]
    cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert tables_in(tmp_path / "out", "parquet") == replay(events)
    assert tables_in(tmp_path / "out", "parquet")["shop.t"][(1,)]["Qty"] == 5


def test_a_column_ddl_after_a_table_rename_changes_the_rows_from_before_the_rename(spark, tmp_path) -> None:
    events = [row(1, "old", 1, "ann"), ddl(5, "new", "RENAME TABLE old TO new", DDLType.RENAME_TABLE),
              ddl(10, "new", "ALTER TABLE new RENAME COLUMN name TO label", DDLType.MODIFY_COLUMN), resolved(13)]
    cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert tables_in(tmp_path / "out", "parquet") == replay(events) == {"shop.new": {(1,): {"id": 1, "label": "ann"}}}


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_columns_dropped_renamed_and_added_in_a_later_run_change_the_rows_of_earlier_runs(spark, tmp_path, fmt) -> None:
    out, first = tmp_path / "out", [row(1, "t", 1, "ann"), row(2, "t", 2, "bo"), resolved(3)]
    uri = source(tmp_path, first)
    run(spark, uri, out, fmt)
    second = [ddl(10, "t", "ALTER TABLE t RENAME COLUMN name TO label", DDLType.MODIFY_COLUMN),
              ddl(11, "t", "ALTER TABLE t ADD COLUMN note VARCHAR(8) DEFAULT 'n'", DDLType.ADD_COLUMN),
              ddl(12, "t", "ALTER TABLE t DROP COLUMN label", DDLType.DROP_COLUMN), resolved(13)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, fmt)
    assert tables_in(out, fmt) == replay(first + second) == {"shop.t": {(1,): {"id": 1, "note": "n"},
                                                                        (2,): {"id": 2, "note": "n"}}}


# -- MODIFY / CHANGE COLUMN with a new type -------------------------------------------------

def priced(ts: int, key: int, price: str, type_text: str = "decimal(5,2)") -> RowChangedEvent:
    return RowChangedEvent(ts << 18, "shop", "p", (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
                                                   Column("price", ColumnType.DECIMAL, ColumnFlag.NULLABLE, price,
                                                          type_text)))


def counted(ts: int, key: int, n: int, type_text: str = "bigint(20)") -> RowChangedEvent:
    code = ColumnType.TINYINT if type_text.startswith("tinyint") else ColumnType.BIGINT
    return RowChangedEvent(ts << 18, "shop", "c", (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
                                                   Column("n", code, ColumnFlag.NULLABLE, n, type_text)))


def typed_source(tmp_path: Path, events: list) -> str:
    """A canal-json source that carries each column's full type text (decimal(5,2), not decimal)."""
    uri = (f"file://{tmp_path}/src/db?protocol=canal-json&partition-num=1&enable-tidb-extension=true"
           "&content-compatible=true")
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def as_decimals(tables: dict) -> dict:
    from decimal import Decimal

    return {name: {k: {c: Decimal(v) if c == "price" and v is not None else v for c, v in r.items()}
                   for k, r in rows.items()} for name, rows in tables.items()}


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_decimal_scale_narrowed_in_a_later_run_rounds_the_stored_values_half_away_from_zero(spark, tmp_path,
                                                                                            fmt) -> None:
    out, first = tmp_path / "out", [priced(1, 1, "1.25"), priced(2, 2, "-2.35"), resolved(3)]
    uri = typed_source(tmp_path, first)
    run(spark, uri, out, fmt)
    second = [ddl(10, "p", "ALTER TABLE p MODIFY price DECIMAL(5,1)", DDLType.MODIFY_COLUMN),
              priced(11, 3, "7.5", "decimal(5,1)"), resolved(12)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, fmt)
    found = tables_in(out, fmt)
    assert found == as_decimals(replay(first + second))
    assert {k: str(r["price"]) for k, r in found["shop.p"].items()} == {(1,): "1.3", (2,): "-2.4", (3,): "7.5"}


def test_a_modify_within_a_run_converts_the_row_images_before_it(spark, tmp_path) -> None:
    events = [priced(1, 1, "1.25"), priced(2, 2, "3.00"),
              ddl(10, "p", "ALTER TABLE p CHANGE COLUMN price price DECIMAL(5,1)", DDLType.MODIFY_COLUMN),
              priced(11, 3, "7.5", "decimal(5,1)"), resolved(12)]
    cs.materialize(spark, typed_source(tmp_path, events), str(tmp_path / "out"))
    found = tables_in(tmp_path / "out", "parquet")
    assert found == as_decimals(replay(events))
    snapshot = tmp_path / "out" / TablesState.load(str(tmp_path / "out"), "parquet").snapshots["shop.p"]
    assert str(pq.read_schema(next(snapshot.glob("*.parquet"))).field("price").type) == "decimal128(5, 1)"


def test_a_modify_that_narrows_a_value_of_the_run_is_an_error_naming_table_column_key_and_value(spark,
                                                                                              tmp_path) -> None:
    events = [counted(1, 1, 5), counted(2, 2, 300), ddl(10, "c", "ALTER TABLE c MODIFY n TINYINT", DDLType.MODIFY_COLUMN),
              counted(11, 3, 7, "tinyint(4)"), resolved(12)]
    with pytest.raises(cdcwire.CdcwireError, match=r"shop.c: MODIFY of column n to tinyint changes the value '300' of"
                                                   r" the row id=2.*ddl_policy=\"skip-destructive\""):
        cs.materialize(spark, typed_source(tmp_path, events), str(tmp_path / "out"))
    assert not (tmp_path / "out" / "_cdcwire_state.json").exists()


def test_a_value_changed_to_fit_before_the_modify_is_not_refused(spark, tmp_path) -> None:
    events = [counted(1, 1, 300), counted(2, 1, 5), ddl(10, "c", "ALTER TABLE c MODIFY n TINYINT", DDLType.MODIFY_COLUMN),
              resolved(12)]
    cs.materialize(spark, typed_source(tmp_path, events), str(tmp_path / "out"))
    assert tables_in(tmp_path / "out", "parquet") == replay(events) == {"shop.c": {(1,): {"id": 1, "n": 5}}}


def test_skip_destructive_keeps_the_values_a_modify_would_refuse_and_reports_it(spark, tmp_path) -> None:
    events = [counted(1, 1, 300), ddl(10, "c", "ALTER TABLE c MODIFY n TINYINT", DDLType.MODIFY_COLUMN),
              counted(11, 3, 7, "tinyint(4)"), resolved(12)]
    summary = cs.materialize(spark, typed_source(tmp_path, events), str(tmp_path / "out"), ddl_policy="skip-destructive")
    assert tables_in(tmp_path / "out", "parquet") == replay([e for e in events if not isinstance(e, DDLEvent)])
    assert [d.action for d in summary.ddls["shop.c"]] == [
        "applied, values not converted to the new type (policy skip-destructive)"]


# -- partition DDLs ----------------------------------------------------------------------------

RANGED = ("CREATE TABLE r (id BIGINT PRIMARY KEY, name VARCHAR(8)) PARTITION BY RANGE (id)"
          " (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN (20), PARTITION p2 VALUES LESS THAN MAXVALUE)")
LISTED = ("CREATE TABLE l (id BIGINT PRIMARY KEY, name VARCHAR(8)) PARTITION BY LIST COLUMNS (id)"
          " (PARTITION odd VALUES IN (1, 3, 5), PARTITION even VALUES IN (2, 4, 6))")


def test_a_partition_truncated_within_a_run_loses_only_its_rows_before_the_ddl(spark, tmp_path) -> None:
    events = [ddl(1, "r", RANGED, DDLType.CREATE_TABLE), *(row(2 + i, "r", k) for i, k in enumerate((1, 5, 12, 25))),
              ddl(10, "r", "ALTER TABLE r TRUNCATE PARTITION p0", DDLType.TRUNCATE_TABLE_PARTITION), row(11, "r", 3),
              resolved(12)]
    summary = cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert tables_in(tmp_path / "out", "parquet") == replay(events)
    assert sorted(replay(events)["shop.r"]) == [(3,), (12,), (25,)]
    assert summary.ddls["shop.r"][-1].action == "applied"


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_partition_dropped_in_a_later_run_leaves_the_stored_rows_of_the_others(spark, tmp_path, fmt) -> None:
    out = tmp_path / "out"
    first = [ddl(1, "l", LISTED, DDLType.CREATE_TABLE), *(row(1 + k, "l", k) for k in range(1, 7)), resolved(8)]
    uri = source(tmp_path, first)
    run(spark, uri, out, fmt)
    assert TablesState.load(str(out), fmt).partitions["shop.l"]["kind"] == "list"
    second = [row(9, "l", 2, "new"), ddl(10, "l", "ALTER TABLE l DROP PARTITION odd", DDLType.DROP_TABLE_PARTITION),
              resolved(11)]
    cdcwire.write(uri, cdcwire.encode(uri, second))
    run(spark, uri, out, fmt)
    assert tables_in(out, fmt) == replay(first + second)
    assert sorted(replay(first + second)["shop.l"]) == [(2,), (4,), (6,)]
    assert [p[0] for p in TablesState.load(str(out), fmt).partitions["shop.l"]["parts"]] == ["even"]


def test_a_partition_ddl_of_a_table_whose_partitioning_is_unknown_is_an_error_naming_table_ddl_and_ts(spark,
                                                                                                    tmp_path) -> None:
    events = [*FIVE_ROWS, ddl(10, "trunc", "ALTER TABLE trunc TRUNCATE PARTITION p0", DDLType.TRUNCATE_TABLE_PARTITION),
              resolved(11)]
    with pytest.raises(cdcwire.CdcwireError, match=rf"shop.trunc: DDL at commit ts {10 << 18} is not applied by"
                                                   r" materialize \(TRUNCATE_TABLE_PARTITION: .*partitioning is not"
                                                   r' known.*ddl_policy="skip-destructive"'):
        cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert not (tmp_path / "out" / "_cdcwire_state.json").exists()


def test_skip_destructive_keeps_the_rows_of_a_truncated_partition_and_reports_it(spark, tmp_path) -> None:
    events = [*FIVE_ROWS, ddl(10, "trunc", "ALTER TABLE trunc TRUNCATE PARTITION p0", DDLType.TRUNCATE_TABLE_PARTITION),
              resolved(11)]
    summary = cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"), ddl_policy="skip-destructive")
    assert tables_in(tmp_path / "out", "parquet") == replay(FIVE_ROWS)
    assert [d.action for d in summary.ddls["shop.trunc"]] == ["skipped (policy skip-destructive)"]


# -- RECOVER / FLASHBACK TABLE -----------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_a_table_dropped_in_one_run_and_recovered_in_a_later_one_comes_back_with_its_rows(spark, after_runs,
                                                                                         fmt) -> None:
    (uri, out), first, dropped = after_runs(fmt, "five rows", "dropped"), FIRST, DROPPED
    assert "shop.trunc" not in tables_in(out, fmt) and not (out / "shop.trunc").exists()
    third = [ddl(20, "trunc", "RECOVER TABLE trunc", DDLType.RECOVER_TABLE), row(21, "trunc", 2, "late"),
             row(22, "trunc", 7), resolved(23)]
    cdcwire.write(uri, cdcwire.encode(uri, third))
    summary = run(spark, uri, out, fmt)
    assert tables_in(out, fmt) == replay(first + dropped + third) and len(replay(first + dropped + third)["shop.trunc"]) == 6
    assert [d.action for d in summary.ddls["shop.trunc"]] == ["applied"]
    assert TablesState.load(str(out), fmt).dropped == {} and not (out / "_cdcwire" / "dropped").exists()


def test_a_flashback_to_a_new_name_brings_the_dropped_rows_back_under_it(spark, after_runs) -> None:
    (uri, out), first, second = after_runs("parquet", "five rows", "dropped"), FIRST, DROPPED
    third = [ddl(20, "back", "FLASHBACK TABLE trunc TO back", DDLType.RECOVER_TABLE), resolved(21)]
    cdcwire.write(uri, cdcwire.encode(uri, third))
    run(spark, uri, out, "parquet")
    assert tables_in(out, "parquet") == replay(first + second + third) == {"shop.back": replay(first)["shop.trunc"]}


def test_a_create_of_the_dropped_name_ends_the_kept_copy_and_a_later_recover_is_reported_not_applied(spark,
                                                                                                    after_runs) -> None:
    uri, out = after_runs("parquet", "five rows", "dropped")
    assert len(TablesState.load(str(out), "parquet").dropped) == 1
    cdcwire.write(uri, cdcwire.encode(uri, [
        ddl(20, "trunc", "CREATE TABLE trunc (id BIGINT PRIMARY KEY, name VARCHAR(8))", DDLType.CREATE_TABLE),
        resolved(21)]))
    run(spark, uri, out, "parquet")
    assert TablesState.load(str(out), "parquet").dropped == {} and not (out / "_cdcwire" / "dropped").exists()
    cdcwire.write(uri, cdcwire.encode(uri, [ddl(30, "old", "FLASHBACK TABLE trunc TO old", DDLType.RECOVER_TABLE),
                                            resolved(31)]))
    summary = run(spark, uri, out, "parquet")
    assert [d.action for d in summary.ddls["shop.old"]] == ["not applied (no copy of the dropped table is kept)"]


def test_a_drop_and_recover_within_one_run_remove_nothing(spark, tmp_path) -> None:
    events = [*FIVE_ROWS, ddl(10, "trunc", "DROP TABLE trunc", DDLType.DROP_TABLE),
              ddl(11, "trunc", "RECOVER TABLE trunc", DDLType.RECOVER_TABLE), row(12, "trunc", 9), resolved(13)]
    cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    assert tables_in(tmp_path / "out", "parquet") == replay(events) and len(replay(events)["shop.trunc"]) == 6
