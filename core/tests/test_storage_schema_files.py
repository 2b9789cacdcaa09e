"""Schema files of TiCDC's storage sink: named by the CRC32 of Go's JSON of their columns,
which the reader checks; TiCDC's own goldens (``schema_file_test.go``)."""

from __future__ import annotations

import pytest

from cdcwire.transports.storage.places import LayoutError, Place
from cdcwire.transports.storage.schema_files import SchemaFile, TableCol, parse_schema_file

TABLE1 = SchemaFile("schema1", "table1", 100, "", 0, (
    TableCol("Id", "INT", "11", nullable="false", is_pk="true", default=10),
    TableCol("LastName", "VARCHAR", "128", nullable="false", default="Default LastName"),
    TableCol("FirstName", "VARCHAR", "64", default="Default FirstName"),
    TableCol("Birthday", "DATETIME", default=12345678),
), 4)


def test_a_table_schema_file_is_named_by_ticdcs_checksum() -> None:
    assert TABLE1.file_name() == "schema_100_3752767265.json"


def test_a_database_schema_file_is_named_by_ticdcs_checksum() -> None:
    assert SchemaFile("schema1", "", 100, "", 0, None, 0).file_name() == "schema_100_3233644819.json"


def test_the_checksum_does_not_depend_on_column_order() -> None:
    reordered = SchemaFile("schema1", "table1", 100, "", 0, tuple(reversed(TABLE1.columns)), 4)
    assert reordered.checksum() == TABLE1.checksum()


def test_a_schema_file_reads_back_as_written() -> None:
    assert parse_schema_file(TABLE1.marshal(), Place("x"), 3752767265) == TABLE1


def test_a_schema_file_is_written_go_indented() -> None:
    text = SchemaFile("s", "t", 7, "create table t (a int)", 3, (TableCol("a", "INT", "11"),), 1).marshal().decode()
    assert text == (
        '{\n    "Table": "t",\n    "Schema": "s",\n    "Version": 1,\n    "TableVersion": 7,\n'
        '    "Query": "create table t (a int)",\n    "Type": 3,\n    "TableColumns": [\n        {\n'
        '            "ColumnName": "a",\n            "ColumnType": "INT",\n            "ColumnPrecision": "11"\n'
        '        }\n    ],\n    "TableColumnsTotal": 1\n}'
    )


def test_a_changed_schema_file_fails_its_checksum_naming_the_file() -> None:
    changed = TABLE1.marshal().replace(b'"128"', b'"129"')
    with pytest.raises(LayoutError) as info:
        parse_schema_file(changed, Place("schema1/table1/meta/schema_100_3752767265.json"), 3752767265)
    assert str(info.value).startswith("schema1/table1/meta/schema_100_3752767265.json: schema file checksum is ")
    assert "\n" not in str(info.value)


def test_a_cut_schema_file_is_one_line_naming_it() -> None:
    with pytest.raises(LayoutError, match=r"^s/t/meta/schema_1_0000000001.json: schema file is not JSON"):
        parse_schema_file(TABLE1.marshal()[:40], Place("s/t/meta/schema_1_0000000001.json"), 1)


def test_the_documentations_form_reads() -> None:
    doc = b'{"Table":"employee","Schema":"hr","Version":1,"TableVersion":433305438660591626,"Query":"ALTER TABLE ' \
          b'hr.employee ADD email VARCHAR(32)","Type":5,"TableColumns":[{"ColumnName":"Id","ColumnType":"INT",' \
          b'"ColumnNullable":"false","ColumnIsPk":"true"},{"ColumnName":"email","ColumnType":"VARCHAR",' \
          b'"ColumnLength":"32"}],"TableColumnsTotal":"2"}'
    sf = parse_schema_file(doc, Place("x"))
    assert (sf.total_columns, sf.ddl_type, sf.columns[1].precision) == (2, 5, "32")


def test_go_escapes_html_characters_in_the_checksummed_text() -> None:
    plain = SchemaFile("s", "t", 1, "", 0, (TableCol("a", "INT", default="x"),), 1)
    html = SchemaFile("s", "t", 1, "", 0, (TableCol("a", "INT", default="<&>"),), 1)
    assert b"\\u003c\\u0026\\u003e" in html.marshal() and html.checksum() != plain.checksum()


def test_a_table_version_past_2_64_is_refused_naming_the_file() -> None:
    doc = TABLE1.marshal().replace(b'"TableVersion": 100', b'"TableVersion": 18446744073709551616')
    with pytest.raises(LayoutError, match=r"^s/t/meta/schema_1_0000000001.json: schema file field 'TableVersion'"
                                          r" must be an integer 0..18446744073709551615, got 18446744073709551616$"):
        parse_schema_file(doc, Place("s/t/meta/schema_1_0000000001.json"))
