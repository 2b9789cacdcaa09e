"""The storage writer's layout against TiCDC's own goldens: the expected strings of the tests of
TiCDC's ``pkg/sink/cloudstorage`` (pingcap/ticdc: ``path_test.go``, ``table_definition_test.go``),
each test naming the one it takes them from. TiCDC dates a data directory by the clock at
write time, cdcwire by the row's commit ts: the rows here are at the goldens' clock times."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.model.table_schema import ColumnSchema, TableSchema
from cdcwire.transports.storage.table_versions import table_col


def at(when: datetime) -> int:
    """The TSO of a wall-clock time (its physical milliseconds, shifted past the logical bits)."""
    return int(when.timestamp() * 1000) << 18


def row(ts: int, id_: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "test", "table1", (Column("id", T.INT, F.PRIMARY_KEY | F.HANDLE_KEY, id_, "int(11)"),))


CREATE = DDLEvent(5, "test", "table1", "CREATE TABLE table1 (id INT PRIMARY KEY)", DDLType.CREATE_TABLE)


def layout(root: Path, separator: str) -> str:
    return f"local://{root}?protocol=canal-json&file-index-digit=6&date-separator={separator}"


def data_paths(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("CDC*.json"))


@pytest.mark.parametrize("separator, before, after", [
    ("year", "2022", "2023"), ("month", "2022-12", "2023-01"), ("day", "2022-12-31", "2023-01-01")])
def test_data_file_paths_are_ticdcs_for_each_date_separator(tmp_path: Path, separator: str, before: str,
                                                            after: str) -> None:
    """path_test.go, TestGenerateDataFilePath: table version 5 of test.table1, six digits; the
    count starts again in a new date directory."""
    late, early = at(datetime(2022, 12, 31, 23, 59, 59, tzinfo=timezone.utc)), at(
        datetime(2023, 1, 1, 0, 0, 20, tzinfo=timezone.utc))
    uri = layout(tmp_path, separator) + "&file-size=1"  # one row per file: CDC000001, CDC000002
    cdcwire.write_storage(uri, [CREATE, row(late, 1), row(late, 2), row(early, 3), row(early, 4), ResolvedEvent(early)])
    assert data_paths(tmp_path) == [f"test/table1/5/{before}/CDC000001.json", f"test/table1/5/{before}/CDC000002.json",
                                    f"test/table1/5/{after}/CDC000001.json", f"test/table1/5/{after}/CDC000002.json"]


def test_data_file_paths_without_a_date_directory_are_ticdcs(tmp_path: Path) -> None:
    """path_test.go, TestGenerateDataFilePath, date-separator none."""
    events = [CREATE, row(10, 1), row(11, 2), ResolvedEvent(11)]
    cdcwire.write_storage(layout(tmp_path, "none") + "&file-size=1", events)
    assert data_paths(tmp_path) == ["test/table1/5/CDC000001.json", "test/table1/5/CDC000002.json"]


@pytest.mark.parametrize("named, following", [
    ("CDC000011.json", "CDC000012.json"), ("CDC1000000.json", "CDC1000001.json")])
def test_an_index_file_ticdc_accepts_is_continued(tmp_path: Path, named: str, following: str) -> None:
    """path_test.go, TestFetchIndexFromFileName: these two are valid (the four invalid ones are
    refused: test_storage_write.py); the next file is the one after."""
    uri = layout(tmp_path, "none")
    cdcwire.write_storage(uri, [CREATE, row(10, 1), ResolvedEvent(10)])
    (tmp_path / "test/table1/5/meta/CDC.index").write_text(named + "\n")
    cdcwire.write_storage(uri, [row(20, 2), ResolvedEvent(20)])
    assert (tmp_path / "test/table1/5/meta/CDC.index").read_text() == following + "\n"
    assert (tmp_path / "test/table1/5" / following).is_file()


#: table_definition_test.go, TestTableCol: (TiDB type text, type, flags) and the column TiCDC writes.
TABLE_COLS = [
    ("time(5)", T.TIME, 0, '{"ColumnName":"","ColumnType":"TIME","ColumnScale":"5"}'),
    ("int(5) unsigned", T.INT, F.UNSIGNED, '{"ColumnName":"","ColumnType":"INT UNSIGNED","ColumnPrecision":"5"}'),
    ("float(12,3)", T.FLOAT, 0, '{"ColumnName":"","ColumnType":"FLOAT","ColumnPrecision":"12","ColumnScale":"3"}'),
    ("float", T.FLOAT, 0, '{"ColumnName":"","ColumnType":"FLOAT","ColumnPrecision":"12"}'),
    ("float(7,3)", T.FLOAT, 0, '{"ColumnName":"","ColumnType":"FLOAT","ColumnPrecision":"7","ColumnScale":"3"}'),
    ("double(12,3)", T.DOUBLE, 0, '{"ColumnName":"","ColumnType":"DOUBLE","ColumnPrecision":"12","ColumnScale":"3"}'),
    ("double(7,3)", T.DOUBLE, 0, '{"ColumnName":"","ColumnType":"DOUBLE","ColumnPrecision":"7","ColumnScale":"3"}'),
    ("tinyint(5)", T.TINYINT, 0, '{"ColumnName":"","ColumnType":"TINYINT","ColumnPrecision":"5"}'),
    ("smallint(5)", T.SMALLINT, 0, '{"ColumnName":"","ColumnType":"SMALLINT","ColumnPrecision":"5"}'),
    ("mediumint(10)", T.MEDIUMINT, 0, '{"ColumnName":"","ColumnType":"MEDIUMINT","ColumnPrecision":"10"}'),
    ("int", T.INT, F.PRIMARY_KEY, '{"ColumnIsPk":"true","ColumnName":"","ColumnPrecision":"11","ColumnType":"INT"}'),
    ("bigint(20)", T.BIGINT, 0, '{"ColumnName":"","ColumnType":"BIGINT","ColumnPrecision":"20"}'),
    ("bit(5)", T.BIT, 0, '{"ColumnName":"","ColumnType":"BIT","ColumnPrecision":"5"}'),
    ("varchar(128)", T.VARCHAR, 0, '{"ColumnName":"","ColumnType":"VARCHAR","ColumnPrecision":"128"}'),
    ("char(32)", T.CHAR, 0, '{"ColumnName":"","ColumnType":"CHAR","ColumnPrecision":"32"}'),
    ("var_string(64)", T.VAR_STRING, 0, '{"ColumnName":"","ColumnType":"VAR_STRING","ColumnPrecision":"64"}'),
    ("blob(100)", T.BLOB, F.BINARY, '{"ColumnName":"","ColumnType":"BLOB","ColumnPrecision":"100"}'),
    ("text(100)", T.BLOB, 0, '{"ColumnName":"","ColumnType":"TEXT","ColumnPrecision":"100"}'),
    ("tinyblob(120)", T.TINYBLOB, F.BINARY, '{"ColumnName":"","ColumnType":"TINYBLOB","ColumnPrecision":"120"}'),
    ("mediumblob(100)", T.MEDIUMBLOB, F.BINARY, '{"ColumnName":"","ColumnType":"MEDIUMBLOB","ColumnPrecision":"100"}'),
    ("longblob(5)", T.LONGBLOB, F.BINARY, '{"ColumnName":"","ColumnType":"LONGBLOB","ColumnPrecision":"5"}'),
    ("enum", T.ENUM, 0, '{"ColumnName":"","ColumnType":"ENUM"}'),
    ("set", T.SET, 0, '{"ColumnName":"","ColumnType":"SET"}'),
    ("timestamp(2)", T.TIMESTAMP, 0, '{"ColumnName":"","ColumnType":"TIMESTAMP","ColumnScale":"2"}'),
    ("timestamp", T.TIMESTAMP, 0, '{"ColumnName":"","ColumnType":"TIMESTAMP"}'),
    ("datetime(2)", T.DATETIME, 0, '{"ColumnName":"","ColumnType":"DATETIME","ColumnScale":"2"}'),
    ("datetime", T.DATETIME, 0, '{"ColumnName":"","ColumnType":"DATETIME"}'),
    ("date", T.DATE, 0, '{"ColumnName":"","ColumnType":"DATE"}'),
    ("year(4)", T.YEAR, 0, '{"ColumnName":"","ColumnType":"YEAR","ColumnPrecision":"4"}'),
    ("year(2)", T.YEAR, 0, '{"ColumnName":"","ColumnType":"YEAR","ColumnPrecision":"2"}'),
]


@pytest.mark.parametrize("text, type_, flags, expected", TABLE_COLS, ids=[c[0] for c in TABLE_COLS])
def test_a_schema_files_column_is_ticdcs(text: str, type_: T, flags: F, expected: str) -> None:
    """TiCDC writes no nullability for its goldens' columns (they carry no NOT NULL flag and
    TiCDC writes only "false"): they are written here as NULLABLE columns."""
    column = Column("", type_, F(flags) | F.NULLABLE, None, text)
    assert table_col(column).go_fields() == json.loads(expected)


def test_a_plain_double_has_tidbs_width() -> None:
    """TiDB gives a plain ``double`` the width 22 (``GetDefaultFieldLengthAndDecimal``), as
    TestTableCol's plain ``float`` has 12."""
    assert table_col(Column("d", T.DOUBLE, F.NULLABLE, None, "double")).precision == "22"


