"""The Iceberg tables' commits (cdcwire.spark.tables.iceberg_tables): files written as the
executors write them (plain Parquet under the table's ``data/``), committed by the driver,
read back by PyIceberg's scan and by polars' own Parquet reader. No Spark."""

from __future__ import annotations

import subprocess
import sys
import uuid
import warnings
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cdcwire import CdcwireError
from cdcwire.spark.tables import iceberg_tables as ice
from cdcwire.spark.tables.table_buckets import Layout, file_name

TABLE = "shop.orders"


def write(out, rows: dict, bucket: int = 0, table: str = TABLE, schema: pa.Schema = None, properties=None) -> str:
    """A bucket file as an executor writes it; its name relative to the table's location."""
    directory = ice.data_directory(str(out), table, properties)
    directory.mkdir(parents=True, exist_ok=True)
    name = file_name(bucket, 16, 1, uuid.uuid4().hex[:8], 0)
    pq.write_table(pa.table(rows, schema=schema), directory / name)
    return f"{ice.DATA_DIR}/{name}"


def scanned(out, table: str = TABLE, properties=None) -> pa.Table:
    found = ice.catalog(str(out), properties).load_table(tuple(table.split(".", 1)))
    return found.scan().to_arrow().sort_by("id")


def polars_read(out, table: str = TABLE):
    import polars as pl

    found = ice.catalog(str(out)).load_table(tuple(table.split(".", 1)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # polars plans with PyIceberg when its planner plugin is absent
        return pl.scan_iceberg(found).collect().sort("id")


def test_a_first_commit_creates_the_table_in_its_schemas_namespace_in_the_default_catalog(tmp_path):
    name = write(tmp_path, {"id": [1, 2], "note": ["a", "b"]})

    assert ice.commit_files(str(tmp_path), TABLE, [name], [], applied=100)

    assert (tmp_path / ice.CATALOG_FILE).is_file()
    cat = ice.catalog(str(tmp_path))
    assert ("shop",) in cat.list_namespaces() and ("shop", "orders") in cat.list_tables("shop")
    assert scanned(tmp_path).to_pydict() == {"id": [1, 2], "note": ["a", "b"]}
    assert cat.load_table(("shop", "orders")).location() == ice.table_location(str(tmp_path), TABLE)


def test_polars_reads_the_committed_files_through_the_name_mapping(tmp_path):
    name = write(tmp_path, {"id": pa.array([1, 2], pa.int32()), "at": pa.array([5, 6], pa.timestamp("us", tz="UTC")),
                            "price": pa.array([Decimal("1.50"), None], pa.decimal128(9, 2))})
    ice.commit_files(str(tmp_path), TABLE, [name], [], applied=100)

    assert polars_read(tmp_path).to_arrow().to_pydict() == scanned(tmp_path).to_pydict()
    assert polars_read(tmp_path)["price"].to_list() == [Decimal("1.50"), None]


def test_a_commit_adds_and_removes_files_in_one_snapshot(tmp_path):
    old = write(tmp_path, {"id": [1, 2], "note": ["a", "b"]}, bucket=0)
    kept = write(tmp_path, {"id": [3], "note": ["c"]}, bucket=1)
    ice.commit_files(str(tmp_path), TABLE, [old, kept], [], applied=100)
    before = len(ice.catalog(str(tmp_path)).load_table(("shop", "orders")).snapshots())
    new = write(tmp_path, {"id": [2, 4], "note": ["b2", "d"]}, bucket=0)

    ice.commit_files(str(tmp_path), TABLE, [new], [old], applied=200)

    found = ice.catalog(str(tmp_path)).load_table(("shop", "orders"))
    assert len(found.snapshots()) == before + 1
    summary = found.current_snapshot().summary
    assert (summary["added-data-files"], summary["deleted-data-files"]) == ("1", "1")
    assert summary.operation.value == "overwrite"
    assert sorted(ice.active_files(str(tmp_path), TABLE)) == sorted([kept, new])
    assert scanned(tmp_path).to_pydict() == {"id": [2, 3, 4], "note": ["b2", "c", "d"]}
    assert polars_read(tmp_path)["note"].to_list() == ["b2", "c", "d"]


def test_a_commit_that_only_adds_files_is_an_append_snapshot(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2]}, bucket=1)], [], applied=200)

    found = ice.catalog(str(tmp_path)).load_table(("shop", "orders"))
    assert [s.summary.operation.value for s in found.snapshots()] == ["append", "append"]


