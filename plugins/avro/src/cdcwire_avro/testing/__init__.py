"""Testing aids of the avro plugin: a local Confluent-compatible Schema Registry.

Not on the codec's runtime path: nothing in the encoder or decoder imports it.
"""

from __future__ import annotations

from .schema_registry import LocalSchemaRegistry

__all__ = ["LocalSchemaRegistry"]
