"""Each column type's value on the wire, against the spec's column type table."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, EncodeError, RowChangedEvent
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
URI = "file:///tmp/cdcwire-open/t?protocol=open-protocol"


def wire(column: Column) -> tuple[str, dict]:
    """The raw value JSON of a one-column insert, and its parsed column object."""
    config = cdcwire.parse_sink_uri(URI)
    [payload] = open_sink(config).codec.encoder(config, "t", 0).encode([RowChangedEvent(1, "test", "t", (column,))])
    text = payload.value[8:].decode("utf-8")
    return text, json.loads(text)["u"][column.name]


# (column, the spec table's "Output Example" without "f")
SPEC_TABLE = [
    (Column("c", T.TINYINT, F(0), 1), {"t": 1, "v": 1}),
    (Column("c", T.SMALLINT, F(0), 1), {"t": 2, "v": 1}),
    (Column("c", T.INT, F(0), 123), {"t": 3, "v": 123}),
    (Column("c", T.FLOAT, F(0), 153.12300109863281), {"t": 4, "v": 153.123}),
    (Column("c", T.DOUBLE, F(0), 153.123), {"t": 5, "v": 153.123}),
    (Column("c", T.NULL, F(0), None), {"t": 6, "v": None}),
    (Column("c", T.TIMESTAMP, F.BINARY, "1973-12-30 15:30:00"), {"t": 7, "v": "1973-12-30 15:30:00"}),
    (Column("c", T.BIGINT, F(0), 123), {"t": 8, "v": 123}),
    (Column("c", T.MEDIUMINT, F(0), 123), {"t": 9, "v": 123}),
    (Column("c", T.DATE, F.BINARY, "2000-01-01"), {"t": 10, "v": "2000-01-01"}),
    (Column("c", T.NEWDATE, F.BINARY, "2000-01-01"), {"t": 14, "v": "2000-01-01"}),
    (Column("c", T.TIME, F.BINARY, "23:59:59"), {"t": 11, "v": "23:59:59"}),
    (Column("c", T.DATETIME, F.BINARY, "2015-12-20 23:58:58"), {"t": 12, "v": "2015-12-20 23:58:58"}),
    (Column("c", T.YEAR, F.UNSIGNED, 1970), {"t": 13, "v": 1970}),
    (Column("c", T.VARCHAR, F(0), "test"), {"t": 15, "v": "test"}),
    (Column("c", T.VARCHAR, F.BINARY, b"\x89PNG\r\n\x1a\n"), {"t": 15, "v": "\\x89PNG\\r\\n\\x1a\\n"}),
    (Column("c", T.BIT, F.UNSIGNED, 81), {"t": 16, "v": 81}),
    (Column("c", T.JSON, F.BINARY, '{"key1": "value1"}'), {"t": 245, "v": '{"key1": "value1"}'}),
    (Column("c", T.DECIMAL, F(0), "129012.1230000"), {"t": 246, "v": "129012.1230000"}),
    (Column("c", T.ENUM, F(0), 1), {"t": 247, "v": 1}),
    (Column("c", T.SET, F(0), 3), {"t": 248, "v": 3}),
    (Column("c", T.TINYBLOB, F(0), "测试text"), {"t": 249, "v": "5rWL6K+VdGV4dA=="}),
    (Column("c", T.MEDIUMBLOB, F.BINARY, "测试text".encode()), {"t": 250, "v": "5rWL6K+VdGV4dA=="}),
    (Column("c", T.LONGBLOB, F(0), "测试text"), {"t": 251, "v": "5rWL6K+VdGV4dA=="}),
    (Column("c", T.BLOB, F.BINARY, "测试text".encode()), {"t": 252, "v": "5rWL6K+VdGV4dA=="}),
    (Column("c", T.CHAR, F(0), "test"), {"t": 254, "v": "test"}),
    (Column("c", T.CHAR, F.BINARY, b"\x89PNG\r\n\x1a\n"), {"t": 254, "v": "\\x89PNG\\r\\n\\x1a\\n"}),
]


@pytest.mark.parametrize("column,example", SPEC_TABLE, ids=[f"{c.type.name}-{int(c.flags)}" for c, _ in SPEC_TABLE])
def test_value_matches_the_spec_column_type_table(column: Column, example: dict) -> None:
    _, got = wire(column)
    assert got.pop("f") == int(column.flags)
    assert got == example


def test_varbinary_is_the_go_quoted_text_on_the_wire() -> None:
    text, _ = wire(Column("c", T.VARCHAR, F.BINARY, b"\x89PNG\r\n\x1a\n"))
    assert '"v":"\\\\x89PNG\\\\r\\\\n\\\\x1a\\\\n"' in text


def test_column_object_fields_come_in_go_order_t_h_f_v() -> None:
    text, _ = wire(Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 2))
    assert text == '{"u":{"id":{"t":3,"h":true,"f":10,"v":2}}}'


def test_h_is_left_out_for_columns_that_are_not_handle_keys() -> None:
    _, got = wire(Column("c", T.INT, F.PRIMARY_KEY | F.NULLABLE, 2))
    assert "h" not in got and got["f"] == 72


def test_unsigned_bigint_max_is_a_plain_json_number() -> None:
    text, _ = wire(Column("c", T.BIGINT, F.UNSIGNED, 18446744073709551615))
    assert '"v":18446744073709551615}' in text


def test_float_is_written_with_the_fewest_float32_digits() -> None:
    text, _ = wire(Column("c", T.FLOAT, F(0), 0.10000000149011612))
    assert '"v":0.1}' in text


def test_integral_double_is_written_without_a_fraction_like_go() -> None:
    text, _ = wire(Column("c", T.DOUBLE, F(0), 3.0))
    assert '"v":3}' in text


def test_tiny_double_uses_go_exponent_form() -> None:
    text, _ = wire(Column("c", T.DOUBLE, F(0), 1.5e-7))
    assert '"v":1.5e-7}' in text


def test_printable_unicode_stays_raw_inside_varbinary() -> None:
    _, got = wire(Column("c", T.VARCHAR, F.BINARY, "é😀".encode() + b"\xff"))
    assert got["v"] == "é😀\\xff"


def test_html_characters_are_escaped_as_go_json_marshal_does() -> None:
    text, got = wire(Column("c", T.VARCHAR, F(0), "<b>&</b>"))
    assert "\\u003cb\\u003e\\u0026\\u003c/b\\u003e" in text
    assert got["v"] == "<b>&</b>"


def test_non_ascii_text_is_raw_utf8_not_escaped() -> None:
    text, _ = wire(Column("c", T.VARCHAR, F(0), "测试"))
    assert '"v":"测试"' in text


@pytest.mark.parametrize(
    "column",
    [
        Column("c", T.INT, F(0), "12"),
        Column("c", T.BIGINT, F.UNSIGNED, 1 << 64),
        Column("c", T.DOUBLE, F(0), float("nan")),
        Column("c", T.FLOAT, F(0), float("inf")),
        Column("c", T.FLOAT, F(0), 1e39),
        Column("c", T.VARCHAR, F.BINARY, 12),
        Column("c", T.GEOMETRY, F(0), b"\x00"),
        Column("c", T.VARCHAR, F(0), "\ud800"),
    ],
    ids=["str-in-int", "int-past-u64", "nan", "inf-float", "float32-overflow", "int-in-varbinary", "geometry", "lone-surrogate"],
)
def test_values_a_type_cannot_hold_are_refused_naming_table_and_column(column: Column) -> None:
    with pytest.raises(EncodeError, match=r"test\.t"):
        wire(column)
