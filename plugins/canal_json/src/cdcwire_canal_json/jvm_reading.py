"""canal-json's messages read by the Java tier (``io.cdcwire.canaljson.CanalJsonDecoder``, a
``MessageDecoder`` in the core's JVM framework: ``jvm/`` beside this module).

The Python decoder (the ``cdcwire_canal_json`` plugin) stays the reference: Java reads the
row and watermark messages it is sure of into the same event rows, and leaves every other
message (DDL, claim-check pointers, handle-key-only rows, anything malformed) to the Python
decoder, in its place (the core's ``cdcwire.spark.reader.jvm_decoding``).

Nothing Java needs is written twice: this module gives the core the reading table (the core
adds the record checks' tables and hands Java one JSON text): the reading table, which :func:`reading_table` gets from the installed codec: for every ``mysqlType`` text
its encoder writes, what its decoder makes of a one-column message of it (the column's type
and flags, with and without ``pkNames`` naming it, and how it reads a value text).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from cdcwire.plugin_api import (
    CdcwireError,
    Column as EventColumn,
    ColumnFlag,
    ColumnType,
    LargeMessageOptions,
    Message,
    RowChangedEvent,
    SinkConfig,
)

def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot read messages of this configuration, or None when it can."""
    for name in ("delete-only-output-handle-key-columns", "content-compatible"):
        if config[name]:
            return f"canal-json's {name} is decoded in Python only"
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "canal-json's large-message compression is decoded in Python only"
    return None


def reading_table(config: SinkConfig) -> dict[str, dict[str, Any]]:
    """For each ``mysqlType`` text the sink's encoder writes: the decoded column's type name,
    its flags (and with ``pkNames`` naming it), how its value text reads (``int``, ``double``,
    ``float32``, ``text``, ``latin1`` or ``nothing``) and the type text it keeps."""
    from .codec import CanalJSONCodec

    codec = CanalJSONCodec()
    encoder = codec.encoder(config, "t", 0)  # given only valid probe events
    decoder = codec.decoder(config)  # unchecked: a probe text need not be a valid date
    table: dict[str, dict[str, Any]] = {}
    for ctype in ColumnType:
        for flags in (0, ColumnFlag.BINARY, ColumnFlag.UNSIGNED, ColumnFlag.BINARY | ColumnFlag.UNSIGNED):
            for type_text in (None, "zerofill"):
                column = EventColumn("c", ctype, ColumnFlag(flags), None, type_text)
                try:
                    payloads = list(encoder.encode([RowChangedEvent(1 << 18, "s", "t", (column,), None)]))
                except CdcwireError:
                    continue
                doc = json.loads(payloads[0].value)
                text = doc["mysqlType"]["c"]
                if text not in table:
                    reading = _probed(decoder, doc)
                    if reading is not None:
                        table[text] = reading
    return table


def _probed(decoder: Any, doc: dict) -> Optional[dict[str, Any]]:
    """What the decoder makes of one-column messages like ``doc``: None when it reads them in a
    way the Java tier does not take."""

    def column(value: Any, keys: list[str]) -> Optional[EventColumn]:
        probe = {**doc, "pkNames": keys, "data": [{"c": value}], "old": None}
        try:
            (event,) = decoder.decode(Message("t", 0, None, json.dumps(probe).encode(), 0))
        except CdcwireError:
            return None
        return event.columns[0]

    plain, keyed = column(None, []), column(None, ["c"])
    if plain is None or keyed is None:
        return None
    one = column("1", [])
    if one is None:
        parse = "nothing"
    elif one.value.__class__ is int:
        parse = "int"
    elif one.value.__class__ is bytes:
        parse = "latin1"
    elif one.value.__class__ is str:
        parse = "text"
    elif one.value.__class__ is float:
        tenth = column("0.1", [])
        parse = "double" if tenth is not None and tenth.value == 0.1 else "float32"
    else:
        return None
    return {
        "type": plain.type.name,
        "flags": int(plain.flags),
        "key_flags": int(keyed.flags),
        "parse": parse,
        "mysql_type": plain.mysql_type,
    }


_READINGS: list[dict] = []  # the one reading table of this process (it depends on no option)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java decoder is made with (``CanalJsonConfig``; the core adds the checks'
    tables): the sink's extension setting and the reading table."""
    if not _READINGS:
        _READINGS.append(reading_table(config))
    return {
        "extension": bool(config["enable-tidb-extension"]),
        "limit": 0,
        "columns": {},
        "readings": _READINGS[0],
    }
