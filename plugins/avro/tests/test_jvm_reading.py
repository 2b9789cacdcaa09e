"""The driver side of avro's JVM tier: the schemas and options its Java decoder is made with."""

from __future__ import annotations

import json
import socket
from urllib.parse import quote

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire_avro.jvm_reading import config_text, decoder_config
from cdcwire_avro.testing import LocalSchemaRegistry

T = ColumnType
KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def uri(registry_url: str, extra: str = "") -> str:
    return (
        "file:///tmp/x/t?protocol=avro&topic-rule=tidb_{schema}_{table}&partition-num=1"
        f"&schema-registry={quote(registry_url, safe='')}{extra}"
    )


def rows() -> list[RowChangedEvent]:
    return [RowChangedEvent(9, "shop", "fruit", (
        Column("id", T.INT, KEY, 1, "int(11)"),
        Column("name", T.VARCHAR, ColumnFlag(0), "pear", "varchar(8)"),
    ))]


def schema_ids(message: cdcwire.Message) -> set[int]:
    """The Confluent framing's schema ids of a message's key and value (magic byte, 4-byte id)."""
    return {int.from_bytes(part[1:5], "big") for part in (message.key, message.value) if part}


def test_decoder_config_holds_the_schema_of_every_id_the_encoder_registered(
    schema_registry: LocalSchemaRegistry,
) -> None:
    messages = cdcwire.encode(uri(schema_registry.url), rows())
    config = decoder_config(cdcwire.parse_sink_uri(uri(schema_registry.url)))
    ids = schema_ids(messages[0])
    assert len(ids) == 2
    assert {int(i) for i in config["schemas"]} == ids
    assert all(json.loads(text)["type"] == "record" for text in config["schemas"].values())


def test_decoder_config_carries_the_options_that_shape_values(schema_registry: LocalSchemaRegistry) -> None:
    extra = "&avro-decimal-handling-mode=string&avro-bigint-unsigned-handling-mode=string"
    config = decoder_config(cdcwire.parse_sink_uri(uri(schema_registry.url, extra)))
    assert (config["decimalAsString"], config["bigintUnsignedAsString"], config["tidbExtension"]) == (
        True, True, False,
    )


def test_config_text_never_holds_the_registry_credentials() -> None:
    with LocalSchemaRegistry(username="alice", password="hunter2-s3cret") as secured:
        cdcwire.encode(uri(secured.url_with_credentials()), rows())
        text = config_text(cdcwire.parse_sink_uri(uri(secured.url_with_credentials())))
    assert len(json.loads(text)["schemas"]) == 2
    assert "hunter2-s3cret" not in text and "alice" not in text


def test_unreachable_registry_leaves_every_message_to_the_python_decoder() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    unreachable = uri(f"http://127.0.0.1:{port}", "&schema-registry-retry-seconds=0")
    config = decoder_config(cdcwire.parse_sink_uri(unreachable))
    assert config["schemas"] == {}


def test_decoder_config_has_a_field_table_for_each_schema_the_python_decoder_reads(
    schema_registry: LocalSchemaRegistry,
) -> None:
    cdcwire.encode(uri(schema_registry.url), rows())
    config = decoder_config(cdcwire.parse_sink_uri(uri(schema_registry.url)))
    tables = config["fields"]
    assert set(tables) == set(config["schemas"])
    value = max(tables.values(), key=lambda t: len(t["fields"]))
    assert (value["schema"], value["table"], value["extension"]) == ("shop", "fruit", False)
    assert [(f["name"], f["rule"]) for f in value["fields"]] == [("id", "plain"), ("name", "plain")]
    assert value["fields"][1]["type"] == "LONGBLOB" and value["fields"][1]["mysqlType"] == "longtext"


def test_field_table_names_the_rule_of_each_converting_kind() -> None:
    from cdcwire_avro.jvm_reading import field_table

    def typed(avro: str, tidb: str, **extra) -> dict:
        params = {"tidb_type": tidb, **{k: v for k, v in extra.items() if k in ("allowed", "length")}}
        return {"type": avro, "connect.parameters": params, **{k: v for k, v in extra.items() if k not in params}}

    schema = {"type": "record", "name": "t", "namespace": "default.db", "fields": [
        {"name": "u", "type": typed("long", "BIGINT UNSIGNED")},
        {"name": "us", "type": typed("string", "BIGINT UNSIGNED")},
        {"name": "b", "type": typed("bytes", "BIT", length="3")},
        {"name": "e", "type": typed("string", "ENUM", allowed="x,y")},
        {"name": "s", "type": typed("string", "SET", allowed="x,y")},
        {"name": "d", "type": typed("bytes", "DECIMAL", logicalType="decimal", precision=5, scale=2)},
    ]}
    table = field_table(1, json.dumps(schema))
    assert [f["rule"] for f in table["fields"]] == ["u64", "u64Text", "bit", "enum", "set", "decimal"]
    assert table["fields"][3]["elements"] == ["x", "y"] and table["fields"][5]["scale"] == 2


def test_field_table_is_none_for_a_schema_the_python_decoder_refuses() -> None:
    from cdcwire_avro.jvm_reading import field_table

    refused = {"type": "record", "name": "t", "fields": [{"name": "x", "type": "long"}]}
    assert field_table(1, json.dumps(refused)) is None
    assert field_table(2, '{"type": "string"}') is None
