"""Row events written as TiCDC's storage sink writes csv, byte for byte: the goldens of
TiCDC's ``csv_message_test.go`` (``TestCSVMessageEncode``, ``TestFormatWithEscape``,
``TestEncodeHeader``), and what cdcwire writes reads back as the events it was given."""

from __future__ import annotations

import pytest

from cdcwire import Column, ColumnFlag as F, ColumnType as T, RowChangedEvent
from cdcwire.transports.storage.csv_encoding import CsvEncoder, go_float
from cdcwire.transports.storage.csv_fields import CsvDialect
from cdcwire.transports.storage.csv_rows import CsvOptions, csv_events
from cdcwire.transports.storage.schema_files import TableCol
from cdcwire.transports.storage.table_columns import column_specs

TS = 435661838416609281


def v(value, ctype=T.VARCHAR) -> Column:
    return Column(f"c{id(value) % 1000}", ctype, F.NULLABLE, value)


def encode(event: RowChangedEvent, delimiter=",", quote='"', terminator="\n", commit_ts=True, old=False) -> str:
    options = CsvOptions(CsvDialect(delimiter, quote, terminator, "\\N"), commit_ts, old)
    return CsvEncoder(options).encode(event)


def insert(table, *cols) -> RowChangedEvent:
    return RowChangedEvent(TS, "test", table, tuple(cols))


def update(table, *cols) -> RowChangedEvent:
    return RowChangedEvent(TS, "test", table, tuple(cols), tuple(cols))


def delete(table, *cols) -> RowChangedEvent:
    return RowChangedEvent(TS, "test", table, None, tuple(cols))


def test_typical_configuration() -> None:
    assert encode(insert("table1", v(123, T.INT), v("hello,world"))) == '"I","table1","test",435661838416609281,123,"hello,world"\n'


def test_a_one_character_delimiter_without_quote() -> None:
    assert encode(update("table2", v("a!b!c"), v("def")), "!", "") == "U!table2!test!435661838416609281!a\\!b\\!c!def\n"


def test_is_update_false_on_an_insert_with_old_values() -> None:
    assert encode(insert("table2", v("a!b!c"), v("def")), "!", "", old=True) == \
        "I!table2!test!435661838416609281!false!a\\!b\\!c!def\n"


def test_an_update_with_old_values_is_a_d_row_then_an_i_row() -> None:
    event = RowChangedEvent(TS, "test", "table2", (v("a!b!c"), v("def")), (v("a!b!c"), v("abc")))
    assert encode(event, "!", "", old=True) == (
        "D!table2!test!435661838416609281!true!a\\!b\\!c!abc\nI!table2!test!435661838416609281!true!a\\!b\\!c!def\n"
    )


def test_quoted_values_keep_the_delimiter() -> None:
    assert encode(update("table3", v("a,b,c"), v("def"), v("2022-08-31 17:07:00"))) == \
        '"U","table3","test",435661838416609281,"a,b,c","def","2022-08-31 17:07:00"\n'


def test_a_three_character_delimiter_without_quote_and_crlf() -> None:
    assert encode(delete("table4", v("a[*]b[*]c"), v("def")), "[*]", "", "\r\n", commit_ts=False) == \
        "D[*]table4[*]test[*]a\\[\\*\\]b\\[\\*\\]c[*]def\r\n"


def test_a_single_quote_null_and_a_bare_double() -> None:
    assert encode(insert("table5", v("a[*]b[*]c"), v("def"), v(None), v(12345.678, T.DOUBLE)), "[*]", "'", commit_ts=False) == \
        "'I'[*]'table5'[*]'test'[*]'a[*]b[*]c'[*]'def'[*]\\N[*]12345.678\n"


def test_backslash_and_lf_without_quote() -> None:
    assert encode(update("table6", v("a\\b\\c"), v("def\n")), quote="") == "U,table6,test,435661838416609281,a\\\\b\\\\c,def\\n\n"


