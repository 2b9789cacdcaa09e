"""The local registry speaks the Confluent API: held to confluent_kafka's own SchemaRegistryClient."""

from __future__ import annotations

import json

import pytest
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.error import SchemaRegistryError

from cdcwire_avro.testing import LocalSchemaRegistry


def record(*fields: dict, name: str = "orders") -> Schema:
    return Schema(json.dumps({"type": "record", "name": name, "fields": list(fields)}), "AVRO")


ID = {"name": "id", "type": "int"}
NOTE = {"name": "note", "type": ["null", "string"], "default": None}


@pytest.fixture
def client(schema_registry: LocalSchemaRegistry) -> SchemaRegistryClient:
    return SchemaRegistryClient({"url": schema_registry.url})


def test_same_schema_under_two_subjects_gets_one_id(client) -> None:
    assert client.register_schema("a-value", record(ID)) == client.register_schema("b-value", record(ID)) == 1


def test_registering_again_returns_the_existing_id_and_version(client) -> None:
    client.register_schema("a-value", record(ID))
    fresh = SchemaRegistryClient({"url": client._rest_client.base_urls[0]})
    assert fresh.register_schema("a-value", record(ID)) == 1
    assert fresh.get_versions("a-value") == [1]


def test_schema_is_fetched_by_id(client) -> None:
    schema_id = client.register_schema("a-value", record(ID, NOTE))
    fresh = SchemaRegistryClient({"url": client._rest_client.base_urls[0]})
    assert json.loads(fresh.get_schema(schema_id).schema_str)["fields"] == [ID, NOTE]


def test_unknown_id_is_404_schema_not_found(client) -> None:
    with pytest.raises(SchemaRegistryError) as info:
        client.get_schema(42)
    assert (info.value.http_status_code, info.value.error_code) == (404, 40403)


def test_versions_latest_and_numbered(client) -> None:
    client.register_schema("a-value", record(ID))
    client.register_schema("a-value", record(ID, NOTE))
    assert client.get_versions("a-value") == [1, 2]
    latest = client.get_latest_version("a-value")
    assert (latest.version, latest.schema_id) == (2, 2)
    assert client.get_version("a-value", 1).schema_id == 1
    assert client.get_subjects() == ["a-value"]


def test_lookup_finds_the_version_of_a_registered_schema(client) -> None:
    client.register_schema("a-value", record(ID))
    client.register_schema("a-value", record(ID, NOTE))
    found = client.lookup_schema("a-value", record(ID))
    assert (found.version, found.schema_id) == (1, 1)


def test_new_field_without_default_is_409_under_backward(client) -> None:
    client.register_schema("a-value", record(ID))
    with pytest.raises(SchemaRegistryError) as info:
        client.register_schema("a-value", record(ID, {"name": "qty", "type": "int"}))
    assert info.value.http_status_code == 409
    assert "new field 'qty' has no default value" in info.value.error_message


def test_removing_a_field_is_backward_compatible(client) -> None:
    client.register_schema("a-value", record(ID, NOTE))
    assert client.register_schema("a-value", record(ID)) == 2


def test_type_change_is_checked_with_avro_promotions(client) -> None:
    client.register_schema("a-value", record(ID))
    assert client.test_compatibility("a-value", record({"name": "id", "type": "long"})) is True
    assert client.test_compatibility("a-value", record({"name": "id", "type": "string"})) is False
    assert client.test_compatibility("a-value", record(ID, name="other")) is False


def test_compatibility_none_accepts_any_change(client) -> None:
    client.register_schema("a-value", record(ID))
    assert client.set_compatibility("a-value", "NONE") == {"compatibility": "NONE"}
    assert client.register_schema("a-value", record({"name": "x", "type": "string"})) == 2
    assert client.get_compatibility() == "BACKWARD"


def test_basic_auth_is_required_when_configured() -> None:
    with LocalSchemaRegistry(username="u", password="p") as secured:
        denied = SchemaRegistryClient({"url": secured.url})
        with pytest.raises(SchemaRegistryError) as info:
            denied.get_subjects()
        assert info.value.http_status_code == 401
        allowed = SchemaRegistryClient({"url": secured.url, "basic.auth.user.info": "u:p"})
        assert allowed.get_subjects() == []


def test_fault_switch_answers_5xx_then_recovers(schema_registry: LocalSchemaRegistry) -> None:
    client = SchemaRegistryClient({"url": schema_registry.url, "max.retries": 0})
    schema_registry.fail_next(1, 503)
    with pytest.raises(SchemaRegistryError) as info:
        client.get_subjects()
    assert info.value.http_status_code == 503
    assert client.get_subjects() == []


@pytest.mark.parametrize("text", ['{"type": "record", "name": "x"}', '{"type": "nonsense"}', "{not json"])
def test_invalid_schema_is_422(client, text: str) -> None:
    with pytest.raises(SchemaRegistryError) as info:
        client.register_schema("a-value", Schema(text, "AVRO"))
    assert (info.value.http_status_code, info.value.error_code) == (422, 42201)
