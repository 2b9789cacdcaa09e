"""The TiDB extension fields carry their defaults, as the reference's schema has since v7.1.

With the defaults, the registered text is TiCDC's (so is its schema id), and turning
``enable-tidb-extension`` on for a subject that already has versions without it is a
BACKWARD-compatible change the registry accepts.
"""

from __future__ import annotations

import requests
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire_avro.testing import LocalSchemaRegistry

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
SUBJECT = "tidb_shop_orders-value"
COMMIT_TS = 449 << 18


def order(key: int) -> RowChangedEvent:
    columns = (Column("id", ColumnType.INT, KEY, key, "int(11)"),)
    return RowChangedEvent(COMMIT_TS, "shop", "orders", columns)


def latest_text(schema_registry: LocalSchemaRegistry) -> str:
    return requests.get(f"{schema_registry.url}/subjects/{SUBJECT}/versions/latest", timeout=5).json()["schema"]


def test_registered_value_schema_text_ends_with_the_reference_extension_fields(schema_registry, avro_uri) -> None:
    cdcwire.encode(avro_uri + "&enable-tidb-extension=true", [order(1)])
    assert latest_text(schema_registry).endswith(
        '{"default":"","name":"_tidb_op","type":"string"},'
        '{"default":0,"name":"_tidb_commit_ts","type":"long"},'
        '{"default":0,"name":"_tidb_commit_physical_time","type":"long"}]}'
    )


def test_turning_the_extension_on_for_an_existing_subject_is_accepted_as_backward_compatible(
    schema_registry, avro_uri
) -> None:
    cdcwire.encode(avro_uri, [order(1)])
    cdcwire.encode(avro_uri + "&enable-tidb-extension=true", [order(2)])
    assert schema_registry.versions(SUBJECT) == [1, 2]


def test_confluent_deserializer_reads_both_versions_and_fills_the_defaults_for_the_old_one(
    schema_registry, avro_uri
) -> None:
    [before] = cdcwire.encode(avro_uri, [order(1)])
    [after] = cdcwire.encode(avro_uri + "&enable-tidb-extension=true", [order(2)])
    client = SchemaRegistryClient({"url": schema_registry.url})
    context = SerializationContext(before.topic, MessageField.VALUE)

    as_written = AvroDeserializer(client)
    assert as_written(after.value, context) == {
        "id": 2, "_tidb_op": "c", "_tidb_commit_ts": COMMIT_TS, "_tidb_commit_physical_time": 449,
    }
    with_latest = AvroDeserializer(client, conf={"use.latest.version": True})
    assert with_latest(before.value, context) == {
        "id": 1, "_tidb_op": "", "_tidb_commit_ts": 0, "_tidb_commit_physical_time": 0,
    }
