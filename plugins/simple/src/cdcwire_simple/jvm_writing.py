"""simple's messages made by the Java tier (``io.cdcwire.simple.SimpleBatchEncoder``, a
``BatchEncoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python encoder (:mod:`.encoder`) stays the reference, and it keeps state per table (the
schema version its rows name, when its BOOTSTRAP was last sent, rows since). Java keeps the same
state and gives each message as it makes it (a BOOTSTRAP, a message of no event, on the row after
it: plugin API 1.17); it makes DDL events' messages too (1.17: ``BatchEncoder.ddl``), since a DDL
changes the tables' state. At the first event it is not sure of (a row the record checks or this
port are not sure of, a DDL of a type or text it is not sure of, a message over max-message-bytes)
it hands its state as it was before that event to the Python encoder (1.18:
``BatchEncoder.handOver``, adopted by ``SimpleEncoder.adopt_handed_state``), which encodes that
event and the rest of the partition: the messages Java gave stay.

Nothing Java needs is written twice: :func:`type_table` asks the installed encoder's own rules
for each column type (:func:`.json_values.writer_of`'s value writer, ``type_name`` and
``charset_of`` of the derived schema, :mod:`.table_schema`'s lengths of a type text and its
defaults), and the options come from :class:`.options.SimpleOptions`.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    ColumnFlag,
    ColumnType,
    DDLType,
    LargeMessageOptions,
    SinkConfig,
    charset_of,
    float64_text,
    type_name,
)

from . import json_values
from .ddl_kinds import ddl_kind
from .options import SimpleOptions
from .table_schema import _DEFAULT_LENGTH, _TIME_TYPES

T = ColumnType
#: The value writers of json_values.writer_of, by the Java encoder's names for them.
_WRITERS = {
    json_values._integer_text: "int", json_values.float32_text: "float32",
    json_values._base64_text: "base64", json_values._text_value: "text",
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode simple messages of this configuration, or None when it can."""
    if SimpleOptions.from_config(config).encoding_format != "json":
        return "simple's avro encoding is encoded in Python only"
    large = LargeMessageOptions.from_config(config)
    if large.compression.enabled:
        return "simple's large-message compression is encoded in Python only"
    if large.claim_check:
        return "simple's claim-check is encoded in Python only"
    return None


def _rule(ctype: ColumnType, flags: int) -> Optional[str]:
    """The name of the writer :func:`.json_values.writer_of` gives this type and flags (None: one
    Java has no port of)."""
    writer = json_values.writer_of(ctype, flags, "L")
    if writer in _WRITERS:
        return _WRITERS[writer]
    if ctype == T.TIMESTAMP and writer("x") == {"location": "L", "value": "x"}:
        return "timestamp"
    if writer(2.5) == float64_text(2.5) and writer(3) == float64_text(3.0):
        return "double"
    return None


def _name(ctype: ColumnType, binary: bool) -> Optional[str]:
    try:
        return type_name(ctype, binary)
    except KeyError:
        return None


def type_table() -> dict[str, dict[str, Any]]:
    """For each column type name: TiDB's type name, charset and collation, and its value writer
    [without, with the binary flag]; how its type text's number gives the schema's length and
    decimal (``table_schema._length_and_decimal``): ``time_base`` (the fsp's types), ``decimal``,
    ``takes_number`` (a number is its length), ``default_length`` [signed, unsigned] or None."""
    binary = int(ColumnFlag.BINARY)
    return {
        t.name: {
            "names": [_name(t, b) for b in (False, True)],
            "charsets": [list(charset_of(t, ColumnFlag(f))) for f in (0, binary)],
            "rules": [_rule(t, f) for f in (0, binary)],
            "time_base": _TIME_TYPES.get(t),
            "decimal": t == T.DECIMAL,
            "takes_number": t not in (T.ENUM, T.SET, T.JSON),
            "elements": t in (T.ENUM, T.SET),
            "default_length": list(_DEFAULT_LENGTH[t]) if t in _DEFAULT_LENGTH else None,
        }
        for t in ColumnType
    }


_TYPES: list[dict] = []  # the type table of this process (it depends on no option)


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (the core adds the record checks' tables)."""
    if not _TYPES:
        _TYPES.append(type_table())
    options = SimpleOptions.from_config(config)
    flags = {f.name: int(f) for f in (ColumnFlag.BINARY, ColumnFlag.NULLABLE, ColumnFlag.PRIMARY_KEY,
                                       ColumnFlag.HANDLE_KEY, ColumnFlag.UNSIGNED)}
    return {
        "types": _TYPES[0],
        "flags": flags,
        "time_zone": options.time_zone,
        "max_message_bytes": options.max_message_bytes,
        "overhead": MESSAGE_OVERHEAD,
        "resends": options.resends_bootstrap,
        "bootstrap_msg_count": options.bootstrap_msg_count,
        "bootstrap_interval_ms": options.bootstrap_interval_s * 1000,
        "to_all_partitions": options.bootstrap_to_all_partitions,
        "ddl_kinds": {t.name: ddl_kind(t) for t in DDLType},
    }
