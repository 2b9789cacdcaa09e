"""csv rows of TiCDC's storage sink read back as events, typed by the schema file's columns,
with every option of ``[sink.csv]``. The lines are TiCDC's goldens (``csv_message_test.go``
and the storage-sink documentation)."""

from __future__ import annotations

import pytest

from cdcwire import Column, ColumnFlag as F, ColumnType as T
from cdcwire.transports.storage.csv_fields import CsvDialect, records
from cdcwire.transports.storage.csv_rows import CsvOptions, csv_events
from cdcwire.transports.storage.places import LayoutError
from cdcwire.transports.storage.schema_files import TableCol
from cdcwire.transports.storage.table_columns import column_specs

N = F.NULLABLE
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def read(lines: str, columns: list[TableCol], binary: str = "base64", **options) -> list:
    dialect = CsvDialect(**{k: options.pop(k) for k in ("delimiter", "quote", "terminator", "null") if k in options})
    specs = column_specs(tuple(columns), binary)
    return [p.event for p in csv_events(lines, "t/1/CDC000001.csv", specs, CsvOptions(dialect, **options), 5)]


def test_ticdcs_quoted_golden_reads_with_its_commit_ts() -> None:
    [row] = read('"I","table1","test",435661838416609281,123,"hello,world"\r\n',
                 [TableCol("a", "INT"), TableCol("b", "VARCHAR")], include_commit_ts=True)
    assert (row.kind, row.commit_ts, row.schema, row.table) == ("insert", 435661838416609281, "test", "table1")
    assert [c.value for c in row.columns] == [123, "hello,world"]


def test_a_one_character_delimiter_without_quote_unescapes_it() -> None:
    [row] = read("U!table2!test!435661838416609281!a\\!b\\!c!def\r\n", [TableCol("a", "VARCHAR"), TableCol("b", "VARCHAR")],
                 delimiter="!", quote="", include_commit_ts=True)
    assert row.kind == "update" and [c.value for c in row.columns] == ["a!b!c", "def"]


def test_the_is_update_column_is_read_past() -> None:
    [row] = read("I!table2!test!435661838416609281!false!a\\!b\\!c!def\r\n",
                 [TableCol("a", "VARCHAR"), TableCol("b", "VARCHAR")],
                 delimiter="!", quote="", include_commit_ts=True, output_old_value=True)
    assert row.kind == "insert" and [c.value for c in row.columns] == ["a!b!c", "def"]


def test_a_three_character_delimiter_without_quote_unescapes_each_character() -> None:
    [row] = read("D[*]table4[*]test[*]a\\[\\*\\]b\\[\\*\\]c[*]def\r\n", [TableCol("a", "VARCHAR"), TableCol("b", "VARCHAR")],
                 delimiter="[*]", quote="")
    assert row.kind == "delete" and [c.value for c in row.pre_columns] == ["a[*]b[*]c", "def"]
    assert row.commit_ts == 5  # no commit ts in the rows: the table version's


def test_a_single_quote_and_a_three_character_delimiter_with_null() -> None:
    [row] = read("'I'[*]'table5'[*]'test'[*]'a[*]b[*]c'[*]'def'[*]\\N[*]12345.678\r\n",
                 [TableCol("a", "VARCHAR"), TableCol("b", "VARCHAR"), TableCol("c", "INT"),
                  TableCol("d", "DECIMAL", "10", "3")],
                 delimiter="[*]", quote="'")
    assert [c.value for c in row.columns] == ["a[*]b[*]c", "def", None, "12345.678"]
    assert row.columns[3].mysql_type == "decimal(10,3)"


def test_the_documentations_row_types_its_columns_from_the_schema_file() -> None:
    [row] = read('"I","employee","hr",433305438660591626,101,"Smith","Bob","2014-06-04","New York"\r\n',
                 [TableCol("Id", "INT", "11", nullable="false", is_pk="true"), TableCol("LastName", "VARCHAR", "20"),
                  TableCol("FirstName", "VARCHAR", "30"), TableCol("HireDate", "DATE"), TableCol("OfficeLocation", "VARCHAR", "20")],
                 include_commit_ts=True)
    assert row.columns[0] == Column("Id", T.INT, KEY, 101, "int(11)")
    assert row.columns[3] == Column("HireDate", T.DATE, N | F.BINARY, "2014-06-04", "date")  # as TiDB flags dates


