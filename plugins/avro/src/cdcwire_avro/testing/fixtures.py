"""pytest fixtures for tests that need a Schema Registry: a fresh local one per test.

One definition for the avro plugin's own tests and the repository's cross-package tests
(and anyone testing against this plugin): import the fixtures into a ``conftest.py``::

    from cdcwire_avro.testing.fixtures import schema_registry, secured_schema_registry  # noqa: F401

Importing this module needs pytest; nothing on the codec's runtime path imports it.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from .schema_registry import LocalSchemaRegistry

#: The credentials :func:`secured_schema_registry` demands (a password with URL-special characters).
REGISTRY_USER = "cdc-user"
REGISTRY_PASSWORD = "p@ss:w/rd%"


@pytest.fixture
def schema_registry() -> Iterator[LocalSchemaRegistry]:
    """A running registry with BACKWARD compatibility and no authentication."""
    with LocalSchemaRegistry() as registry:
        yield registry


@pytest.fixture
def secured_schema_registry() -> Iterator[LocalSchemaRegistry]:
    """A running registry that demands basic auth (REGISTRY_USER / REGISTRY_PASSWORD)."""
    with LocalSchemaRegistry(username=REGISTRY_USER, password=REGISTRY_PASSWORD) as registry:
        yield registry
