"""simple's JSON value encodings (TiCDC ``encodeValue``), DDL types, and what goes around a row."""

from __future__ import annotations

import base64
import json

import pytest

from cdcwire.plugin_api import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, RowChangedEvent
from simple_cases import KEY, Clock, encoder

F = ColumnFlag
T = ColumnType


def data_of(column: Column, query: str = "") -> object:
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1), column), None)
    return json.loads(list(encoder(query).encode_event(row))[-1].value)["data"][column.name]


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (Column("c", T.TINYINT, F(0), -5), "-5"),
        (Column("c", T.BIGINT, F.UNSIGNED, 18446744073709551615), "18446744073709551615"),
        (Column("c", T.YEAR, F.UNSIGNED, 2024), "2024"),
        (Column("c", T.FLOAT, F(0), 90.5), "90.5"),
        (Column("c", T.FLOAT, F(0), 0.1), "0.1"),
        (Column("c", T.DOUBLE, F(0), 1e21), "1000000000000000000000"),
        (Column("c", T.DECIMAL, F(0), "12.3400", "decimal(10,4)"), "12.3400"),
        (Column("c", T.DATE, F.BINARY, "2024-02-29"), "2024-02-29"),
        (Column("c", T.DATETIME, F.BINARY, "2024-02-29 01:02:03.500000"), "2024-02-29 01:02:03.500000"),
        (Column("c", T.TIME, F.BINARY, "-12:00:00"), "-12:00:00"),
        (Column("c", T.ENUM, F(0), 2, "enum('a','b')"), "2"),
        (Column("c", T.SET, F(0), 3, "set('a','b')"), "3"),
        (Column("c", T.BIT, F.UNSIGNED, 4095, "bit(12)"), "4095"),
        (Column("c", T.VARCHAR, F(0), "héllo"), "héllo"),
        (Column("c", T.BLOB, F.BINARY, b"\x00\xff"), base64.b64encode(b"\x00\xff").decode()),
        (Column("c", T.JSON, F.BINARY, '{"a": 1}'), '{"a": 1}'),
        (Column("c", T.INT, F.NULLABLE, None), None),
    ],
)
def test_values_are_written_as_ticdc_encodes_them(column: Column, expected: object) -> None:
    assert data_of(column) == expected


def test_a_timestamp_is_an_object_with_the_configured_location() -> None:
    column = Column("c", T.TIMESTAMP, F.BINARY, "2024-01-02 03:04:05")
    assert data_of(column, "simple-time-zone=Asia/Shanghai") == {
        "location": "Asia/Shanghai", "value": "2024-01-02 03:04:05",
    }


def test_html_characters_are_escaped_as_go_json_escapes_them() -> None:
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1), Column("s", T.VARCHAR, F(0), "<a&b>")), None)
    value = list(encoder().encode_event(row))[-1].value
    assert b'"s":"\\u003ca\\u0026b\\u003e"' in value


@pytest.mark.parametrize(
    ("ddl_type", "kind"),
    [
        (DDLType.CREATE_TABLE, "CREATE"), (DDLType.RENAME_TABLE, "RENAME"), (DDLType.RENAME_TABLES, "RENAME"),
        (DDLType.ADD_INDEX, "CINDEX"), (DDLType.ADD_PRIMARY_KEY, "CINDEX"), (DDLType.DROP_INDEX, "DINDEX"),
        (DDLType.DROP_FOREIGN_KEY, "DINDEX"), (DDLType.DROP_TABLE, "ERASE"), (DDLType.TRUNCATE_TABLE, "TRUNCATE"),
        (DDLType.ADD_COLUMN, "ALTER"), (DDLType.MULTI_SCHEMA_CHANGE, "ALTER"),
        (DDLType.REORGANIZE_PARTITION, "ALTER"), (DDLType.CREATE_SCHEMA, "QUERY"), (DDLType.CREATE_VIEW, "QUERY"),
    ],
)
def test_ddl_types_map_to_ticdcs_message_types(ddl_type: DDLType, kind: str) -> None:
    (payload,) = encoder().encode_event(DDLEvent(5, "db", "t", "X", ddl_type))
    assert json.loads(payload.value)["type"] == kind


