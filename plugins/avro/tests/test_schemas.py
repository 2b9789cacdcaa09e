"""The key and value schemas the encoder registers, field by field."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, EncodeError, RowChangedEvent
from cdcwire_avro.testing import LocalSchemaRegistry

F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def registered(schema_registry: LocalSchemaRegistry, subject: str) -> dict:
    import requests

    answer = requests.get(f"{schema_registry.url}/subjects/{subject}/versions/latest", timeout=5).json()
    return json.loads(answer["schema"])


def encode_one(uri: str, *columns: Column, schema: str = "shop", table: str = "orders") -> list[cdcwire.Message]:
    row = RowChangedEvent(5, schema, table, (Column("id", T.INT, KEY, 1, "int(11)"), *columns))
    return cdcwire.encode(uri, [row])


def value_field(schema_registry: LocalSchemaRegistry, uri: str, column: Column) -> dict:
    encode_one(uri, column)
    fields = registered(schema_registry, "tidb_shop_orders-value")["fields"]
    return next(f for f in fields if f["name"] == column.name)


def test_key_schema_holds_only_the_handle_key_columns(schema_registry, avro_uri) -> None:
    encode_one(avro_uri, Column("name", T.VARCHAR, F(0), "x", "varchar(10)"))
    key = registered(schema_registry, "tidb_shop_orders-key")
    assert [f["name"] for f in key["fields"]] == ["id"]
    assert key["fields"][0]["type"] == {"connect.parameters": {"tidb_type": "INT"}, "type": "int"}


def test_value_schema_holds_every_column_in_table_order(schema_registry, avro_uri) -> None:
    encode_one(avro_uri, Column("b", T.VARCHAR, F(0), "x"), Column("a", T.DOUBLE, F(0), 1.5))
    value = registered(schema_registry, "tidb_shop_orders-value")
    assert [f["name"] for f in value["fields"]] == ["id", "b", "a"]


def test_record_is_named_after_the_table_in_the_default_schema_namespace(schema_registry, avro_uri) -> None:
    encode_one(avro_uri, schema="shop", table="orders")
    value = registered(schema_registry, "tidb_shop_orders-value")
    assert (value["name"], value["namespace"]) == ("orders", "default.shop")


def test_names_are_sanitised_for_avro(schema_registry, avro_uri) -> None:
    encode_one(avro_uri, Column("unit-price", T.DOUBLE, F(0), 1.0), schema="my.db", table="2024-orders")
    value = registered(schema_registry, "tidb_my.db_2024-orders-value")
    assert value["name"] == "_2024_orders"
    assert value["namespace"] == "default.my_db"
    assert value["fields"][1]["name"] == "unit_price"


def test_nullable_column_is_a_union_with_null_first_and_default_null(schema_registry, avro_uri) -> None:
    field = value_field(schema_registry, avro_uri, Column("note", T.VARCHAR, F.NULLABLE, None, "varchar(9)"))
    assert field == {
        "default": None,
        "name": "note",
        "type": ["null", {"connect.parameters": {"tidb_type": "TEXT"}, "type": "string"}],
    }


@pytest.mark.parametrize(
    ("column", "avro_type"),
    [
        (Column("c", T.TINYINT, F.UNSIGNED, 1, "tinyint(3) unsigned"), {"tidb_type": "INT UNSIGNED", "type": "int"}),
        (Column("c", T.INT, F.UNSIGNED, 1, "int(10) unsigned"), {"tidb_type": "INT UNSIGNED", "type": "long"}),
        (Column("c", T.BIGINT, F(0), 1, "bigint(20)"), {"tidb_type": "BIGINT", "type": "long"}),
        (Column("c", T.BIGINT, F.UNSIGNED, 1, "bigint(20) unsigned"), {"tidb_type": "BIGINT UNSIGNED", "type": "long"}),
        (Column("c", T.FLOAT, F(0), 1.0, "float"), {"tidb_type": "FLOAT", "type": "float"}),
        (Column("c", T.DOUBLE, F(0), 1.0, "double"), {"tidb_type": "DOUBLE", "type": "double"}),
        (Column("c", T.BLOB, F.BINARY, b"x", "blob"), {"tidb_type": "BLOB", "type": "bytes"}),
        (Column("c", T.VARCHAR, F.BINARY, b"x", "varbinary(3)"), {"tidb_type": "BLOB", "type": "bytes"}),
        (Column("c", T.BLOB, F(0), "x", "text"), {"tidb_type": "TEXT", "type": "string"}),
        (Column("c", T.JSON, F.BINARY, "{}", "json"), {"tidb_type": "JSON", "type": "string"}),
        (Column("c", T.DATE, F.BINARY, "2024-01-02", "date"), {"tidb_type": "DATE", "type": "string"}),
        (Column("c", T.TIME, F.BINARY, "10:00:00", "time"), {"tidb_type": "TIME", "type": "string"}),
        (Column("c", T.YEAR, F.UNSIGNED, 2024, "year(4)"), {"tidb_type": "YEAR", "type": "int"}),
    ],
)
def test_column_types_map_as_the_reference_does(schema_registry, avro_uri, column: Column, avro_type: dict) -> None:
    field = value_field(schema_registry, avro_uri, column)
    assert field["type"] == {"connect.parameters": {"tidb_type": avro_type["tidb_type"]}, "type": avro_type["type"]}


def test_decimal_is_bytes_with_precision_and_scale_from_the_mysql_type(schema_registry, avro_uri) -> None:
    field = value_field(schema_registry, avro_uri, Column("c", T.DECIMAL, F(0), "1.5", "decimal(10,4)"))
    assert field["type"] == {
        "connect.parameters": {"tidb_type": "DECIMAL"},
        "logicalType": "decimal",
        "precision": 10,
        "scale": 4,
        "type": "bytes",
    }


def test_decimal_in_string_mode_is_a_string(schema_registry, avro_uri) -> None:
    uri = avro_uri + "&avro-decimal-handling-mode=string"
    field = value_field(schema_registry, uri, Column("c", T.DECIMAL, F(0), "1.5", "decimal(10,4)"))
    assert field["type"] == {"connect.parameters": {"tidb_type": "DECIMAL"}, "type": "string"}


def test_unsigned_bigint_in_string_mode_is_a_string(schema_registry, avro_uri) -> None:
    uri = avro_uri + "&avro-bigint-unsigned-handling-mode=string"
    field = value_field(schema_registry, uri, Column("c", T.BIGINT, F.UNSIGNED, 1, "bigint(20) unsigned"))
    assert field["type"] == {"connect.parameters": {"tidb_type": "BIGINT UNSIGNED"}, "type": "string"}


def test_decimal_without_its_mysql_type_is_a_clear_error(avro_uri) -> None:
    with pytest.raises(EncodeError, match=r"column 'c': DECIMAL needs its MySQL type text such as decimal\(10,4\)"):
        encode_one(avro_uri, Column("c", T.DECIMAL, F(0), "1.5", None))


def test_bit_carries_its_length(schema_registry, avro_uri) -> None:
    field = value_field(schema_registry, avro_uri, Column("c", T.BIT, F.UNSIGNED, 5, "bit(12)"))
    assert field["type"] == {"connect.parameters": {"tidb_type": "BIT", "length": "12"}, "type": "bytes"}


def test_a_bit_of_no_width_carries_no_length_and_its_value_reads_back(schema_registry, avro_uri) -> None:
    """MySQL's default bit(1) would refuse 2620, which the event model, given no width, accepts."""
    column = Column("c", T.BIT, F.UNSIGNED, 2620, "bit")
    field = value_field(schema_registry, avro_uri, column)
    assert field["type"] == {"connect.parameters": {"tidb_type": "BIT"}, "type": "bytes"}
    uri = avro_uri + "&enable-tidb-extension=true"
    key = Column("id", T.INT, KEY, 1, "int(11)")
    written = cdcwire.encode(uri, [RowChangedEvent(5, "s", "t", (key, column))])
    (back,) = [e for e in cdcwire.decode(uri, written) if isinstance(e, RowChangedEvent)]
    assert (back.columns[1].value, back.columns[1].mysql_type) == (2620, "bit")


