"""The event model's table schema through debezium: a DDL's ``tableChanges[].table`` written
from the schema the DDL event carries and read back into one; rows read back carrying the
schema their Connect schema says."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire.plugin_api import (
    Column,
    ColumnFlag,
    ColumnSchema,
    ColumnType,
    DDLEvent,
    DDLType,
    DecodeError,
    IndexSchema,
    Message,
    RowChangedEvent,
    TableSchema,
)
from debezium_cases import encoded, encoder

F = ColumnFlag
T = ColumnType
KEY = F.PRIMARY_KEY | F.HANDLE_KEY
URI = "file:///tmp/dbz/t?protocol=debezium&enable-tidb-extension=true&partition-num=1"

ITEMS = TableSchema(
    "shop", "items", 0, 0,
    (
        ColumnSchema("id", T.INT, KEY | F.UNSIGNED, "int(10) unsigned", "binary", "binary"),
        ColumnSchema("name", T.VARCHAR, F.NULLABLE, "varchar(255)", "utf8mb4", "utf8mb4_bin", "anon"),
        ColumnSchema("price", T.DECIMAL, F.NULLABLE, "decimal(10,2)", "binary", "binary"),
        ColumnSchema("kind", T.ENUM, F.NULLABLE, "enum('a','b')", "utf8mb4", "utf8mb4_bin"),
        ColumnSchema("at", T.DATETIME, F(0), "datetime(3)", "binary", "binary", "CURRENT_TIMESTAMP"),
        ColumnSchema("data", T.BLOB, F.NULLABLE | F.BINARY, "blob", "binary", "binary"),
    ),
    (IndexSchema("PRIMARY", ("id",), primary=True, unique=True),),
    "utf8mb4",
)
CREATE = DDLEvent(1, "shop", "items", "CREATE TABLE items (...)", DDLType.CREATE_TABLE, ITEMS)


def table_of(event: DDLEvent) -> dict:
    _, value = encoded(encoder(disable_schema=True), event)
    return value["payload"]["tableChanges"][0]["table"]


def column(event: DDLEvent, name: str) -> dict:
    return next(c for c in table_of(event)["columns"] if c["name"] == name)


def test_the_table_block_has_the_tables_charset_and_primary_key() -> None:
    table = table_of(CREATE)
    assert (table["defaultCharsetName"], table["primaryKeyColumnNames"]) == ("utf8mb4", ["id"])


def test_a_varchar_column_shows_its_length_charset_default_and_position() -> None:
    assert column(CREATE, "name") == {
        "name": "name", "jdbcType": 12, "nativeType": None, "comment": None, "defaultValueExpression": "anon",
        "enumValues": None, "typeName": "VARCHAR", "typeExpression": "VARCHAR", "charsetName": "utf8mb4",
        "length": 255, "scale": None, "position": 2, "optional": True, "autoIncremented": False,
        "generated": False,
    }


def test_an_unsigned_int_without_a_width_beyond_tidbs_default_shows_no_length() -> None:
    col = column(CREATE, "id")
    assert (col["typeName"], col["typeExpression"], col["length"], col["optional"]) == (
        "INT UNSIGNED", "INT UNSIGNED", None, False,
    )


def test_a_decimal_shows_precision_as_length_and_its_scale() -> None:
    col = column(CREATE, "price")
    assert (col["jdbcType"], col["typeName"], col["length"], col["scale"]) == (3, "DECIMAL", 10, 2)


def test_an_enum_shows_its_quoted_elements_and_length_one() -> None:
    col = column(CREATE, "kind")
    assert (col["enumValues"], col["length"], col["jdbcType"]) == (["'a'", "'b'"], 1, 1)


def test_a_current_timestamp_default_shows_as_debeziums_epoch_text_and_fsp_as_length() -> None:
    col = column(CREATE, "at")
    assert (col["defaultValueExpression"], col["length"], col["jdbcType"]) == ("1970-01-01 00:00:00", 3, 93)


def test_a_binary_blob_is_a_blob_without_charset() -> None:
    col = column(CREATE, "data")
    assert (col["typeName"], col["jdbcType"], col["charsetName"]) == ("BLOB", 2004, None)


def test_a_ddl_reads_back_carrying_the_schema_of_its_table_block() -> None:
    [ddl] = cdcwire.decode(URI, cdcwire.encode(URI, [CREATE]))
    got = ddl.table_schema
    assert [(c.name, c.type, c.flags, c.mysql_type, c.default) for c in got.columns] == [
        ("id", T.INT, KEY | F.UNSIGNED, "int unsigned", None),  # TiDB's default width shows no length
        ("name", T.VARCHAR, F.NULLABLE, "varchar(255)", "anon"),
        ("price", T.DECIMAL, F.NULLABLE, "decimal(10,2)", None),
        ("kind", T.ENUM, F.NULLABLE, "enum('a','b')", None),
        ("at", T.DATETIME, F(0), "datetime(3)", "1970-01-01 00:00:00"),
        ("data", T.BLOB, F.NULLABLE | F.BINARY, "blob", None),
    ]
    assert (got.primary_key, got.charset) == (("id",), "utf8mb4")


def test_a_ddl_without_a_table_block_reads_back_without_a_schema() -> None:
    drop = DDLEvent(1, "shop", "items", "DROP TABLE items", DDLType.DROP_TABLE)
    [ddl] = cdcwire.decode(URI, cdcwire.encode(URI, [drop]))
    assert ddl.table_schema is None


def test_rows_read_back_carrying_the_schema_their_connect_schema_says_one_object_per_table() -> None:
    columns = (Column("id", T.INT, KEY, 1, "int(11)"), Column("name", T.VARCHAR, F.NULLABLE, "a", "varchar(8)"))
    rows = [RowChangedEvent(ts, "shop", "items", columns) for ts in (1, 2)]
    first, second = cdcwire.decode(URI, cdcwire.encode(URI, rows))
    assert [(c.name, c.type, c.is_handle_key, c.nullable) for c in first.table_schema.columns] == [
        ("id", T.INT, True, False), ("name", T.VARCHAR, False, True),
    ]
    assert second.table_schema is first.table_schema


def test_a_table_block_with_a_type_tidb_does_not_name_is_refused_naming_the_field() -> None:
    [message] = cdcwire.encode(URI, [CREATE])
    value = json.loads(message.value)
    value["payload"]["tableChanges"][0]["table"]["columns"][1]["typeName"] = "WIDGET"
    broken = Message(message.topic, message.partition, message.key, json.dumps(value).encode())
    with pytest.raises(DecodeError, match=r"tableChanges\[0\]\.table\.columns\[1\]\.typeName 'WIDGET'"):
        cdcwire.decode(URI, [broken])
