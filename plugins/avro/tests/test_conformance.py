"""The shared codec conformance suite, run against a local registry.

The suite encodes several tables into one topic-partition, which avro's
one-table-per-topic rule forbids in production; the registry here runs with
compatibility NONE so those schemas can share the subject.
"""

from __future__ import annotations

from typing import Iterator

import pytest

from cdcwire.testing.conformance import CodecConformance
from cdcwire_avro.testing import LocalSchemaRegistry


class TestAvroConformance(CodecConformance):
    @pytest.fixture
    def conformance_uri(self) -> Iterator[str]:
        with LocalSchemaRegistry(compatibility="NONE") as schema_registry:
            yield (
                "file:///tmp/cdcwire-avro/t?protocol=avro&topic-rule=tidb_{schema}_{table}"
                f"&schema-registry={schema_registry.url}"
            )


class TestAvroConformanceWithExtensionAndStrings(CodecConformance):
    @pytest.fixture
    def conformance_uri(self) -> Iterator[str]:
        with LocalSchemaRegistry(compatibility="NONE") as schema_registry:
            yield (
                "file:///tmp/cdcwire-avro/t?protocol=avro&topic-rule=tidb_{schema}_{table}"
                "&enable-tidb-extension=true&avro-decimal-handling-mode=string"
                f"&avro-bigint-unsigned-handling-mode=string&schema-registry={schema_registry.url}"
            )
