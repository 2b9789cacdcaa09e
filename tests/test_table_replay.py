"""The replay oracle (tests/table_replay.py) runs each DDL as a downstream database would: the
tables it leaves are what materialize is compared with."""

from __future__ import annotations

from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, RowChangedEvent

from table_replay import column_changes, replay

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def _row(ts: int, table: str, key: int, name: str = "x", schema: str = "shop") -> RowChangedEvent:
    return RowChangedEvent(ts, schema, table, (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
                                               Column("name", ColumnType.VARCHAR, ColumnFlag.NULLABLE, name, "varchar(8)")))


def _ddl(ts: int, table: str, query: str, kind: DDLType, schema: str = "shop") -> DDLEvent:
    return DDLEvent(ts, schema, table, query, kind)


def test_a_truncate_keeps_only_the_rows_after_it() -> None:
    events = [*(_row(i, "trunc", i) for i in range(1, 6)), _ddl(10, "trunc", "TRUNCATE TABLE trunc", DDLType.TRUNCATE_TABLE),
              _row(11, "trunc", 6), _row(12, "trunc", 7)]
    assert sorted(replay(events)["shop.trunc"]) == [(6,), (7,)]


def test_a_dropped_and_created_table_holds_only_the_rows_after_the_create() -> None:
    events = [*(_row(i, "dropped", i) for i in range(1, 6)), _ddl(10, "dropped", "DROP TABLE dropped", DDLType.DROP_TABLE),
              _ddl(11, "dropped", "CREATE TABLE dropped (id BIGINT PRIMARY KEY, name VARCHAR(8))", DDLType.CREATE_TABLE),
              _row(12, "dropped", 9)]
    assert list(replay(events)["shop.dropped"]) == [(9,)]


def test_a_dropped_database_takes_its_tables_and_leaves_the_others() -> None:
    events = [_row(1, "a", 1), _row(2, "b", 1), _row(3, "c", 1, schema="app"),
              _ddl(10, "", "DROP DATABASE shop", DDLType.DROP_SCHEMA)]
    assert set(replay(events)) == {"app.c"}


def test_an_added_column_gives_the_earlier_rows_its_default() -> None:
    events = [_row(1, "t", 1), _ddl(2, "t", "ALTER TABLE t ADD COLUMN qty INT NOT NULL DEFAULT 5", DDLType.ADD_COLUMN)]
    assert replay(events)["shop.t"][(1,)] == {"id": 1, "name": "x", "qty": 5}


def test_dropped_and_renamed_columns_leave_and_move_the_values() -> None:
    events = [_row(1, "t", 1, "ann"), _ddl(2, "t", "ALTER TABLE t RENAME COLUMN name TO label", DDLType.MODIFY_COLUMN),
              _ddl(3, "t", "ALTER TABLE t ADD COLUMN note VARCHAR(8) DEFAULT 'n'", DDLType.ADD_COLUMN),
              _ddl(4, "t", "ALTER TABLE t DROP COLUMN note", DDLType.DROP_COLUMN)]
    assert replay(events)["shop.t"][(1,)] == {"id": 1, "label": "ann"}


def test_column_changes_read_each_change_of_an_alter_table() -> None:
    query = ("ALTER TABLE `shop`.`t` ADD COLUMN a INT DEFAULT -1, DROP COLUMN IF EXISTS b, CHANGE c d BIGINT,"
             " MODIFY e TEXT, ADD INDEX i (a)")
    assert column_changes(query) == [("add", "a", -1), ("drop", "b"), ("rename", "c", "d")]