#: table_definition_test.go, generateTableDef: schema1.table1 at version 100, its columns' defaults.
TABLE1 = TableSchema("schema1", "table1", 20, 100, (
    ColumnSchema("Id", T.INT, F.PRIMARY_KEY | F.HANDLE_KEY, default=10),
    ColumnSchema("LastName", T.VARCHAR, F(0), "varchar(128)", default="Default LastName"),
    ColumnSchema("FirstName", T.VARCHAR, F.NULLABLE, "varchar(64)", default="Default FirstName"),
    ColumnSchema("Birthday", T.DATETIME, F.NULLABLE, default=12345678),
))
ADD_BIRTHDAY = DDLEvent(100, "schema1", "table1", "alter table schema1.table1 add Birthday date", DDLType.ADD_COLUMN,
                        table_schema=TABLE1)


def test_a_ddls_schema_file_is_ticdcs_path_and_content(tmp_path: Path) -> None:
    """table_definition_test.go, TestTableDefinition (FromDDLEvent) and TestTableDefinitionGenFilePath:
    the schema file of a DDL that carries its table schema is TiCDC's, name and content."""
    cdcwire.write_storage(f"local://{tmp_path}?protocol=csv", [ADD_BIRTHDAY, ResolvedEvent(100)])
    written = tmp_path / "schema1/table1/meta/schema_100_3752767265.json"
    assert json.loads(written.read_text()) == {
        "Table": "table1", "Schema": "schema1", "Version": 1, "TableVersion": 100,
        "Query": "alter table schema1.table1 add Birthday date", "Type": 5,
        "TableColumns": [
            {"ColumnName": "Id", "ColumnType": "INT", "ColumnPrecision": "11", "ColumnDefault": 10,
             "ColumnNullable": "false", "ColumnIsPk": "true"},
            {"ColumnName": "LastName", "ColumnType": "VARCHAR", "ColumnDefault": "Default LastName",
             "ColumnPrecision": "128", "ColumnNullable": "false"},
            {"ColumnName": "FirstName", "ColumnDefault": "Default FirstName", "ColumnType": "VARCHAR",
             "ColumnPrecision": "64"},
            {"ColumnName": "Birthday", "ColumnDefault": 1.2345678e+07, "ColumnType": "DATETIME"},
        ],
        "TableColumnsTotal": 4,
    }


