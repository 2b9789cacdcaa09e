"""What materialize reads from a column DDL's statement (no Spark): each add (with its DEFAULT
and type word), drop and rename of an ALTER TABLE, nothing for indexes and type changes."""

import pyarrow as pa

from cdcwire.spark.tables.column_ddls import ColumnChange, arrow_transform, changed_arrow, changes_of, with_added_columns
from cdcwire.spark.tables.table_types import TableColumn


def test_each_column_change_of_an_alter_table_is_read_with_its_default_and_type() -> None:
    query = ("ALTER TABLE `shop`.`t` ADD COLUMN a INT UNSIGNED DEFAULT -1, DROP COLUMN IF EXISTS b, CHANGE c d BIGINT,"
             " MODIFY e TEXT, ADD INDEX i (a), ADD COLUMN q varchar(3) DEFAULT 'z', RENAME COLUMN f TO g")
    ddl = {"commit_ts": 10, "schema": "shop", "table": "t", "ddl_type": "MULTI_SCHEMA_CHANGE", "query": query}
    assert [(c.verb, c.column, c.new, c.default, c.type_word) for c in changes_of([ddl], {10})] == [
        ("add", "a", "", -1, "bigint"), ("drop", "b", "", None, ""), ("rename", "c", "d", None, ""),
        ("modify", "d", "", None, "bigint"), ("modify", "e", "", None, "text"), ("add", "q", "", "z", "varchar"),
        ("rename", "f", "g", None, "")]


def test_a_bare_column_name_keeps_the_case_it_is_written_in() -> None:
    ddl = {"commit_ts": 10, "schema": "shop", "table": "t", "ddl_type": "MULTI_SCHEMA_CHANGE",
           "query": "ALTER TABLE t ADD COLUMN Qty INT DEFAULT 5, RENAME COLUMN Old TO New, DROP COLUMN Gone"}
    assert [(c.verb, c.column, c.new) for c in changes_of([ddl], {10})] == [
        ("add", "Qty", ""), ("rename", "Old", "New"), ("drop", "Gone", "")]


def test_a_column_an_add_gives_is_among_the_tables_columns_until_a_drop_takes_it() -> None:
    columns = [TableColumn.of("id", "BIGINT")]
    changes = [ColumnChange(1, "s.t", "add", "a", type_text="int(11)"),
               ColumnChange(2, "s.t", "add", "b", type_text="varchar(8)"),
               ColumnChange(3, "s.t", "rename", "B", new="c"),
               ColumnChange(4, "s.t", "modify", "c", type_text="bigint(20)"),
               ColumnChange(5, "s.t", "add", "d", type_text="int(11)"),
               ColumnChange(6, "s.t", "drop", "D")]
    added = with_added_columns(columns, changes)
    assert [(c.name, c.spark_type.simpleString()) for c in added] == [("id", "bigint"), ("a", "int"), ("c", "bigint")]


def test_a_column_a_row_already_carries_is_not_added_twice() -> None:
    columns = [TableColumn.of("id", "BIGINT"), TableColumn.of("Qty", "INT")]
    assert with_added_columns(columns, [ColumnChange(1, "s.t", "add", "qty", type_text="int(11)")]) == columns


def test_rows_of_an_earlier_run_are_changed_in_the_order_of_the_changes() -> None:
    rows = pa.table({"id": [1, 2], "name": ["a", "b"]})
    changes = [ColumnChange(10, "shop.t", "rename", "name", "label"), ColumnChange(11, "shop.t", "add", "qty", default=5,
                                                                                   type_word="int"),
               ColumnChange(12, "shop.t", "drop", "label")]
    changed = changed_arrow(rows, changes)
    assert changed.to_pylist() == [{"id": 1, "qty": 5}, {"id": 2, "qty": 5}] and changed.schema.field("qty").type == pa.int32()


def test_a_multi_change_alter_of_columns_is_applied_and_skipped_whole_when_it_drops_one() -> None:
    from cdcwire.spark.tables.ddl_policy import decide

    ddl = {"commit_ts": 10, "schema": "shop", "table": "t", "ddl_type": "MULTI_SCHEMA_CHANGE",
           "query": "ALTER TABLE t ADD COLUMN a INT, DROP COLUMN b, RENAME COLUMN c TO d, MODIFY e BIGINT"}
    assert [d.action for d in decide([ddl], "apply", None)[0]["shop.t"]] == ["applied"]
    assert [d.action for d in decide([ddl], "skip-destructive", None)[0]["shop.t"]] == [
        "skipped (policy skip-destructive)"]


def test_a_modify_converts_the_rows_of_an_earlier_run_to_the_new_arrow_type() -> None:
    import decimal

    rows = pa.table({"id": [1, 2], "price": pa.array([decimal.Decimal("1.25"), decimal.Decimal("2.00")],
                                                     pa.decimal128(5, 2)), "qty": [3, 4]})
    changes = [ColumnChange(10, "shop.t", "modify", "price", type_text="decimal(5,1)"),
               ColumnChange(11, "shop.t", "modify", "qty", type_text="varchar(4)")]
    changed = arrow_transform(changes)(rows)
    assert changed.schema.field("price").type == pa.decimal128(5, 1) and changed.schema.field("qty").type == pa.string()
    assert changed.to_pylist() == [{"id": 1, "price": decimal.Decimal("1.3"), "qty": "3"},
                                   {"id": 2, "price": decimal.Decimal("2.0"), "qty": "4"}]


def test_a_modify_that_narrows_a_stored_value_is_an_error_naming_table_column_row_and_value() -> None:
    import pickle

    import pytest

    from cdcwire import CdcwireError

    rows = pa.table({"id": [1, 2], "n": [5, 300]})
    transform = pickle.loads(pickle.dumps(arrow_transform([ColumnChange(10, "shop.t", "modify", "n",
                                                                        type_text="tinyint")])))
    with pytest.raises(CdcwireError, match=r"shop.t: MODIFY of column n to tinyint changes the value 300 of the row"
                                           r" id=2.*ddl_policy=\"skip-destructive\""):
        transform(rows)


def test_a_delta_drop_column_keeps_a_later_added_column_the_last_file_lacks(tmp_path) -> None:
    import deltalake
    import pyarrow.parquet as pq
    from deltalake.transaction import create_table_with_add_actions

    from cdcwire.spark.tables import delta_tables

    table = tmp_path / "shop.t"
    table.mkdir()
    # bucket 0 rewritten after ADD COLUMN qty; bucket 1 untouched since (its file, last by name, lacks qty)
    newer, older = "bucket-00000-of-00002-run-000002-aa-00000.parquet", "bucket-00001-of-00002-run-000001-bb-00000.parquet"
    pq.write_table(pa.table({"id": [1], "name": ["a"], "qty": pa.array([7], pa.int32())}), table / newer)
    pq.write_table(pa.table({"id": [2], "name": ["b"]}), table / older)
    schema = pa.schema([pa.field("id", pa.int64()), pa.field("name", pa.string()), pa.field("qty", pa.int32())])
    create_table_with_add_actions(str(table), deltalake.Schema.from_arrow(schema),
                                  [delta_tables._add_action(table, n) for n in (newer, older)])
    delta_tables.change_delta_files(str(tmp_path), "shop.t",
                                    lambda rows: changed_arrow(rows, [ColumnChange(10, "shop.t", "drop", "name")]), run=3)
    read = deltalake.DeltaTable(str(table)).to_pyarrow_table()
    assert read.column_names == ["id", "qty"]
    assert sorted(read.to_pylist(), key=lambda r: r["id"]) == [{"id": 1, "qty": 7}, {"id": 2, "qty": None}]
