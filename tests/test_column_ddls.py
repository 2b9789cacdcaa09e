"""What materialize reads from a column DDL's statement (no Spark): each add (with its DEFAULT
and type word), drop and rename of an ALTER TABLE, nothing for indexes and type changes."""

import pyarrow as pa

from cdcwire.spark.tables.column_ddls import ColumnChange, changed_arrow, column_changes


def test_each_column_change_of_an_alter_table_is_read_with_its_default() -> None:
    query = ("ALTER TABLE `shop`.`t` ADD COLUMN a INT UNSIGNED DEFAULT -1, DROP COLUMN IF EXISTS b, CHANGE c d BIGINT,"
             " MODIFY e TEXT, ADD INDEX i (a), ADD COLUMN q varchar(3) DEFAULT 'z', RENAME COLUMN f TO g")
    assert column_changes(query) == [("add", "a", -1, "bigint"), ("drop", "b", None, ""), ("rename", "c", "d", ""),
                                     ("add", "q", "z", "varchar"), ("rename", "f", "g", "")]


def test_rows_of_an_earlier_run_are_changed_in_the_order_of_the_changes() -> None:
    rows = pa.table({"id": [1, 2], "name": ["a", "b"]})
    changes = [ColumnChange(10, "shop.t", "rename", "name", "label"), ColumnChange(11, "shop.t", "add", "qty", default=5,
                                                                                   type_word="int"),
               ColumnChange(12, "shop.t", "drop", "label")]
    changed = changed_arrow(rows, changes)
    assert changed.to_pylist() == [{"id": 1, "qty": 5}, {"id": 2, "qty": 5}] and changed.schema.field("qty").type == pa.int32()


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
