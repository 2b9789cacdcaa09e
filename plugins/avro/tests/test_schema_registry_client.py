"""The encoder's registry client against faults: retries, unreachable, bad credentials, 409."""

from __future__ import annotations

import base64
import json
import socket
from urllib.parse import quote

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire_avro import SchemaRegistryClient, SchemaRegistryError
from cdcwire_avro.testing import LocalSchemaRegistry
from cdcwire.sinks.sink import open_sink

T = ColumnType
F = ColumnFlag
KEY = F.HANDLE_KEY | F.PRIMARY_KEY
SCHEMA = '{"type":"record","name":"t","fields":[{"name":"a","type":"int"}]}'


def uri(registry_url: str) -> str:
    """The registry URL is a query value of the sink URI: percent-encoded as a whole."""
    return (
        "file:///tmp/x/t?protocol=avro&topic-rule=tidb_{schema}_{table}&partition-num=1"
        f"&schema-registry={quote(registry_url, safe='')}"
    )


def rows(*extra: Column) -> list[RowChangedEvent]:
    return [RowChangedEvent(9, "shop", "fruit", (Column("id", T.INT, KEY, k, "int(11)"), *extra)) for k in range(3)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_two_503s_then_success_are_retried_and_register_once(schema_registry: LocalSchemaRegistry) -> None:
    schema_registry.fail_next(2, 503)
    messages = cdcwire.encode(uri(schema_registry.url), rows())
    assert len(messages) == 3
    assert schema_registry.registrations == 2  # the key and the value schema, once each
    assert schema_registry.versions("tidb_shop_fruit-value") == [1]


def test_registry_that_keeps_failing_gives_up_with_the_status(schema_registry: LocalSchemaRegistry) -> None:
    schema_registry.fail_for(60, 503)
    client = SchemaRegistryClient(schema_registry.url, retry_seconds=0.3, backoff=0.01)
    gave_up = r"answered 503 .* \(gave up after \d+ attempts over 0\.\d s"
    with pytest.raises(SchemaRegistryError, match=gave_up) as info:
        client.register("s-value", SCHEMA)
    assert info.value.status == 503


def test_unreachable_registry_is_a_clear_error_and_nothing_is_written() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    encoder_config = cdcwire.parse_sink_uri(uri(url) + "&schema-registry-retry-seconds=0")
    encoder = open_sink(encoder_config).codec.encoder(encoder_config, "tidb_shop_fruit", 0)
    written = []
    gave_up = rf"cannot reach schema registry {url}.*after 1 attempt over"
    with pytest.raises(SchemaRegistryError, match=gave_up):
        for payload in encoder.encode(rows()):
            written.append(payload)
    assert written == []


def test_wrong_password_is_a_401_error_without_the_password() -> None:
    with LocalSchemaRegistry(username="alice", password="right") as secured:
        bad = secured.url_with_credentials(password="wr0ng-s3cret")
        with pytest.raises(SchemaRegistryError) as info:
            cdcwire.encode(uri(bad), rows())
    assert info.value.status == 401
    assert "refused the credentials for user 'alice'" in str(info.value)
    assert "wr0ng-s3cret" not in str(info.value) and "wr0ng-s3cret" not in repr(info.value)


def test_right_password_from_the_url_is_sent_as_basic_auth() -> None:
    with LocalSchemaRegistry(username="al ice", password="p@ss:w/rd") as secured:
        messages = cdcwire.encode(uri(secured.url_with_credentials()), rows())
        assert len(messages) == 3
        assert cdcwire.decode(uri(secured.url_with_credentials()), messages)[0].columns[0].value == 0


def test_incompatible_schema_names_the_table_and_the_subject(schema_registry: LocalSchemaRegistry) -> None:
    cdcwire.encode(uri(schema_registry.url), rows())
    not_null = Column("weight", T.INT, F(0), 5, "int(11)")
    with pytest.raises(SchemaRegistryError, match=r"table shop\.fruit: .*subject 'tidb_shop_fruit-value'.*409") as info:
        cdcwire.encode(uri(schema_registry.url), rows(not_null))
    assert info.value.status == 409 and info.value.subject == "tidb_shop_fruit-value"


def test_registry_url_with_unencoded_credentials_is_refused_without_echoing_them() -> None:
    with pytest.raises(cdcwire.SinkURIError, match="percent-encode") as info:
        cdcwire.parse_sink_uri(uri("http://bob:pa/ss@w0rd@127.0.0.1:1").replace("%2F", "/"))
    assert "w0rd" not in str(info.value)


def test_client_repr_shows_no_credentials() -> None:
    client = SchemaRegistryClient("https://bob:hunter2@registry.example:8081/base/")
    assert repr(client) == "SchemaRegistryClient('https://registry.example:8081/base')"
    assert "hunter2" not in repr(client.address)


def test_a_500_that_echoes_the_request_shows_no_credentials() -> None:
    with LocalSchemaRegistry(username="alice", password="hunter2-s3cret") as secured:
        secured.fail_next(1, 500, echo_request=True)
        client = SchemaRegistryClient(secured.url_with_credentials(), retry_seconds=0)
        with pytest.raises(SchemaRegistryError) as info:
            client.register("s-value", SCHEMA)
    text = str(info.value)
    token = base64.b64encode(b"alice:hunter2-s3cret").decode()
    assert "answered 500" in text and "Authorization" in text  # the echo is there, its value masked
    assert token not in text and "hunter2-s3cret" not in text and "Basic ***" in text


def test_a_registry_url_without_its_scheme_is_refused_without_its_password() -> None:
    with pytest.raises(cdcwire.SinkURIError, match="http:// or https://") as info:
        cdcwire.parse_sink_uri(uri("bob:hunter2@127.0.0.1:8081"))
    from cdcwire.uris.sink_uri import split_sink_uri

    assert "hunter2" not in str(info.value) and "hunter2" not in repr(split_sink_uri(uri("bob:hunter2@127.0.0.1:8081")))


def test_all_schemas_gives_every_version_of_every_subject_by_id(schema_registry: LocalSchemaRegistry) -> None:
    client = SchemaRegistryClient(schema_registry.url)
    widened = SCHEMA.replace(']}', ',{"name":"b","type":"int","default":0}]}')
    first = client.register("tidb_shop_fruit-value", SCHEMA)
    second = client.register("tidb_shop_fruit-value", widened)
    key = client.register("tidb_shop_fruit-key", SCHEMA.replace('"name":"t"', '"name":"k"'))
    schemas = SchemaRegistryClient(schema_registry.url).all_schemas()
    assert len({first, second, key}) == 3
    assert set(schemas) == {first, second, key}
    assert [sorted(field["name"] for field in json.loads(schemas[i])["fields"]) for i in (first, second)] == [
        ["a"], ["a", "b"],
    ]