def test_backslash_and_cr_with_quote_stay_as_they_are() -> None:
    assert encode(insert("table7", v("\\"), v("\\\r"), v("\\\\")), quote="'", commit_ts=False) == \
        "'I','table7','test','\\','\\\r','\\\\'\n"


def test_unicode_and_a_tab_delimiter() -> None:
    assert encode(delete("table8", v("a\tb"), v(123.456, T.DOUBLE), v("你好，世界")), "\t") == \
        '"D"\t"table8"\t"test"\t435661838416609281\t"a\tb"\t123.456\t"你好，世界"\n'


@pytest.mark.parametrize("delimiter, text, want", [
    (",", "abc\r\ndef", "abc\\r\\ndef"), (",", "abc\\def", "abc\\\\def"), (",", "abc,def", "abc\\,def"),
    ("***", "abc***def", "abc\\*\\*\\*def"), ("?", "abc\\def?ghi\\r\\n", "abc\\\\def\\?ghi\\\\r\\\\n"),
])
def test_ticdcs_escapes_without_quote(delimiter: str, text: str, want: str) -> None:
    d = delimiter
    assert encode(insert("t", v(text)), d, "", commit_ts=False) == f"I{d}t{d}test{d}{want}\n"


def test_the_header_names_every_field() -> None:
    options = CsvOptions(CsvDialect(" ", terminator="\n"), include_commit_ts=True, output_old_value=True)
    assert CsvEncoder(options).header(["col1", "col2"]) == \
        "ticdc-meta$operation ticdc-meta$table ticdc-meta$schema ticdc-meta$commit-ts ticdc-meta$is-update col1 col2\n"


@pytest.mark.parametrize("x, float32, text", [(1e21, False, "1e+21"), (1e20, False, "100000000000000000000"),
                                               (0.0001, False, "0.0001"), (0.00001, False, "1e-05"),
                                               (0.1, True, "0.1"), (-2.5, False, "-2.5"), (3.0, False, "3")])
def test_floats_are_printed_as_gos_percent_v(x: float, float32: bool, text: str) -> None:
    assert go_float(x, float32) == text


def test_every_kind_of_value_reads_back_as_written() -> None:
    cols = [TableCol("id", "BIGINT UNSIGNED", "20", is_pk="true", nullable="false"), TableCol("s", "VARCHAR", "20"),
            TableCol("b", "VARBINARY", "8"), TableCol("e", "ENUM", elems=("x", "y")), TableCol("st", "SET", elems=("p", "q")),
            TableCol("bit", "BIT", "12"), TableCol("f", "FLOAT", "12"), TableCol("d", "DOUBLE", "22"),
            TableCol("dec", "DECIMAL", "10", "2"), TableCol("dt", "DATETIME"), TableCol("j", "JSON"), TableCol("n", "INT", "11")]
    specs = column_specs(tuple(cols), "hex")
    values = [(1 << 64) - 1, 'say "hi", then\r\nbye\\', b"\x00\xff", 2, 3, 0xABC, 0.5, 1e-7, "12.50", "2026-11-25 10:00:00",
              '{"a": 1}', None]
    image = tuple(Column(s.name, s.type, s.flags, val, s.mysql_type) for s, val in zip(specs, values))
    event = RowChangedEvent(TS, "app", "t", image, image)
    for quote in ('"', ""):
        options = CsvOptions(CsvDialect("[*]", quote, "\r\n"), True, True)
        text = CsvEncoder(options, "hex").encode(event)
        [back] = [p.event for p in csv_events(text, "f", specs, options, 0)]
        assert back == event, quote


def test_the_documentations_row_with_its_date_quoted() -> None:
    event = RowChangedEvent(433305438660591626, "hr", "employee", (
        v(101, T.INT), v("Smith"), v("Bob"), v("2014-06-04", T.DATE), v("New York")))
    assert encode(event, terminator="\r\n") == \
        '"I","employee","hr",433305438660591626,101,"Smith","Bob","2014-06-04","New York"\r\n'
