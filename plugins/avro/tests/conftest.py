"""Fixtures of the avro plugin's own tests: a fresh local Schema Registry per test."""

from __future__ import annotations

from typing import Iterator

import pytest

from cdcwire_avro.testing import LocalSchemaRegistry


@pytest.fixture
def registry() -> Iterator[LocalSchemaRegistry]:
    with LocalSchemaRegistry() as running:
        yield running


@pytest.fixture
def avro_uri(registry: LocalSchemaRegistry) -> str:
    """A sink URI for protocol avro with one topic per table and the local registry."""
    return f"file:///tmp/cdcwire-avro/t?protocol=avro&topic-rule=tidb_{{schema}}_{{table}}&schema-registry={registry.url}"
