"""craft's messages made by the Java tier (``io.cdcwire.craft.CraftBatchEncoder``, a
``BatchEncoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python encoder (:mod:`.encoder`) stays the reference: Java gives its messages, byte for byte
and closed at the same events (the reference's size estimate, max-batch-size, and the longest
prefix that really fits max-message-bytes), for the batches it is sure of, and leaves every other
batch to it. Java takes resolved and DDL events (a DDL with anything unusual stays Python's) and the rows the encoder's columnar path takes (inserts,
updates, deletes unless delete-only-output-handle-key-columns), whose record checks certainly
pass and whose message fits on its own.

Nothing Java needs is written twice: :func:`kind_table` asks the installed encoder's own rule
(``column_values.value_kind``) how each type code's values are written for each combination of
the flags it depends on; the layout numbers come from :mod:`.layout`.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import MESSAGE_OVERHEAD, ColumnFlag, ColumnType, DDLType, EncodeError, SinkConfig

from . import layout
from .column_values import ValueKind, value_kind

#: The flag bits a column's value kind can depend on (probed in every combination).
_KIND_FLAGS = (int(ColumnFlag.BINARY), int(ColumnFlag.UNSIGNED))


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode messages of this configuration (none: it serves every one)."""
    return None


def kind_table() -> dict[str, dict[str, Any]]:
    """For each column type name: its code and its value kind's name for flags 0, BINARY, UNSIGNED
    and both (None where the encoder refuses the type)."""
    table = {}
    for t in ColumnType:
        kinds = []
        for flags in (0, _KIND_FLAGS[0], _KIND_FLAGS[1], _KIND_FLAGS[0] | _KIND_FLAGS[1]):
            try:
                kinds.append(value_kind(int(t), flags).name)
            except EncodeError:
                kinds.append(None)
        table[t.name] = {"code": int(t), "kinds": kinds}
    return table


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (the core adds the record checks' tables)."""
    return {
        "types": kind_table(),
        "kind_flags": list(_KIND_FLAGS),
        "kinds": [k.name for k in ValueKind],
        "max_batch_size": int(config["max-batch-size"]),
        "max_message_bytes": int(config["max-message-bytes"]),
        "delete_only_handle_key": bool(config["delete-only-output-handle-key-columns"]),
        "overhead": MESSAGE_OVERHEAD,
        "header_estimate": layout.HEADER_ESTIMATE,
        "column_estimate": layout.COLUMN_ESTIMATE,
        "version": layout.VERSION,
        "event_row": layout.EVENT_ROW,
        "event_resolved": layout.EVENT_RESOLVED,
        "event_ddl": layout.EVENT_DDL,
        "ddl_types": {t.name: int(t) for t in DDLType},
        "group_new": layout.GROUP_NEW,
        "group_old": layout.GROUP_OLD,
    }