def test_a_create_table_has_no_schema_before_it() -> None:
    enc = encoder()
    list(enc.encode_event(RowChangedEvent(3, "db", "t", (Column("id", T.INT, KEY, 1),), None)))
    (payload,) = enc.encode_event(DDLEvent(5, "db", "t", "CREATE TABLE t (id int primary key)", DDLType.CREATE_TABLE))
    message = json.loads(payload.value)
    assert "preTableSchema" not in message and message["tableSchema"]["version"] == 5


def test_a_schema_level_ddl_names_the_database_in_its_schema() -> None:
    (payload,) = encoder().encode_event(DDLEvent(5, "db", "", "CREATE DATABASE db", DDLType.CREATE_SCHEMA))
    message = json.loads(payload.value)
    assert message["type"] == "QUERY"
    assert message["tableSchema"] == {"schema": "db", "table": "", "tableID": 0, "version": 5, "columns": [],
                                      "indexes": []}


def test_rows_carry_no_kafka_key() -> None:
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1),), None)
    assert all(p.key is None for p in encoder().encode_event(row))


def test_build_ts_is_the_clock_when_the_message_is_built() -> None:
    clock = Clock(1000)
    enc = encoder(clock=clock)
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1),), None)
    list(enc.encode_event(row))
    clock.ms = 2000
    (payload,) = enc.encode_event(row)
    assert json.loads(payload.value)["buildTs"] == 2000


def test_a_column_schema_without_type_text_takes_tidbs_default_length() -> None:
    row = RowChangedEvent(10, "db", "t", (
        Column("id", T.BIGINT, KEY | F.UNSIGNED, 1),
        Column("d", T.DECIMAL, F.NULLABLE, "1.5"),
        Column("ts", T.TIMESTAMP, F.BINARY, "2024-01-01 00:00:00.123", "timestamp(3)"),
        Column("e", T.ENUM, F(0), 1, "enum('x','y')"),
        Column("b", T.BLOB, F.BINARY, b""),
    ), None)
    bootstrap, _ = encoder().encode_event(row)
    types = {c["name"]: c["dataType"] for c in json.loads(bootstrap.value)["tableSchema"]["columns"]}
    assert types["id"] == {"mysqlType": "bigint", "charset": "binary", "collate": "binary", "length": 20,
                           "unsigned": True}
    # a DECIMAL's length bounds its values: none is written where the event says none
    assert types["d"] == {"mysqlType": "decimal", "charset": "binary", "collate": "binary"}
    assert types["ts"] == {"mysqlType": "timestamp", "charset": "binary", "collate": "binary", "length": 23,
                           "decimal": 3}
    assert types["e"] == {"mysqlType": "enum", "charset": "utf8mb4", "collate": "utf8mb4_bin",
                          "elements": ["x", "y"]}
    assert types["b"] == {"mysqlType": "blob", "charset": "binary", "collate": "binary", "length": 65535}


def test_every_value_is_compressed_when_compression_is_set() -> None:
    import cramjam

    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1),), None)
    payloads = list(encoder("large-message-handle-compression=snappy").encode_event(row))
    assert [json.loads(bytes(cramjam.snappy.decompress_raw(p.value)))["type"] for p in payloads] == [
        "BOOTSTRAP", "INSERT",
    ]


def test_a_create_table_says_no_columns_until_the_tables_first_row() -> None:
    """After a DROP and a CREATE of the same name, the old table's columns are no guess for the new one."""
    enc = encoder()
    list(enc.encode_event(RowChangedEvent(3, "db", "t", (Column("id", T.INT, KEY, 1),), None)))
    (payload,) = enc.encode_event(DDLEvent(5, "db", "t", "CREATE TABLE t (k varchar(9) primary key)", DDLType.CREATE_TABLE))
    assert json.loads(payload.value)["tableSchema"]["columns"] == []
