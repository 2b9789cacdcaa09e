"""canal-json's messages read by the Java tier (``io.cdcwire.spark.CanalJsonDecoder``).

The Python decoder (the ``cdcwire_canal_json`` plugin) stays the reference: Java reads the
row and watermark messages it is sure of into the same event rows, and leaves every other
message (DDL, claim-check pointers, handle-key-only rows, anything malformed) to the Python
decoder, in its place (:mod:`cdcwire.spark.reader.jvm_decoding`).

Nothing Java needs is written twice: this module hands it, as one JSON text, the record
checks' tables (:func:`cdcwire.spark.rows.record_checks.java_check_tables`) and the reading
table, which :func:`reading_table` gets from the installed codec: for every ``mysqlType`` text
its encoder writes, what its decoder makes of a one-column message of it (the column's type
and flags, with and without ``pkNames`` naming it, and how it reads a value text).
"""

from __future__ import annotations

import json
from typing import Any, Optional

from ...api.codec_calls import decoder_for, encoder_for
from ...foundation.errors import CdcwireError
from ...model.events import Column as EventColumn
from ...model.events import RowChangedEvent
from ...model.message import Message
from ...plugin_api import LargeMessageOptions
from ...sinks.sink import Sink
from ...values.type_codes import ColumnFlag, ColumnType
from ..rows.record_checks import java_check_tables


def refusal(sink: Sink) -> Optional[str]:
    """Why the Java tier cannot read the sink's messages, or None when it can."""
    codec = sink.codec
    if codec.name != "canal-json" or not type(codec).__module__.startswith("cdcwire_canal_json."):
        return f"no Java decoder for protocol {codec.name!r}"
    config = sink.config
    for name in ("delete-only-output-handle-key-columns", "content-compatible"):
        if config[name]:
            return f"canal-json's {name} is decoded in Python only"
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "canal-json's large-message compression is decoded in Python only"
    return None


def reading_table(sink: Sink) -> dict[str, dict[str, Any]]:
    """For each ``mysqlType`` text the sink's encoder writes: the decoded column's type name,
    its flags (and with ``pkNames`` naming it), how its value text reads (``int``, ``double``,
    ``float32``, ``text``, ``latin1`` or ``nothing``) and the type text it keeps."""
    encoder = encoder_for(sink, sink.topic, 0, events_checked=True)
    decoder = decoder_for(sink).decoder  # unchecked: a probe text need not be a valid date
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


_READING_TABLES: dict[type, dict] = {}


def decoder_config(sink: Sink) -> str:
    """The JSON text the Java decoder is made with: the sink's extension setting, the checks'
    tables and the reading table (``CanalJsonConfig``)."""
    codec_type = type(sink.codec)
    readings = _READING_TABLES.get(codec_type)
    if readings is None:
        readings = _READING_TABLES[codec_type] = reading_table(sink)
    return json.dumps({
        "extension": bool(sink.config["enable-tidb-extension"]),
        "limit": 0,
        "columns": {},
        **java_check_tables(),
        "readings": readings,
    }, sort_keys=True)