def test_old_values_d_then_i_read_back_as_one_update() -> None:
    [row] = read('"D","t","s",7,true,1,"old"\r\n"I","t","s",7,true,1,"new"\r\n',
                 [TableCol("id", "INT", is_pk="true"), TableCol("v", "VARCHAR")], include_commit_ts=True, output_old_value=True)
    assert row.kind == "update" and row.pre_columns[1].value == "old" and row.columns[1].value == "new"


def test_an_update_without_old_values_identifies_the_row_by_its_key() -> None:
    [row] = read('"U","t","s",1,"new"\n', [TableCol("id", "INT", is_pk="true"), TableCol("v", "VARCHAR")], terminator="\n")
    assert row.kind == "update" and [c.name for c in row.pre_columns] == ["id"]


def test_a_header_is_checked_against_the_schema_file_and_skipped() -> None:
    text = "ticdc-meta$operation,ticdc-meta$table,ticdc-meta$schema,ticdc-meta$commit-ts,id\r\n\"I\",\"t\",\"s\",9,1\r\n"
    [row] = read(text, [TableCol("id", "INT")], include_commit_ts=True, header=True)
    assert row.columns[0].value == 1


def test_a_header_naming_other_columns_is_an_error_naming_line_1() -> None:
    with pytest.raises(LayoutError, match=r"^t/1/CDC000001.csv:1: the header is "):
        read("ticdc-meta$operation,ticdc-meta$table,ticdc-meta$schema,other\r\n", [TableCol("id", "INT")], header=True)


@pytest.mark.parametrize("method, text", [("base64", "AAH/"), ("hex", "0001ff")])
def test_binary_values_are_decoded_by_the_encoding_method(method: str, text: str) -> None:
    [row] = read(f'"I","t","s",{text}\r\n', [TableCol("b", "VARBINARY", "8")], binary=method)
    assert row.columns[0].value == b"\x00\x01\xff" and row.columns[0].flags & F.BINARY


def test_enum_set_bit_and_unsigned_values_take_cdcwires_forms() -> None:
    [row] = read('"I","t","s","b","a,c",0x05,18446744073709551615\r\n',
                 [TableCol("e", "ENUM", elems=("a", "b")), TableCol("s", "SET", elems=("a", "b", "c")),
                  TableCol("bits", "BIT", "3"), TableCol("u", "BIGINT UNSIGNED", "20")])
    assert [c.value for c in row.columns] == [2, 5, 5, (1 << 64) - 1]
    assert row.columns[3].flags & F.UNSIGNED and row.columns[0].mysql_type == "enum('a','b')"


def test_a_quoted_null_text_is_text_and_an_escaped_one_too() -> None:
    assert [f for _, f in records('"\\N",\\N\r\n', CsvDialect())] == [["\\N", None]]
    assert [f for _, f in records("\\\\N,\\N\r\n", CsvDialect(quote=""))] == [["\\N", None]]


def test_a_quoted_field_keeps_line_breaks_and_doubled_quotes() -> None:
    assert list(records('"a\r\nb","say ""hi"""\r\n"x",1\r\n', CsvDialect())) == [(1, ["a\r\nb", 'say "hi"']), (3, ["x", "1"])]


def test_a_row_with_too_few_fields_names_the_file_and_line() -> None:
    with pytest.raises(LayoutError) as info:
        read('"I","t","s",1\r\n"I","t","s"\r\n', [TableCol("id", "INT")])
    assert str(info.value) == (
        "t/1/CDC000001.csv:2: 3 fields, the schema file's 1 columns need 4 (3 before them: check delimiter,"
        " include-commit-ts, output-old-value)"
    )


def test_a_value_its_type_cannot_hold_names_the_column() -> None:
    with pytest.raises(LayoutError, match=r"^t/1/CDC000001.csv:1: column 'id' \(int\): invalid literal"):
        read('"I","t","s","x"\r\n', [TableCol("id", "INT")])


def test_an_unclosed_quote_names_the_line_it_starts_on() -> None:
    with pytest.raises(LayoutError, match=r"^t/1/CDC000001.csv:2: a quoted field is never closed"):
        read('"I","t","s",1\r\n"I","t","s","1\r\n', [TableCol("id", "VARCHAR")])


def test_an_unknown_operation_is_named() -> None:
    with pytest.raises(LayoutError, match=r"operation 'X' is none of I, U, D"):
        read('"X","t","s",1\r\n', [TableCol("id", "INT")])