def test_enum_and_set_carry_their_allowed_elements(schema_registry, avro_uri) -> None:
    encode_one(
        avro_uri,
        Column("e", T.ENUM, F(0), 1, "enum('small','big')"),
        Column("s", T.SET, F(0), 3, "set('a','b,c')"),
    )
    fields = registered(schema_registry, "tidb_shop_orders-value")["fields"]
    assert fields[1]["type"] == {"connect.parameters": {"tidb_type": "ENUM", "allowed": "small,big"}, "type": "string"}
    assert fields[2]["type"] == {"connect.parameters": {"tidb_type": "SET", "allowed": "a,b\\,c"}, "type": "string"}


def test_extension_appends_op_commit_ts_and_physical_time(schema_registry, avro_uri) -> None:
    encode_one(avro_uri + "&enable-tidb-extension=true")
    value = registered(schema_registry, "tidb_shop_orders-value")
    assert value["fields"][-3:] == [
        {"default": "", "name": "_tidb_op", "type": "string"},
        {"default": 0, "name": "_tidb_commit_ts", "type": "long"},
        {"default": 0, "name": "_tidb_commit_physical_time", "type": "long"},
    ]
    assert [f["name"] for f in registered(schema_registry, "tidb_shop_orders-key")["fields"]] == ["id"]


def test_columns_that_sanitise_to_one_name_are_refused(avro_uri) -> None:
    with pytest.raises(EncodeError, match="'a-b' and 'a_b' both become Avro field 'a_b'"):
        encode_one(avro_uri, Column("a-b", T.INT, F(0), 1), Column("a_b", T.INT, F(0), 2))


def test_table_without_handle_key_is_refused(avro_uri) -> None:
    row = RowChangedEvent(5, "shop", "orders", (Column("n", T.INT, F(0), 1),))
    with pytest.raises(EncodeError, match="has no handle-key column"):
        cdcwire.encode(avro_uri, [row])
