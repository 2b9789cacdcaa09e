"""debezium's messages made by the Java tier (``io.cdcwire.debezium.DebeziumBatchEncoder``, a
``BatchEncoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python encoder (:mod:`.encoder`) stays the reference: debezium writes one message per row,
so Java closes each message on its own row (one event) and gives its key and value byte for byte,
or leaves the row to Python, which then writes exactly its own message. Java takes the inserts,
updates and deletes whose record checks certainly pass, whose every column has a value rule
below and whose message fits max-message-bytes; DDL and resolved events (the watermark, op "m"),
large-message compression and any other column are Python's.

Nothing Java needs is written twice: the texts it fills in come from the installed encoder's own
functions, serialized by orjson with placeholders (:func:`templates`), and each column's value
rule is probed from ``column_values.encode_value`` (:func:`field_table`): a type whose values the
probes do not find written by one of Java's rules has no entry, and its rows stay Python's.
"""

from __future__ import annotations

import base64
from typing import Any, Optional

import orjson

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    Column,
    ColumnFlag,
    ColumnType,
    LargeMessageOptions,
    SinkConfig,
)

from .column_values import encode_value
from .connect_schema import field_schema, row_value_schema
from .encoder import DebeziumEncoder
from .field_types import STRING_TYPES, FieldType, FieldTypeError, field_type_of_column
from .options import DebeziumOptions

#: Placeholders the Java encoder replaces (none is a text the encoder writes itself).
PREFIX, FIELDS, DB, TABLE, NAME = "@prefix@", "@fields@", "@db@", "@table@", "@name@"
#: A commit ts whose text and whose ``ts >> 18`` text appear nowhere else in a source block.
PROBE_TS = (987_654_321_987 << 18) + 12_345
#: The flag bits a column's schema and value rule can depend on (probed in every combination).
_FLAGS = (int(ColumnFlag.BINARY), int(ColumnFlag.UNSIGNED), int(ColumnFlag.NULLABLE))
#: The types whose schema and value depend on the type code and flags alone (not on mysql_type,
#: nor on the value's digits): the ones Java may take.
_TYPE_ONLY = (
    ColumnType.TINYINT, ColumnType.SMALLINT, ColumnType.MEDIUMINT, ColumnType.INT, ColumnType.BIGINT,
    ColumnType.YEAR, ColumnType.DOUBLE, ColumnType.DECIMAL, ColumnType.JSON, *sorted(STRING_TYPES),
)
_U64 = (1 << 64) - 1

#: Java's value rules and the probes that pick one: (canonical value, what the rule writes).
#: "same": the value as it is (an integer as a number, a text as a string); "u64": an unsigned
#: 64-bit integer as the int64 of its bits; "base64": bytes as base64 text; "double": a float as it
#: is, "decimal": a decimal text as the nearest double (each written as orjson writes a float).
_RULES: dict[str, list[tuple[Any, Any]]] = {
    "same": [(0, 0), (7, 7), (-7, -7), (1 << 62, 1 << 62), (_U64, _U64), ("a\"é\n", "a\"é\n"), ("", "")],
    "u64": [(0, 0), (7, 7), (1 << 63, -(1 << 63)), (_U64, -1)],
    "base64": [(b"\x00\xff a", base64.b64encode(b"\x00\xff a").decode()), (b"", "")],
    "decimal": [("0.1", 0.1), ("-12345678901234567890.25", -12345678901234567890.25), ("-0", -0.0)],
    "double": [(0.1, 0.1), (-2.5e300, -2.5e300), (5e-324, 5e-324)],
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode messages of this configuration, or None when it can."""
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "debezium's large-message compression is encoded in Python only"
    return None


def _rule(ft: FieldType) -> Optional[str]:
    """The one Java rule whose every probe encode_value writes alike, or None."""
    for name, probes in _RULES.items():
        try:
            if all(type(w := encode_value(ft, v)) is type(out) and w == out for v, out in probes):
                return name
        except (TypeError, ValueError, AttributeError):
            continue
    return None


def field_table(tidb_extension: bool) -> dict[str, list[Optional[dict[str, str]]]]:
    """For each type name Java may take: per flags combination (the bits of ``flags``, in order)
    its value rule and its Connect field schema as text, up to the field's name (which Java adds
    with the closing brace), or None where the encoder has no rule Java shares."""
    table = {}
    for t in _TYPE_ONLY:
        entries: list[Optional[dict[str, str]]] = []
        for combo in range(1 << len(_FLAGS)):
            flags = sum(bit for i, bit in enumerate(_FLAGS) if combo >> i & 1)
            try:
                ft = field_type_of_column(Column(NAME, t, ColumnFlag(flags), None, None))
            except FieldTypeError:
                entries.append(None)
                continue
            rule = _rule(ft)
            text = orjson.dumps(field_schema(NAME, ft, tidb_extension, 0)).decode()
            tail = f'"field":"{NAME}"}}'
            entries.append(None if rule is None or not text.endswith(tail)
                           else {"rule": rule, "schema": text[: -len(tail)]})
        table[t.name] = entries
    return table


def templates(options: DebeziumOptions) -> dict[str, str]:
    """The texts Java fills in, made by the encoder's own functions: the source block (``@db@``,
    ``@table@`` and the probe ts), the key schema and the envelope schema (``@prefix@``, ``"@fields@"``)."""
    source = DebeziumEncoder(options)._source(DB, TABLE, PROBE_TS)
    key_schema = {"type": "struct", "name": f"{PREFIX}.Key", "optional": False, "fields": FIELDS}
    return {
        "source": orjson.dumps(source).decode(),
        "key_schema": orjson.dumps(key_schema).decode(),
        "value_schema": orjson.dumps(
            row_value_schema(PREFIX, FIELDS, options.tidb_extension)  # type: ignore[arg-type]
        ).decode(),
    }


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (the core adds the record checks' tables)."""
    options = DebeziumOptions.from_config(config)
    return {
        "fields": field_table(options.tidb_extension),
        "flag_bits": list(_FLAGS),
        "templates": templates(options),
        "probe_ts": str(PROBE_TS),
        "probe_ms": str(PROBE_TS >> 18),
        "placeholders": {"prefix": PREFIX, "fields": f'"{FIELDS}"', "db": f'"{DB}"', "table": f'"{TABLE}"'},
        "cluster": options.cluster_id,
        "disable_schema": options.disable_schema,
        "output_old_value": options.output_old_value,
        "max_message_bytes": options.max_message_bytes,
        "overhead": MESSAGE_OVERHEAD,
    }
