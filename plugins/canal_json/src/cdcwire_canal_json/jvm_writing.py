"""canal-json's messages made by the Java tier (``io.cdcwire.canaljson.CanalJsonEncoder``, a
``MessageEncoder`` in the core's JVM framework: ``jvm/`` beside this module).

The Python codec (the ``cdcwire_canal_json`` plugin) stays the reference: Java gives its
bytes, byte for byte, for the rows it takes, and null for every other event, which the
encoding stage then encodes in Python (the core's ``cdcwire.spark.writer.encoding``). It takes
resolved events (their watermark) and the insert, update and delete rows the record checks
certainly pass (its own conservative port of them), whose message fits ``max-message-bytes``
and whose columns are of shapes the codec writes as they are; DDL events and everything else
go to Python.

Nothing Java needs is written twice: the core hands it the record checks' tables (the value
rules, the validation's time forms, the type-text reader's names and limits) and this module
canal-json's column table, which
:func:`column_table` gets from the installed codec by encoding a one-column row of every
type and flag combination (``mysqlType`` names, ``sqlType`` codes and their promotion for
large unsigned values, which value kinds a column takes).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

from cdcwire.plugin_api import (
    INTEGER_RANGES,
    MESSAGE_OVERHEAD,
    CdcwireError,
    Column as EventColumn,
    ColumnFlag,
    ColumnType,
    LargeMessageOptions,
    RowChangedEvent,
    SinkConfig,
)

_BINARY = int(ColumnFlag.BINARY)
_UNSIGNED = int(ColumnFlag.UNSIGNED)
#: Value kinds a probe offers a column, by the VALUE field that holds them.
_PROBES = {"int": 1, "double": 1.5, "string": "1", "binary": b"1"}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode messages of this configuration, or None when it can."""
    for name in ("only-output-updated-columns", "delete-only-output-handle-key-columns", "content-compatible"):
        if config[name]:
            return f"canal-json's {name} is encoded in Python only"
    large = LargeMessageOptions.from_config(config)
    if large.mode != "none" or large.compression.enabled:
        return "canal-json's large-message handling and compression are encoded in Python only"
    return None


@dataclass(frozen=True, slots=True)
class ColumnWriting:
    """How canal-json writes a column of one shape (see :func:`column_key`)."""

    mysql_type: str
    sql_type: int
    promotion: Optional[tuple[int, int]]  # (signed maximum, sqlType of a larger value)
    fields: frozenset[str]  # the VALUE fields whose values the codec writes


def column_key(type_name: str, flags: int, zerofill: bool) -> str:
    """The key of a column shape in :func:`column_table` (``ColumnEntry.key`` in Java): what
    canal-json's tables depend on."""
    return f"{type_name}:{int(bool(flags & _BINARY))}{int(bool(flags & _UNSIGNED))}{int(zerofill)}"


def column_table(config: SinkConfig) -> dict[str, ColumnWriting]:
    """Every column shape's writing, as the codec's encoder writes a one-column row of it."""
    from .codec import CanalJSONCodec

    encoder = CanalJSONCodec().encoder(config, "t", 0)  # given only valid probe events

    def message(column: EventColumn) -> Optional[dict]:
        try:
            payloads = list(encoder.encode([RowChangedEvent(1 << 18, "s", "t", (column,), None)]))
        except CdcwireError:
            return None
        return json.loads(payloads[0].value)

    table: dict[str, ColumnWriting] = {}
    for ctype in ColumnType:
        for flags in (0, _BINARY, _UNSIGNED, _BINARY | _UNSIGNED):
            for mysql_type in (None, "zerofill"):
                base = message(EventColumn("c", ctype, ColumnFlag(flags), None, mysql_type))
                if base is None:
                    continue
                fields = frozenset(
                    name for name, value in _PROBES.items()
                    if message(EventColumn("c", ctype, ColumnFlag(flags), value, mysql_type)) is not None
                )
                promotion = None
                if "int" in fields and ctype in INTEGER_RANGES:
                    largest = INTEGER_RANGES[ctype][0][1]
                    if largest < INTEGER_RANGES[ctype][1][1]:
                        bigger = message(EventColumn("c", ctype, ColumnFlag(flags), largest + 1, mysql_type))
                        if bigger is not None and bigger["sqlType"]["c"] != base["sqlType"]["c"]:
                            promotion = (largest, bigger["sqlType"]["c"])
                key = column_key(ctype.name, flags, mysql_type is not None)
                table[key] = ColumnWriting(base["mysqlType"]["c"], base["sqlType"]["c"], promotion, fields)
    return table


_COLUMNS: list[dict] = []  # the one column table of this process (it depends on no option)


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (``CanalJsonConfig``; the core adds the checks'
    tables): the sink's options and the column table."""
    if not _COLUMNS:
        _COLUMNS.append({
            key: {"mysql_type": w.mysql_type, "sql_type": w.sql_type,
                  "promotion": list(w.promotion) if w.promotion else None, "fields": sorted(w.fields)}
            for key, w in column_table(config).items()
        })
    return {
        "extension": bool(config["enable-tidb-extension"]),
        "limit": int(config["max-message-bytes"]) - MESSAGE_OVERHEAD,
        "columns": _COLUMNS[0],
    }
