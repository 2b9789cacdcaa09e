"""Fixtures of the avro plugin's own tests: a fresh local Schema Registry per test."""

from __future__ import annotations

import pytest

from cdcwire_avro.testing import LocalSchemaRegistry
from cdcwire_avro.testing.fixtures import schema_registry  # noqa: F401  (a fixture, found by name)


@pytest.fixture
def avro_uri(schema_registry: LocalSchemaRegistry) -> str:  # noqa: F811  (the fixture)
    """A sink URI for protocol avro with one topic per table and the local registry."""
    return (
        "file:///tmp/cdcwire-avro/t?protocol=avro&topic-rule=tidb_{schema}_{table}"
        f"&schema-registry={schema_registry.url}"
    )