def test_the_active_files_are_laid_out_by_bucket_from_their_names(tmp_path):
    names = [write(tmp_path, {"id": [i]}, bucket=i) for i in (0, 5)]
    ice.commit_files(str(tmp_path), TABLE, names, [], applied=100)

    layout = Layout.of(ice.active_files(str(tmp_path), TABLE))

    assert layout.buckets == 16 and sorted(layout.files) == [0, 5] and layout.unbucketed == []


def test_the_applied_ts_is_read_back_from_the_current_snapshots_summary(tmp_path):
    assert ice.applied_ts(str(tmp_path), TABLE) is None
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2]}, bucket=1)], [], applied=250)

    assert ice.applied_ts(str(tmp_path), TABLE) == 250
    summary = ice.catalog(str(tmp_path)).load_table(("shop", "orders")).current_snapshot().summary
    assert summary["cdcwire.applied_ts"] == "250"


def test_a_commit_redone_after_a_kill_adds_no_rows_twice(tmp_path):
    first = write(tmp_path, {"id": [1, 2]})
    ice.commit_files(str(tmp_path), TABLE, [first], [], applied=100)
    again = write(tmp_path, {"id": [3]}, bucket=1)
    assert ice.commit_files(str(tmp_path), TABLE, [again], [], applied=200)

    redone = ice.commit_files(str(tmp_path), TABLE, [again], [], applied=200)
    rewritten = ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [3]}, bucket=1)], [], applied=200)

    assert not redone and not rewritten
    assert scanned(tmp_path)["id"].to_pylist() == [1, 2, 3]


def test_a_column_added_upstream_is_added_to_the_table_and_old_files_read_it_as_null(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2], "note": ["n"]}, bucket=1)], [], applied=200)

    assert scanned(tmp_path).to_pydict() == {"id": [1, 2], "note": [None, "n"]}
    assert polars_read(tmp_path)["note"].to_list() == [None, "n"]


def test_int_float_and_decimal_columns_widen_through_icebergs_schema_update(tmp_path):
    narrow = pa.schema([("id", pa.int32()), ("ratio", pa.float32()), ("price", pa.decimal128(5, 2))])
    wide = pa.schema([("id", pa.int64()), ("ratio", pa.float64()), ("price", pa.decimal128(12, 2))])
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "ratio": [0.5], "price": [Decimal("1.25")]},
                                                  schema=narrow)], [], applied=100)

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2**40], "ratio": [0.25], "price": [Decimal("1234567.89")]},
                                                  bucket=1, schema=wide)], [], applied=200)

    rows = scanned(tmp_path)
    assert rows.schema == pa.schema([f.with_nullable(True) for f in wide])
    assert rows.to_pydict() == {"id": [1, 2**40], "ratio": [0.5, 0.25], "price": [Decimal("1.25"), Decimal("1234567.89")]}
    assert polars_read(tmp_path)["id"].to_list() == [1, 2**40]


def test_a_type_change_iceberg_does_not_allow_is_a_one_line_error(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "code": ["x"]})], [], applied=100)

    with pytest.raises(CdcwireError) as caught:
        ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2], "code": [7]}, bucket=1)], [], applied=200)

    assert "shop.orders" in str(caught.value) and "\n" not in str(caught.value)
    assert ice.applied_ts(str(tmp_path), TABLE) == 100


def test_a_file_already_in_the_table_is_not_added_again(tmp_path):
    first = write(tmp_path, {"id": [1]})
    ice.commit_files(str(tmp_path), TABLE, [first], [], applied=100)

    with pytest.raises(CdcwireError, match="in it already"):
        ice.commit_files(str(tmp_path), TABLE, [first], [], applied=200)

    assert scanned(tmp_path)["id"].to_pylist() == [1] and ice.applied_ts(str(tmp_path), TABLE) == 100


def test_a_file_whose_columns_the_schema_given_lacks_is_a_one_line_error(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)
    wider = write(tmp_path, {"id": [2], "note": ["n"]}, bucket=1)

    with pytest.raises(CdcwireError) as caught:
        ice.commit_files(str(tmp_path), TABLE, [wider], [], applied=200, schema=pa.schema([("id", pa.int64())]))

    assert wider in str(caught.value) and "\n" not in str(caught.value)
    assert ice.applied_ts(str(tmp_path), TABLE) == 100


