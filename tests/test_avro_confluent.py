"""cdcwire's avro messages read by Confluent's own AvroDeserializer, from the same registry.

The registry is the local Confluent-compatible one (``schema_registry`` fixture);
the reader is ``confluent_kafka.schema_registry.avro.AvroDeserializer`` 2.16.
Expected values are written out here from the protocol document, not taken
from the plugin.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire_avro import SchemaRegistryError
from cdcwire.sinks.sink import open_sink

T = ColumnType
F = ColumnFlag
KEY = F.HANDLE_KEY | F.PRIMARY_KEY

MODES = [
    pytest.param(False, "precise", "long", id="plain-precise-long"),
    pytest.param(True, "precise", "long", id="extension-precise-long"),
    pytest.param(False, "string", "string", id="plain-string-string"),
    pytest.param(True, "string", "string", id="extension-string-string"),
]


def sink_uri(registry_url: str, extension: bool = False, decimal: str = "precise", bigint: str = "long") -> str:
    return (
        "file:///tmp/cdcwire-avro-confluent/t?protocol=avro&topic-rule=tidb_{schema}_{table}&partition-num=1"
        f"&enable-tidb-extension={str(extension).lower()}&avro-decimal-handling-mode={decimal}"
        f"&avro-bigint-unsigned-handling-mode={bigint}&schema-registry={registry_url}"
    )


def elements(mysql_type: str) -> list[str]:
    return re.findall(r"'([^']*)'", mysql_type)


def confluent_value(column: Column, decimal: str, bigint: str) -> Any:
    """What a Confluent consumer must see for a column value, per the protocol document."""
    v = column.value
    if v is None:
        return None
    if column.type == T.DECIMAL:
        return v if decimal == "string" else Decimal(v)
    if column.type == T.BIGINT and column.is_unsigned:
        return str(v) if bigint == "string" else (v - (1 << 64) if v >= 1 << 63 else v)
    if column.type == T.ENUM:
        return elements(column.mysql_type)[v - 1]
    if column.type == T.SET:
        return ",".join(e for i, e in enumerate(elements(column.mysql_type)) if v >> i & 1)
    if column.type == T.BIT:
        return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")
    return v


@pytest.mark.parametrize(("extension", "decimal", "bigint"), MODES)
def test_confluent_deserializer_reads_every_column_type(schema_registry, extension, decimal, bigint) -> None:
    uri = sink_uri(schema_registry.url, extension, decimal, bigint)
    deserialize = AvroDeserializer(SchemaRegistryClient({"url": schema_registry.url}))

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(row_events(all_types_table()), min_size=1, max_size=5))
    def check(events: list[RowChangedEvent]) -> None:
        messages = cdcwire.encode(uri, events)
        assert len(messages) == len(events)
        for event, message in zip(events, messages):
            key = deserialize(message.key, SerializationContext(message.topic, MessageField.KEY))
            assert key == {"id": event.image[0].value}
            value = deserialize(message.value, SerializationContext(message.topic, MessageField.VALUE))
            if event.is_delete:
                assert value is None
                continue
            assert {k: v for k, v in value.items() if not k.startswith("_tidb_")} == {
                c.name: confluent_value(c, decimal, bigint) for c in event.columns
            }
            if extension:
                op = "c" if event.is_insert else "u"
                assert (value["_tidb_op"], value["_tidb_commit_ts"]) == (op, event.commit_ts)
                assert value["_tidb_commit_physical_time"] == event.commit_ts >> 18
            else:
                assert not any(k.startswith("_tidb_") for k in value)

    check()


@pytest.mark.parametrize(("extension", "decimal", "bigint"), MODES)
def test_cdcwire_reads_back_what_it_wrote_for_every_type(schema_registry, extension, decimal, bigint) -> None:
    uri = sink_uri(schema_registry.url, extension, decimal, bigint)
    config = cdcwire.parse_sink_uri(uri)

    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(row_events(all_types_table()), min_size=1, max_size=5))
    def check(events: list[RowChangedEvent]) -> None:
        back = cdcwire.decode(uri, cdcwire.encode(uri, events))
        assert back == [open_sink(config).codec.carrier(config)(e) for e in events]
        for event, decoded in zip(events, back):  # the generated values are all exactly representable
            sent = [c for c in event.image if c.is_handle_key] if event.is_delete else list(event.columns)
            assert [c.value for c in decoded.image] == [c.value for c in sent]

    check()


def fruit(key: int, *extra: Column) -> RowChangedEvent:
    cols = (Column("id", T.INT, KEY, key, "int(11)"), Column("name", T.VARCHAR, F.NULLABLE, "apple", "varchar(9)"))
    return RowChangedEvent(449 << 18, "shop", "fruit", cols + extra)


def test_adding_a_nullable_column_makes_version_two_and_confluent_reads_both(schema_registry) -> None:
    uri = sink_uri(schema_registry.url)
    v1 = cdcwire.encode(uri, [fruit(1)])
    v2 = cdcwire.encode(uri, [fruit(2, Column("color", T.VARCHAR, F.NULLABLE, "red", "varchar(9)"))])
    client = SchemaRegistryClient({"url": schema_registry.url})
    assert client.get_versions("tidb_shop_fruit-value") == [1, 2]
    assert client.get_versions("tidb_shop_fruit-key") == [1]

    as_written = AvroDeserializer(client)
    ctx = SerializationContext("tidb_shop_fruit", MessageField.VALUE)
    assert as_written(v1[0].value, ctx) == {"id": 1, "name": "apple"}
    assert as_written(v2[0].value, ctx) == {"id": 2, "name": "apple", "color": "red"}

    with_latest = AvroDeserializer(client, conf={"use.latest.version": True})
    assert with_latest(v1[0].value, ctx) == {"id": 1, "name": "apple", "color": None}

    old, new = cdcwire.decode(uri, v1 + v2)
    assert [c.name for c in old.columns] == ["id", "name"]
    assert [c.value for c in new.columns] == [2, "apple", "red"]


def test_adding_a_not_null_column_without_default_is_refused_with_409(schema_registry) -> None:
    uri = sink_uri(schema_registry.url)
    cdcwire.encode(uri, [fruit(1)])
    with pytest.raises(SchemaRegistryError, match=r"table shop\.fruit.*'tidb_shop_fruit-value'.*incompatible") as info:
        cdcwire.encode(uri, [fruit(2, Column("weight", T.INT, F(0), 5, "int(11)"))])
    assert info.value.status == 409
    assert SchemaRegistryClient({"url": schema_registry.url}).get_versions("tidb_shop_fruit-value") == [1]


def test_delete_is_a_tombstone_that_confluent_reads_as_key_and_none(schema_registry) -> None:
    uri = sink_uri(schema_registry.url)
    delete = fruit(7)
    [message] = cdcwire.encode(uri, [RowChangedEvent(delete.commit_ts, "shop", "fruit", None, delete.columns)])
    deserialize = AvroDeserializer(SchemaRegistryClient({"url": schema_registry.url}))
    assert deserialize(message.key, SerializationContext(message.topic, MessageField.KEY)) == {"id": 7}
    assert message.value is None


def test_confluent_deserializer_reads_through_basic_auth(secured_schema_registry) -> None:
    from urllib.parse import quote

    url = secured_schema_registry.url_with_credentials()
    messages = cdcwire.encode(sink_uri(quote(url, safe="")), [fruit(3)])
    client = SchemaRegistryClient(
        {"url": secured_schema_registry.url, "basic.auth.user.info": "cdc-user:p@ss:w/rd%"}
    )
    value = AvroDeserializer(client)(messages[0].value, SerializationContext(messages[0].topic, MessageField.VALUE))
    assert value == {"id": 3, "name": "apple"}
