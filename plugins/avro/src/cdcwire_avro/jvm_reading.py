"""What avro's Java decoder is to be made with: the registry's schemas, fetched once on the driver.

Why on the driver: the configuration text is broadcast with the decoder's class, so executors
never ask the registry per message, and the registry's credentials stay in the plugin's own
client (:class:`.SchemaRegistryClient`), never in the text. A message whose key or value schema
id is not in ``schemas`` stays pending and the Python decoder reads it, asking the registry itself.

A registry that cannot be reached is not a refusal here: the configuration then carries no
schemas, every message stays pending, and the user sees the Python tier's error (its retries,
its wording), as the JVM-tier contract asks. The option flags let Java leave a message to Python
when a column's kind depends on an option it does not follow.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from cdcwire.plugin_api import SinkConfig

from .options import AvroOptions
from .schema_registry_client import SchemaRegistryError

log = logging.getLogger(__name__)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """``schemas`` (schema id as text -> the registry's schema JSON text) and the option flags."""
    options = AvroOptions.from_config(config)
    client = options.registry_client()
    try:
        schemas = client.all_schemas()
    except SchemaRegistryError as exc:
        log.warning("%s; avro messages are read by the Python decoder", exc)
        schemas = {}
    finally:
        client.close()
    return {
        "schemas": {str(schema_id): text for schema_id, text in sorted(schemas.items())},
        "tidbExtension": options.tidb_extension,
        "decimalAsString": options.decimal_as_string,
        "bigintUnsignedAsString": options.bigint_unsigned_as_string,
    }


def config_text(config: SinkConfig) -> str:
    """The configuration as the Java decoder receives it (JSON text)."""
    return json.dumps(decoder_config(config), sort_keys=True)