def test_a_remove_of_a_file_not_in_the_table_is_an_error_and_commits_nothing(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)

    with pytest.raises(CdcwireError, match="not in its current snapshot"):
        ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2]}, bucket=1)], ["data/gone.parquet"], applied=200)

    assert scanned(tmp_path)["id"].to_pylist() == [1]


def test_a_renamed_column_is_rewritten_into_new_files_and_keeps_the_applied_ts(tmp_path):
    from cdcwire.spark.tables.column_ddls import ColumnChange, changed_arrow

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "note": ["a"]})], [], applied=100)
    rename = [ColumnChange(150, TABLE, "rename", "note", new="remark")]

    ice.change_files(str(tmp_path), TABLE, lambda rows: changed_arrow(rows, rename), run=2)

    assert scanned(tmp_path).to_pydict() == {"id": [1], "remark": ["a"]}
    assert polars_read(tmp_path).columns == ["id", "remark"] and ice.applied_ts(str(tmp_path), TABLE) == 100


def test_a_dropped_column_added_again_holds_only_the_new_values(tmp_path):
    from cdcwire.spark.tables.column_ddls import ColumnChange, changed_arrow

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "note": ["old"]})], [], applied=100)
    ice.change_files(str(tmp_path), TABLE, lambda rows: changed_arrow(rows, [ColumnChange(150, TABLE, "drop", "note")]),
                     run=2)

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2], "note": ["new"]}, bucket=1)], [], applied=200)

    assert scanned(tmp_path).to_pydict() == {"id": [1, 2], "note": [None, "new"]}


def test_a_column_ddl_keeps_the_columns_a_files_rows_lack(tmp_path):
    from cdcwire.spark.tables.column_ddls import ColumnChange, changed_arrow

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "code": ["x"]}, bucket=9)], [], applied=100)
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2], "code": ["y"], "note": ["n"]}, bucket=1)], [],
                     applied=200)

    ice.change_files(str(tmp_path), TABLE, lambda rows: changed_arrow(rows, [ColumnChange(250, TABLE, "drop", "code")]),
                     run=3)

    assert scanned(tmp_path).to_pydict() == {"id": [1, 2], "note": [None, "n"]}


def test_truncate_is_a_snapshot_that_removes_every_file_and_keeps_the_schema(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "note": ["a"]}),
                                           write(tmp_path, {"id": [2], "note": ["b"]}, bucket=1)], [], applied=100)

    assert ice.truncate_table(str(tmp_path), TABLE, applied=300)

    assert scanned(tmp_path).num_rows == 0 and scanned(tmp_path).column_names == ["id", "note"]
    assert ice.active_files(str(tmp_path), TABLE) == {} and ice.applied_ts(str(tmp_path), TABLE) == 300


def test_rows_after_a_wipe_make_the_table_anew_with_their_schema(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1], "note": ["a"], "code": ["x"]})], [], applied=100)

    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [5], "code": [9]}, bucket=3)], [], applied=200, wiped=True)

    assert scanned(tmp_path).to_pydict() == {"id": [5], "code": [9]}
    assert polars_read(tmp_path).to_arrow().to_pydict() == {"id": [5], "code": [9]}


def test_drop_removes_the_table_from_the_catalog_and_its_files(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)
    write(tmp_path, {"id": [2]}, bucket=1)  # written by a killed run, never committed

    ice.drop_table(str(tmp_path), TABLE)

    assert ice.catalog(str(tmp_path)).list_tables("shop") == []
    assert not (tmp_path / TABLE).exists() and ice.applied_ts(str(tmp_path), TABLE) is None


def test_another_catalog_is_named_by_its_properties(tmp_path):
    properties = {"type": "sql", "uri": f"sqlite:///{tmp_path / 'elsewhere.db'}", "warehouse": (tmp_path / "wh").as_uri()}
    out = tmp_path / "out"

    ice.commit_files(str(out), TABLE, [write(out, {"id": [1]}, properties=properties)], [], applied=100,
                     properties=properties)

    assert (tmp_path / "elsewhere.db").is_file() and not (out / ice.CATALOG_FILE).exists()
    assert scanned(out, properties=properties)["id"].to_pylist() == [1]
    assert ice.applied_ts(str(out), TABLE, properties) == 100


