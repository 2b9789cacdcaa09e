"""A registry outage: retried until ``schema-registry-retry-seconds`` have passed, then a clear error.

The registry here is the real local one over HTTP: it refuses connections (not
started yet) or answers 503 / 429 for a while, then serves again.
"""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import quote

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent, SinkURIError
from cdcwire_avro import SchemaRegistryError
from cdcwire_avro.testing import LocalSchemaRegistry

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def uri(registry_url: str, retry_seconds: object = None) -> str:
    text = (
        "file:///tmp/x/t?protocol=avro&topic-rule=tidb_{schema}_{table}&partition-num=1"
        f"&schema-registry={quote(registry_url, safe='')}"
    )
    return text if retry_seconds is None else text + f"&schema-registry-retry-seconds={retry_seconds}"


def rows() -> list[RowChangedEvent]:
    return [RowChangedEvent(9, "shop", "fruit", (Column("id", ColumnType.INT, KEY, k, "int(11)"),))
            for k in range(2)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_503_outage_longer_than_the_old_retry_budget_is_ridden_out(schema_registry: LocalSchemaRegistry) -> None:
    schema_registry.fail_for(1.5, 503)
    started = time.monotonic()
    messages = cdcwire.encode(uri(schema_registry.url), rows())
    assert len(messages) == 2
    assert time.monotonic() - started >= 1.4
    assert schema_registry.versions("tidb_shop_fruit-value") == [1]


def test_429_too_many_requests_is_retried(schema_registry: LocalSchemaRegistry) -> None:
    schema_registry.fail_for(0.5, 429)
    assert len(cdcwire.encode(uri(schema_registry.url), rows())) == 2


def test_a_registry_that_refuses_connections_until_it_starts_is_waited_for() -> None:
    port = free_port()
    late = LocalSchemaRegistry(port=port)
    starter = threading.Timer(1.0, late.start)
    starter.start()
    try:
        messages = cdcwire.encode(uri(f"http://127.0.0.1:{port}", retry_seconds=10), rows())
        assert len(messages) == 2
        assert late.versions("tidb_shop_fruit-value") == [1]
    finally:
        starter.join()
        late.stop()


def test_an_outage_past_the_deadline_fails_naming_registry_duration_and_last_failure(
    schema_registry: LocalSchemaRegistry,
) -> None:
    schema_registry.fail_for(60, 503)
    started = time.monotonic()
    with pytest.raises(SchemaRegistryError) as info:
        cdcwire.encode(uri(schema_registry.url, retry_seconds=1), rows())
    took = time.monotonic() - started
    message = str(info.value)
    assert 1.0 <= took < 3.0
    assert f"schema registry {schema_registry.url} answered 503" in message  # the registry and the last failure
    assert "Injected fault" in message
    assert "over 1." in message and "schema-registry-retry-seconds=1" in message  # how long it tried
    assert info.value.status == 503


def test_retry_seconds_zero_makes_a_single_attempt(schema_registry: LocalSchemaRegistry) -> None:
    schema_registry.fail_for(60, 503)
    with pytest.raises(SchemaRegistryError, match="gave up after 1 attempt over"):
        cdcwire.encode(uri(schema_registry.url, retry_seconds=0), rows())
    assert schema_registry.requests_served == 1


def test_giving_up_on_an_unreachable_registry_does_not_show_its_password() -> None:
    url = f"http://bob:s3cret-pw@127.0.0.1:{free_port()}"
    with pytest.raises(SchemaRegistryError) as info:
        cdcwire.encode(uri(url, retry_seconds=0), rows())
    assert "cannot reach schema registry http://127.0.0.1:" in str(info.value)
    assert "s3cret-pw" not in str(info.value) and "s3cret-pw" not in repr(info.value)


def test_a_4xx_answer_is_not_retried(schema_registry: LocalSchemaRegistry) -> None:
    schema_registry.fail_next(1, 422)
    with pytest.raises(SchemaRegistryError) as info:
        cdcwire.encode(uri(schema_registry.url), rows())
    assert info.value.status == 422
    assert schema_registry.requests_served == 1


@pytest.mark.parametrize("value", ["-1", "soon", "1.5"])
def test_retry_seconds_must_be_a_whole_number_of_seconds_from_zero(value: str) -> None:
    with pytest.raises(SinkURIError) as info:
        cdcwire.parse_sink_uri(uri("http://127.0.0.1:1", retry_seconds=value))
    assert info.value.parameter == "schema-registry-retry-seconds"