def test_a_database_schema_file_path_is_ticdcs(tmp_path: Path) -> None:
    """table_definition_test.go, TestTableDefinitionGenFilePath: schema1 at 100."""
    cdcwire.write_storage(f"local://{tmp_path}?protocol=csv",
                          [DDLEvent(100, "schema1", "", "CREATE DATABASE schema1", DDLType.CREATE_SCHEMA)])
    assert (tmp_path / "schema1/meta/schema_100_3233644819.json").is_file()


def test_a_ddls_table_schema_is_read_back_as_the_versions_columns(tmp_path: Path) -> None:
    """The schema file written from the DDL's table schema types the rows of its version."""
    uri = f"local://{tmp_path}?protocol=csv&include-commit-ts=true"
    cols = (Column("Id", T.INT, F.PRIMARY_KEY | F.HANDLE_KEY, 1), Column("LastName", T.VARCHAR, F(0), "a"),
            Column("FirstName", T.VARCHAR, F.NULLABLE, None), Column("Birthday", T.DATETIME, F.NULLABLE, None))
    cdcwire.write_storage(uri, [ADD_BIRTHDAY, RowChangedEvent(110, "schema1", "table1", cols), ResolvedEvent(110)])
    assert len(list((tmp_path / "schema1/table1/meta").iterdir())) == 1
    assert [e.commit_ts for e in cdcwire.read_storage(uri)] == [100, 110, 110]
