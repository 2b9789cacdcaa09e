"""TiCDC's Avro protocol for cdcwire: Confluent wire format with a Schema Registry.

``protocol=avro&schema-registry=http://host:8081`` plus a topic rule holding
``{schema}`` and ``{table}`` (one table per topic, as TopicNameStrategy needs).
:mod:`cdcwire_avro.testing.schema_registry` ships a small Confluent-compatible
registry for tests and demos; the encoder and decoder never import it.
"""

from __future__ import annotations

from .codec import AvroCodec
from .schema_registry_client import SchemaRegistryClient, SchemaRegistryError

__all__ = ["AvroCodec", "SchemaRegistryClient", "SchemaRegistryError"]
