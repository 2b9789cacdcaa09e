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

from cdcwire.plugin_api import ColumnFlag, ColumnType, SinkConfig

from . import column_types
from .decoder import _writer_schema
from .mysql_type_text import split_allowed
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
        "fields": {
            str(schema_id): table
            for schema_id, table in sorted((i, field_table(i, text)) for i, text in schemas.items())
            if table is not None
        },
        "tidbExtension": options.tidb_extension,
        "decimalAsString": options.decimal_as_string,
        "bigintUnsignedAsString": options.bigint_unsigned_as_string,
    }


#: The Python decoder's value conversions (``from_avro``) Java follows, by the rule it names
#: them with; a field whose conversion is not here is one Java is not sure of.
_RULES_BY_CONVERSION = {
    column_types._unwrap_u64: "u64",
    column_types._unsigned_from_text: "u64Text",
    column_types._bit_value: "bit",
}


def field_table(schema_id: int, text: str) -> dict[str, Any] | None:
    """How each field of a registered record schema becomes a column, as the Python decoder
    reads it (its own ``_writer_schema`` parses the text, so the rules are not written twice):
    the column's type name, flags (and flags as a key column), MySQL type text and the value
    rule Java applies, with an ENUM / SET's elements and a DECIMAL's scale and precision as the Python rules
    read them. None where the Python decoder refuses the schema or a field's conversion is one
    Java does not follow: Java then leaves every message of that id to Python."""
    try:
        writer = _writer_schema(schema_id, text)
    except Exception:  # every refusal of the Python decoder's: the message stays pending
        return None
    types = {f["name"]: f["type"] for f in json.loads(text)["fields"]}
    fields = []
    for read in writer.fields:
        rule = _rule_of(read)
        if rule is None:
            return None
        field: dict[str, Any] = {
            "name": read.name,
            "type": read.type.name,
            "flags": int(read.flags),
            "keyFlags": int(read.flags | ColumnFlag.HANDLE_KEY),
            "mysqlType": read.mysql_type,
            "rule": rule,
        }
        avro_type = types[read.name]
        avro_type = next(t for t in avro_type if t != "null") if isinstance(avro_type, list) else avro_type
        if rule in ("enum", "set"):
            allowed = (avro_type.get("connect.parameters") or {}).get("allowed", "")
            field["elements"] = list(split_allowed(str(allowed)))
        if rule == "decimal":
            field["scale"] = int(avro_type.get("scale", 0))
            field["precision"] = int(avro_type["precision"])  # fastavro rounds the unscaled value to it
        fields.append(field)
    return {"schema": writer.schema, "table": writer.table, "extension": writer.extension, "fields": fields}


def _rule_of(read: Any) -> str | None:
    """The value rule of one field: "plain" (the datum as it is), a named conversion, or for
    ENUM / SET / DECIMAL bytes the kind's rule (their conversions are closures over the
    schema's elements or scale, given with the field)."""
    if read.from_avro is None:
        return "plain"
    named = _RULES_BY_CONVERSION.get(read.from_avro)
    if named is not None:
        return named
    kind = {ColumnType.ENUM: "enum", ColumnType.SET: "set", ColumnType.DECIMAL: "decimal"}
    return kind.get(read.type)


def config_text(config: SinkConfig) -> str:
    """The configuration as the Java decoder receives it (JSON text)."""
    return json.dumps(decoder_config(config), sort_keys=True)
