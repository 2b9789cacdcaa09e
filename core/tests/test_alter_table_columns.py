"""The column changes of an ALTER TABLE as the one DDL reader (cdcwire.values.ddl_statements)
gives them: every change of a multi-change statement, in order, with types and defaults."""

from cdcwire.values.ddl_statements import ColumnSpec, alter_table_change_types, column_changes
from cdcwire.values.type_codes import DDLType


def test_a_multi_change_alter_gives_every_change_in_order() -> None:
    query = "ALTER TABLE t ADD COLUMN a INT, DROP COLUMN b, RENAME COLUMN c TO d, MODIFY e BIGINT"
    assert column_changes(query) == [ColumnSpec("add", "a", type_text="int"), ColumnSpec("drop", "b"),
                                     ColumnSpec("rename", "c", "d"), ColumnSpec("modify", "e", type_text="bigint")]


def test_a_change_column_is_a_rename_then_a_modify_of_the_new_name() -> None:
    assert column_changes("ALTER TABLE `s`.`t` CHANGE COLUMN `p` `price` DECIMAL(10, 2) UNSIGNED NOT NULL") == [
        ColumnSpec("rename", "p", "price"), ColumnSpec("modify", "price", type_text="decimal(10,2) unsigned")]


def test_an_added_columns_default_and_type_are_read_up_to_its_attributes() -> None:
    [spec] = column_changes("ALTER TABLE t ADD q VARCHAR(3) CHARACTER SET utf8mb4 DEFAULT 'z' COMMENT 'x'")
    assert (spec.type_text, spec.default, spec.type_word) == ("varchar(3)", "z", "varchar")
    [spec] = column_changes("ALTER TABLE t ADD COLUMN n INT UNSIGNED DEFAULT -1")
    assert (spec.type_text, spec.default, spec.type_word) == ("int unsigned", -1, "bigint")


def test_index_partition_and_option_changes_are_no_column_changes() -> None:
    query = "ALTER TABLE t ADD INDEX i (a), DROP PRIMARY KEY, DROP PARTITION p0, ADD PARTITION (PARTITION p9 VALUES LESS THAN (9))"
    assert column_changes(query) == []


def test_each_change_of_a_multi_change_alter_has_its_ddl_type() -> None:
    query = "ALTER TABLE t ADD COLUMN a INT, DROP COLUMN b, ADD INDEX i (a), TRUNCATE PARTITION p0, p1"
    assert alter_table_change_types(query) == [DDLType.ADD_COLUMN, DDLType.DROP_COLUMN, DDLType.ADD_INDEX,
                                               DDLType.TRUNCATE_TABLE_PARTITION]


def test_the_partitioning_of_a_create_table_is_read_with_each_partitions_bound() -> None:
    from cdcwire.values.ddl_statements import partitioning_of

    query = ("CREATE TABLE t (id INT, c VARCHAR(3), PRIMARY KEY (id, c)) PARTITION BY LIST COLUMNS(c)"
             " (PARTITION ab VALUES IN ('a', 'b'), PARTITION rest VALUES IN (NULL, 'c'))")
    assert partitioning_of(query) == {"kind": "list", "column": "c", "expr": "",
                                      "parts": [["ab", ["a", "b"]], ["rest", [None, "c"]]]}
    assert partitioning_of("CREATE TABLE t (id INT) PARTITION BY HASH (id) PARTITIONS 4") is None


def test_each_partition_change_of_an_alter_table_is_read() -> None:
    from cdcwire.values.ddl_statements import partition_change

    assert partition_change("ALTER TABLE t TRUNCATE PARTITION p0, p1") == ("truncate", ["p0", "p1"])
    assert partition_change("ALTER TABLE t DROP PARTITION IF EXISTS p0") == ("drop", ["p0"])
    assert partition_change("ALTER TABLE s.t EXCHANGE PARTITION p0 WITH TABLE s.t2") == ("exchange", "p0", "s.t2")
    assert partition_change("ALTER TABLE t ADD PARTITION (PARTITION p3 VALUES LESS THAN (-4))") == ("add", [["p3", -4]])
