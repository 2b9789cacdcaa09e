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
