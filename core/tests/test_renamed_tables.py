"""The tables a RENAME statement renames (cdcwire.values.ddl_statements.renamed_tables): what
materialize moves when a table is renamed upstream."""

from cdcwire.values.ddl_statements import TableName, renamed_tables


def test_a_rename_table_gives_its_old_and_new_names() -> None:
    assert renamed_tables("RENAME TABLE `app`.`Users` TO `app`.`people`") == [
        (TableName("app", "Users"), TableName("app", "people"))]


def test_a_rename_of_several_tables_gives_each_pair_in_order() -> None:
    assert renamed_tables("rename tables a to b, x.c TO y.d;") == [
        (TableName(None, "a"), TableName(None, "b")), (TableName("x", "c"), TableName("y", "d"))]


def test_an_alter_table_rename_gives_its_pair() -> None:
    assert renamed_tables("ALTER TABLE s.a RENAME AS `B`") == [(TableName("s", "a"), TableName(None, "B"))]


def test_renaming_a_column_or_an_index_renames_no_table() -> None:
    assert renamed_tables("ALTER TABLE a RENAME COLUMN x TO y") == renamed_tables("ALTER TABLE a RENAME INDEX i TO j") == []


def test_a_statement_cut_short_renames_nothing() -> None:
    assert renamed_tables("RENAME TABLE a") == renamed_tables("RENAME TABLE a TO") == []


def test_a_bare_name_matches_a_table_of_any_case_in_any_schema() -> None:
    assert TableName(None, "users").names("app", "Users") and not TableName("other", "users").names("app", "users")