def test_a_commit_with_no_file_changes_still_records_the_applied_ts(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)

    assert ice.commit_files(str(tmp_path), TABLE, [], [], applied=200, schema=pa.schema([("id", pa.int64())]))

    assert ice.applied_ts(str(tmp_path), TABLE) == 200 and scanned(tmp_path)["id"].to_pylist() == [1]


def test_tables_committed_side_by_side_from_threads_share_the_sqlite_catalog(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    tables = [f"shop{i % 2}.t{i}" for i in range(6)]
    files = {table: write(tmp_path, {"id": [1, 2]}, table=table) for table in tables}

    with ThreadPoolExecutor(len(tables)) as pool:
        done = list(pool.map(lambda t: ice.commit_files(str(tmp_path), t, [files[t]], [], applied=100), tables))

    assert done == [True] * len(tables)
    assert [scanned(tmp_path, t).num_rows for t in tables] == [2] * len(tables)


def without(module: str, tmp_path) -> subprocess.CompletedProcess:
    """``applied_ts`` run in a fresh interpreter where ``module`` cannot be imported."""
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from cdcwire import CdcwireError\n"
        "from cdcwire.spark.tables.iceberg_tables import applied_ts\n"
        "try:\n"
        f"    applied_ts({str(tmp_path)!r}, 'shop.orders')\n"
        "except CdcwireError as exc:\n"
        "    print(exc)\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_without_the_iceberg_extra_the_commit_is_a_one_line_error_naming_it(tmp_path):
    done = without("pyiceberg", tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().count("\n") == 0 and "pip install 'cdcwire[iceberg]'" in done.stdout


def test_without_sqlalchemy_the_default_catalog_names_the_iceberg_extra(tmp_path):
    done = without("sqlalchemy", tmp_path)

    assert done.returncode == 0, done.stderr
    assert "needs sqlalchemy" in done.stdout and "pip install 'cdcwire[iceberg]'" in done.stdout


def test_snapshots_older_than_the_age_given_expire_with_the_files_only_they_read(tmp_path):
    import datetime as dt

    first = write(tmp_path, {"id": [1, 2]})
    ice.commit_files(str(tmp_path), TABLE, [first], [], applied=100)
    second = write(tmp_path, {"id": [1, 2, 3]})
    ice.commit_files(str(tmp_path), TABLE, [second], [first], applied=200)
    never_committed = write(tmp_path, {"id": [9]}, bucket=3)  # a killed run's

    expired = ice.expire_snapshots(str(tmp_path), older_than=dt.timedelta(0))

    found = ice.catalog(str(tmp_path)).load_table(("shop", "orders"))
    assert expired == {TABLE: 1} and len(found.snapshots()) == 1
    assert scanned(tmp_path)["id"].to_pylist() == [1, 2, 3] and ice.applied_ts(str(tmp_path), TABLE) == 200
    data = ice.data_directory(str(tmp_path), TABLE)
    assert sorted(p.name for p in data.iterdir()) == [second.split("/")[-1]]  # not first, not never_committed


def test_snapshots_younger_than_the_age_given_are_kept(tmp_path):
    import datetime as dt

    first = write(tmp_path, {"id": [1]})
    ice.commit_files(str(tmp_path), TABLE, [first], [], applied=100)
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1, 2]})], [first], applied=200)

    assert ice.expire_snapshots(str(tmp_path), older_than=dt.timedelta(days=7)) == {}
    assert len(ice.catalog(str(tmp_path)).load_table(("shop", "orders")).snapshots()) == 2
    assert (ice.data_directory(str(tmp_path), TABLE) / first.split("/")[-1]).exists()


def test_within_one_run_the_catalog_is_opened_once_and_a_table_loaded_once(tmp_path):
    ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [1]})], [], applied=100)

    with ice.one_run(str(tmp_path)):
        cat = ice.catalog(str(tmp_path))
        loaded = ice.opened(str(tmp_path)).load(TABLE)
        ice.commit_files(str(tmp_path), TABLE, [write(tmp_path, {"id": [2]}, bucket=1)], [], applied=200)
        assert ice.catalog(str(tmp_path)) is cat and ice.opened(str(tmp_path)).load(TABLE) is loaded
        assert ice.applied_ts(str(tmp_path), TABLE) == 200  # the kept table is the committed one

    assert ice.catalog(str(tmp_path)) is not cat and scanned(tmp_path)["id"].to_pylist() == [1, 2]
