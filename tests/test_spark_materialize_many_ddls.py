"""A run holding hundreds of DDLs of one kind applies them with expressions whose size does not
grow with their number: each test runs 300 DDLs in one run with Spark's codegen fallback off,
so an expression that overflows the JVM's 64 KB method limit fails instead of running slowly
interpreted, and compares the tables with the replay (tests/table_replay.py)."""

from __future__ import annotations

import pytest

from cdcwire import Column, ColumnFlag, ColumnType, DDLType, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.runtime.session_settings import session_settings

from table_replay import replay
from test_spark_materialize_ddl import KEY, ddl, resolved, row, source, tables_in

MANY = 300


def materialize_without_fallback(spark, events: list, tmp_path):
    with session_settings(spark, {"spark.sql.codegen.fallback": "false"}):
        cs.materialize(spark, source(tmp_path, events), str(tmp_path / "out"))
    return tables_in(tmp_path / "out", "parquet")


@pytest.mark.long_because("300 TRUNCATEs in one run, the count at which one expression per DDL outgrew 64 KB")
def test_hundreds_of_truncates_in_one_run_leave_the_rows_after_the_last(spark, tmp_path) -> None:
    events = []
    for i in range(MANY):
        events += [row(2 * i + 1, "t", i), ddl(2 * i + 2, "t", "TRUNCATE TABLE t", DDLType.TRUNCATE_TABLE)]
    events += [row(2 * MANY + 1, "t", MANY), resolved(2 * MANY + 2)]
    assert materialize_without_fallback(spark, events, tmp_path) == replay(events) == {
        "shop.t": {(MANY,): {"id": MANY, "name": "x"}}}


def test_hundreds_of_renames_in_one_run_gather_every_row_under_the_last_name(spark, tmp_path) -> None:
    events = []
    for i in range(MANY):
        events += [row(2 * i + 1, f"t{i}", i), ddl(2 * i + 2, f"t{i + 1}", f"RENAME TABLE t{i} TO t{i + 1}",
                                                  DDLType.RENAME_TABLE)]
    events.append(resolved(2 * MANY + 1))
    found = materialize_without_fallback(spark, events, tmp_path)
    assert found == replay(events) and sorted(found) == [f"shop.t{MANY}"] and len(found[f"shop.t{MANY}"]) == MANY


def test_hundreds_of_column_renames_in_one_run_give_every_row_the_last_name(spark, tmp_path) -> None:
    def named(ts: int, key: int, column: str) -> RowChangedEvent:
        return RowChangedEvent(ts << 18, "shop", "t", (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
                                                       Column(column, ColumnType.VARCHAR, ColumnFlag.NULLABLE, "v",
                                                              "varchar(8)")))

    events = []
    for i in range(MANY):
        events += [named(2 * i + 1, i, f"c{i}"),
                   ddl(2 * i + 2, "t", f"ALTER TABLE t RENAME COLUMN c{i} TO c{i + 1}", DDLType.MODIFY_COLUMN)]
    events.append(resolved(2 * MANY + 1))
    found = materialize_without_fallback(spark, events, tmp_path)
    assert found == replay(events) and {tuple(r) for r in found["shop.t"].values()} == {("id", f"c{MANY}")}


def test_hundreds_of_partition_truncates_in_one_run_leave_the_rows_of_the_partitions_after_them(spark,
                                                                                                tmp_path) -> None:
    parts = ", ".join(f"PARTITION p{p} VALUES LESS THAN ({10 * (p + 1)})" for p in range(10))
    create = f"CREATE TABLE r (id BIGINT PRIMARY KEY, name VARCHAR(8)) PARTITION BY RANGE (id) ({parts})"
    events = [ddl(1, "r", create, DDLType.CREATE_TABLE)]
    for i in range(MANY):  # a row in partition i % 10, then a truncate of partition i % 7
        events += [row(2 * i + 2, "r", 10 * (i % 10) + i % 9),
                   ddl(2 * i + 3, "r", f"ALTER TABLE r TRUNCATE PARTITION p{i % 7}", DDLType.TRUNCATE_TABLE_PARTITION)]
    events.append(resolved(2 * MANY + 3))
    found = materialize_without_fallback(spark, events, tmp_path)
    assert found == replay(events) and 0 < len(found["shop.r"]) < 90
