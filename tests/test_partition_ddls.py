"""Which rows a partition truncate or drop removes, from the partitioning the DDLs gave (no
Spark job): learnt in commit-ts order across runs, as pyarrow row filters for stored files."""

import datetime
import pickle

import pyarrow as pa

from cdcwire.spark.tables.column_ddls import arrow_transform
from cdcwire.spark.tables.partition_ddls import learn
from cdcwire.spark.tables.table_state import TablesState


def _ddl(ts: int, query: str, kind: str, table: str = "t") -> dict:
    return {"commit_ts": ts, "schema": "s", "table": table, "ddl_type": kind, "query": query}


CREATE = _ddl(1, "CREATE TABLE t (id INT, PRIMARY KEY (id)) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN"
                 " (10), PARTITION p1 VALUES LESS THAN (20), PARTITION p2 VALUES LESS THAN MAXVALUE)", "CREATE_TABLE")


def test_a_range_partition_holds_the_values_from_the_bound_of_the_one_before_it_still_there() -> None:
    _, [dropped, truncated] = learn([CREATE, _ddl(2, "ALTER TABLE t DROP PARTITION p1", "DROP_TABLE_PARTITION"),
                                     _ddl(3, "ALTER TABLE t TRUNCATE PARTITION p2", "TRUNCATE_TABLE_PARTITION")], {}, None)
    assert [v for v in range(0, 30, 5) if dropped.contains(v)] == [10, 15]
    assert [v for v in range(0, 30, 5) if truncated.contains(v)] == [10, 15, 20, 25]


def test_the_partitioning_learnt_in_one_run_serves_the_next_and_a_rename_carries_it() -> None:
    known, _ = learn([CREATE, _ddl(2, "RENAME TABLE t TO u", "RENAME_TABLE", "u")], {}, None)
    _, [wipe] = learn([_ddl(5, "ALTER TABLE u TRUNCATE PARTITION p0", "TRUNCATE_TABLE_PARTITION", "u")], known, None)
    assert wipe.table == "s.u" and wipe.contains(None) and wipe.contains(-3) and not wipe.contains(10)


def test_a_ddl_above_the_release_point_teaches_nothing_yet() -> None:
    known, wipes = learn([CREATE, _ddl(9, "ALTER TABLE t TRUNCATE PARTITION p0", "TRUNCATE_TABLE_PARTITION")], {}, 5)
    assert "s.t" in known and wipes == []


def test_a_partition_of_a_table_created_before_the_stream_is_not_known() -> None:
    _, [wipe] = learn([_ddl(2, "ALTER TABLE t TRUNCATE PARTITION p0", "TRUNCATE_TABLE_PARTITION")], {}, None)
    assert wipe.partitioning is None


def test_a_list_columns_partition_over_dates_filters_the_stored_rows_of_a_file() -> None:
    create = _ddl(1, "CREATE TABLE t (d DATE PRIMARY KEY) PARTITION BY RANGE COLUMNS (d) (PARTITION old VALUES LESS"
                     " THAN ('2020-01-01'), PARTITION new VALUES LESS THAN (MAXVALUE))", "CREATE_TABLE")
    _, [wipe] = learn([create, _ddl(2, "ALTER TABLE t TRUNCATE PARTITION old", "TRUNCATE_TABLE_PARTITION")], {}, None)
    rows = pa.table({"d": [datetime.date(2019, 12, 31), datetime.date(2020, 1, 1), None]})
    kept = pickle.loads(pickle.dumps(arrow_transform([wipe])))(rows)
    assert kept.column("d").to_pylist() == [datetime.date(2020, 1, 1)]


def test_a_year_range_partition_and_add_and_reorganize_partition() -> None:
    create = _ddl(1, "CREATE TABLE t (id INT, d DATETIME, PRIMARY KEY (id, d)) PARTITION BY RANGE (YEAR(d))"
                     " (PARTITION p19 VALUES LESS THAN (2020))", "CREATE_TABLE")
    known, [wipe] = learn([create, _ddl(2, "ALTER TABLE t ADD PARTITION (PARTITION p20 VALUES LESS THAN (2021))",
                                        "ADD_TABLE_PARTITION"),
                           _ddl(3, "ALTER TABLE t REORGANIZE PARTITION p20 INTO (PARTITION a VALUES LESS THAN (2020),"
                                   " PARTITION b VALUES LESS THAN (2021))", "REORGANIZE_PARTITION"),
                           _ddl(4, "ALTER TABLE t TRUNCATE PARTITION b", "TRUNCATE_TABLE_PARTITION")], {}, None)
    assert [p[0] for p in known["s.t"]["parts"]] == ["p19", "a", "b"]
    assert wipe.contains("2020-06-01 10:00:00") and not wipe.contains(datetime.datetime(2019, 6, 1))


def test_a_state_written_before_partitions_were_kept_loads_with_none(tmp_path) -> None:
    state = TablesState("parquet", run=1)
    state.save(str(tmp_path))
    path = tmp_path / "_cdcwire_state.json"
    import json

    doc = json.loads(path.read_text())
    del doc["partitions"]
    path.write_text(json.dumps(doc))
    assert TablesState.load(str(tmp_path), "parquet").partitions == {}
