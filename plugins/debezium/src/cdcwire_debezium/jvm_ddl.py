"""The DDL messages of debezium's Java encoder (``io.cdcwire.debezium.DebeziumDdl``, plugin API
1.17 ``BatchEncoder.ddl``): the texts it fills in, made by the installed Python encoder.

Why Java writes them: a DDL left to Python ends Java's run of messages in its partition (the rows
before it are staged as one file, the DDL's message is Python's); with the DDLs in Java no event of
the workload goes to Python.

A DDL event in a Spark row carries no table schema, so the message's ``tableChanges`` hold at most
one change whose ``table`` is null (``ddl_messages.table_changes``). Java is given: the key and
value as the encoder writes them for a probe DDL of no change (:data:`DB`, :data:`TABLE` and
:data:`QUERY` in place, the probe commit ts and clock as in the watermark, ``"@changes@"`` for the
list), the one change as the encoder writes it (``"@kind@"``, ``"@id@"`` in place), and per DDL
type name its change kind and whether its change list is empty (probed) or names the table a
RENAME TABLE statement renames (which Java reads from the statement, as ``ddl_messages`` does).
A DDL type TiCDC's debezium skips (no message) is not in the table: Python's, which writes none.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

import orjson

from cdcwire.plugin_api import DDLEvent, DDLType, LargeMessageOptions

from .ddl_messages import change_kind, table_changes
from .encoder import DebeziumEncoder
from .jvm_writing import DB, MS, NOW, TABLE, TS, probes
from .options import DebeziumOptions

QUERY, KIND, IDENT, CHANGES = "@query@", "@kind@", "@id@", "@changes@"
#: A RENAME TABLE statement whose old name a change of a renaming type shows (and a plain one's does not).
_RENAME_PROBE = "RENAME TABLE `o`.`p` TO `x`"


def _kinds() -> dict[str, dict[str, Any]]:
    """Per DDL type name with a message: its change kind and how its change list is made."""
    out = {}
    for t in DDLType:
        kind = change_kind(t)
        if kind is None:
            continue
        plain = table_changes(t, kind, "s", "t", "")
        renamed = table_changes(t, kind, "s", "t", _RENAME_PROBE)
        changes = "none" if not plain else "renamed" if renamed[0]["id"] != plain[0]["id"] else "one"
        out[t.name] = {"kind": kind, "changes": changes}
    return out


def ddl_texts(options: DebeziumOptions) -> Optional[dict[str, Any]]:
    """What Java makes DDL messages with, or None (every DDL Python's) where a probe's text is
    not found exactly where Java fills it in."""
    kinds = _kinds()
    none = next((DDLType[n] for n, k in kinds.items() if k["changes"] == "none"), None)
    one = next((DDLType[n] for n, k in kinds.items() if k["changes"] == "one"), None)
    if none is None or one is None:
        return None
    plain = dataclasses.replace(options, max_message_bytes=1 << 62, large=LargeMessageOptions())
    probe_ts, probe_now = probes(options)  # type: ignore[misc]  # refusal() said there are
    message = DebeziumEncoder(plain, clock=lambda: probe_now).encode_event(
        DDLEvent(probe_ts, DB, TABLE, QUERY, none))
    if message is None:
        return None
    key, value = (part.decode() for part in message)
    empty = '"tableChanges":[]'
    places = {str(probe_ts): TS, str(probe_ts >> 18): MS, str(probe_now): NOW}
    if value.count(empty) != 1 or any(probe in key or value.count(probe) != 1 for probe in places):
        return None
    value = value.replace(empty, f'"tableChanges":"{CHANGES}"')
    for probe, mark in places.items():
        value = value.replace(probe, mark)
    ident = orjson.dumps(f'"{DB}"."{TABLE}"').decode()
    change = orjson.dumps(table_changes(one, KIND, DB, TABLE, QUERY)[0]).decode()
    if change.count(ident) != 1:
        return None
    return {"key": key, "value": value, "change": change.replace(ident, f'"{IDENT}"'), "kinds": kinds,
            "marks": {"query": f'"{QUERY}"', "kind": f'"{KIND}"', "id": f'"{IDENT}"', "changes": f'"{CHANGES}"'}}
