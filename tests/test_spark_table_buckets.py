"""The bucket layout of materialized tables: a run rewrites only the buckets its changes touch,
and what it writes stays an ordinary Parquet directory or Delta table."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
import pytest

from cdcwire.spark.runtime.session_settings import session_settings
from cdcwire.spark.tables.table_buckets import GROW_AT, ROWS_PER_BUCKET, ROWS_PER_BUCKET_SETTING, bucket_of_name
from cdcwire.spark.tables.table_state import TablesState

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
T = ColumnType
ROWS = 40
PER_BUCKET = 4  # 40 rows over 10 buckets: most buckets hold a few rows


@pytest.fixture(autouse=True)
def small_buckets(spark):
    with session_settings(spark, {ROWS_PER_BUCKET_SETTING: str(PER_BUCKET)}):
        yield


def _image(key: int, name: str) -> tuple[Column, ...]:
    return (
        Column("id", T.BIGINT, KEY, key, "bigint(20)"),
        Column("name", T.VARCHAR, ColumnFlag.NULLABLE, name, "varchar(32)"),
        Column("at", T.DATETIME, ColumnFlag.NULLABLE, f"2024-01-02 03:04:{key % 60:02d}", "datetime"),
        Column("seen", T.TIMESTAMP, ColumnFlag.NULLABLE, f"2024-05-06 07:08:{key % 60:02d}", "timestamp"),
    )


def _source(tmp_path: Path, events: list) -> str:
    uri = f"file://{tmp_path}/src/orders?protocol=canal-json&partition-num=1&enable-tidb-extension=true"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def _first_run(spark, tmp_path: Path, fmt: str) -> tuple[str, Path]:
    events = [RowChangedEvent((10 + k) << 18, "shop", "orders", _image(k, f"n{k}")) for k in range(1, ROWS + 1)]
    uri = _source(tmp_path, [*events, ResolvedEvent(100 << 18)])
    out = tmp_path / "tables"
    cs.materialize(spark, uri, str(out), format=fmt)
    return uri, out


def _update_one_key(spark, uri: str, out: Path, fmt: str) -> None:
    later = [RowChangedEvent(200 << 18, "shop", "orders", _image(7, "changed"), _image(7, "n7")), ResolvedEvent(201 << 18)]
    cdcwire.write(uri, cdcwire.encode(uri, later))
    cs.materialize(spark, uri, str(out), format=fmt)


def _buckets(names) -> set[int]:
    return {bucket_of_name(Path(n).name)[0] for n in names}


def _snapshot(out: Path) -> Path:
    return out / TablesState.load(str(out), "parquet").snapshots["shop.orders"]


def _delta_files(out: Path) -> set[str]:
    from deltalake import DeltaTable

    return set(DeltaTable(str(out / "shop.orders")).file_uris())


def _rows_of_parquet(directory: Path) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(directory).to_pylist()


def test_a_parquet_run_changing_one_bucket_hard_links_every_other_buckets_files(updated) -> None:
    before, out = updated("parquet")
    assert len(_buckets(before)) > 5  # several buckets hold rows
    after = {f.name: f.stat() for f in _snapshot(out).glob("*.parquet")}
    rewritten = set(after) - set(before)
    assert len(_buckets(rewritten)) == 1 and _buckets(set(before) - set(after)) == _buckets(rewritten)
    for name in set(after) & set(before):
        assert (after[name].st_ino, after[name].st_mtime_ns) == (before[name].st_ino, before[name].st_mtime_ns), name
    names = {r["id"]: r["name"] for r in _rows_of_parquet(_snapshot(out))}
    assert names[7] == "changed" and len(names) == ROWS


@pytest.fixture(scope="module")
def updated(spark, tmp_path_factory):
    """``updated(fmt)``: a table of ROWS rows after a run updating one key (the one plan, small
    buckets), made once per format for the tests that only read it: (what was there before the
    update: Delta's files, or each Parquet file's stat by name; OUT)."""
    made = {}

    def table(fmt: str):
        if fmt not in made:
            from cdcwire.spark.tables.table_apply import PLAN_SETTING

            with session_settings(spark, {ROWS_PER_BUCKET_SETTING: str(PER_BUCKET), PLAN_SETTING: "one"}):
                uri, out = _first_run(spark, tmp_path_factory.mktemp(f"updated-{fmt}"), fmt)
                before = _delta_files(out) if fmt == "delta" else {f.name: f.stat() for f in _snapshot(out).glob("*.parquet")}
                _update_one_key(spark, uri, out, fmt)
            made[fmt] = before, out
        return made[fmt]
    return table


@pytest.fixture
def delta_updated(updated) -> tuple[set[str], Path]:
    return updated("delta")


def test_a_delta_run_changing_one_bucket_keeps_every_other_buckets_files_active(delta_updated) -> None:
    before, out = delta_updated
    after = _delta_files(out)
    assert len(_buckets(after - before)) == 1 and _buckets(before - after) == _buckets(after - before)
    assert len(before & after) == len(before) - len(before - after) > 0


def test_a_delta_table_reads_back_the_same_through_deltalake_and_spark_parquet_of_its_files(spark, delta_updated) -> None:
    from deltalake import DeltaTable

    _, out = delta_updated
    table = DeltaTable(str(out / "shop.orders"))
    types = {f.name: f.type.type for f in table.schema().fields}
    assert (types["at"], types["seen"]) == ("timestamp_ntz", "timestamp")
    rows = {r["id"]: r for r in table.to_pyarrow_table().to_pylist()}
    assert len(rows) == ROWS and rows[7]["name"] == "changed"
    assert rows[3]["at"] == dt.datetime(2024, 1, 2, 3, 4, 3)
    assert rows[3]["seen"] == dt.datetime(2024, 5, 6, 7, 8, 3, tzinfo=dt.timezone.utc)
    by_spark = spark.read.parquet(*table.file_uris()).select("id", "name", "at").collect()
    assert {r["id"]: (r["name"], r["at"]) for r in by_spark} == {k: (r["name"], r["at"]) for k, r in rows.items()}


def test_a_snapshot_of_files_named_for_no_bucket_is_rewritten_into_buckets_by_the_next_run(spark, tmp_path) -> None:
    uri, out = _first_run(spark, tmp_path, "parquet")
    for n, f in enumerate(sorted(_snapshot(out).glob("*.parquet"))):  # as an older cdcwire wrote snapshots
        f.rename(f.with_name(f"part-{n:05d}.snappy.parquet"))
    _update_one_key(spark, uri, out, "parquet")
    names = [f.name for f in _snapshot(out).glob("*.parquet")]
    assert names and all(bucket_of_name(n) for n in names)
    rows = {r["id"]: r["name"] for r in _rows_of_parquet(_snapshot(out))}
    assert len(rows) == ROWS and rows[7] == "changed"


def test_a_new_tables_inserted_count_leaves_out_the_keys_the_run_deleted(spark, tmp_path) -> None:
    events = [RowChangedEvent((10 + k) << 18, "shop", "orders", _image(k, f"n{k}")) for k in range(1, 6)]
    events.append(RowChangedEvent(20 << 18, "shop", "orders", None, _image(2, "n2")))
    summary = cs.materialize(spark, _source(tmp_path, [*events, ResolvedEvent(30 << 18)]), str(tmp_path / "tables"))
    assert summary.tables["shop.orders"].inserted == len(_rows_of_parquet(_snapshot(tmp_path / "tables"))) == 4


def test_a_small_table_on_the_default_bucket_size_is_one_file(spark, tmp_path) -> None:
    with session_settings(spark, {ROWS_PER_BUCKET_SETTING: str(ROWS_PER_BUCKET)}):
        _, out = _first_run(spark, tmp_path, "parquet")
    assert [bucket_of_name(f.name)[:2] for f in _snapshot(out).glob("*.parquet")] == [(0, 1)]


def test_a_table_that_outgrows_its_buckets_is_bucketed_anew_for_its_size(spark, tmp_path) -> None:
    uri, out = _first_run(spark, tmp_path, "parquet")
    buckets = {bucket_of_name(f.name)[1] for f in _snapshot(out).glob("*.parquet")}
    assert buckets == {ROWS // PER_BUCKET}
    more = ROWS * GROW_AT  # past GROW_AT times the rows its buckets were sized for
    later = [RowChangedEvent((300 + k) << 18, "shop", "orders", _image(k, f"m{k}")) for k in range(ROWS + 1, ROWS + more + 1)]
    cdcwire.write(uri, cdcwire.encode(uri, [*later, ResolvedEvent(5000 << 18)]))
    cs.materialize(spark, uri, str(out))
    names = [f.name for f in _snapshot(out).glob("*.parquet")]
    assert {bucket_of_name(n)[1] for n in names} == {(ROWS + more) // PER_BUCKET}
    assert len(_rows_of_parquet(_snapshot(out))) == ROWS + more


@pytest.mark.parametrize("fmt", ["parquet", "delta"])
def test_the_one_plan_and_the_plan_per_table_write_the_same_rows_into_the_same_buckets(spark, tmp_path, updated,
                                                                                         fmt) -> None:
    from cdcwire.spark.tables.table_apply import PLAN_SETTING

    found = {}
    for plan in ("one", "per-table"):
        if plan == "one":  # the shared table, made with the one plan
            _, out = updated(fmt)
        else:
            with session_settings(spark, {PLAN_SETTING: plan}):
                uri, out = _first_run(spark, tmp_path / plan, fmt)
                _update_one_key(spark, uri, out, fmt)
        directory = _snapshot(out) if fmt == "parquet" else out / "shop.orders"
        files = _delta_files(out) if fmt == "delta" else {f.name for f in directory.glob("*.parquet")}
        import pyarrow.parquet as pq

        found[plan] = {bucket_of_name(Path(n).name)[0]: sorted(pq.read_table(directory / n).to_pylist(), key=lambda r: r["id"])
                       for n in files}
    assert found["one"] == found["per-table"] and len(found["one"]) > 5


def test_a_rows_per_bucket_that_is_not_a_number_is_refused_naming_the_setting(spark, tmp_path) -> None:
    from cdcwire import CdcwireError

    with session_settings(spark, {ROWS_PER_BUCKET_SETTING: "lots"}), pytest.raises(CdcwireError, match="rowsPerBucket='lots'"):
        _first_run(spark, tmp_path, "parquet")
