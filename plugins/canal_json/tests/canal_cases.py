"""Shared builders for the canal-json tests: sink configs and the spec's tp_int table.

(A plain module, not conftest.py, so it can be imported by name beside other plugins' tests.)
"""

from __future__ import annotations

import json
from typing import Any

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent, SinkConfig
from cdcwire.sinks.sink import protocol_config
from cdcwire.sinks.sink import open_sink

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
COMMIT_TS = 429918007904436226  # a real TSO from the spec's watermark example


def canal_config(**params: Any) -> SinkConfig:
    """A canal-json config; keyword names use underscores for dashes."""
    return protocol_config("canal-json", **{k.replace("_", "-"): str(v).lower() for k, v in params.items()})


def tp_int_row(c_tinyint: int = 127, c_int: int = 2147483647) -> tuple[Column, ...]:
    """A row of the spec's ``tp_int`` table."""
    return (
        Column("id", ColumnType.INT, KEY, 2, "int(11)"),
        Column("c_tinyint", ColumnType.TINYINT, ColumnFlag.NULLABLE, c_tinyint, "tinyint(4)"),
        Column("c_smallint", ColumnType.SMALLINT, ColumnFlag.NULLABLE, 32767, "smallint(6)"),
        Column("c_mediumint", ColumnType.MEDIUMINT, ColumnFlag.NULLABLE, 8388607, "mediumint(9)"),
        Column("c_int", ColumnType.INT, ColumnFlag.NULLABLE, c_int, "int(11)"),
        Column("c_bigint", ColumnType.BIGINT, ColumnFlag.NULLABLE, 9223372036854775807, "bigint(20)"),
    )


def encode_one(config: SinkConfig, event: Any) -> dict[str, Any]:
    """The JSON document of the single message the encoder writes for ``event``."""
    payloads = list(open_sink(config).codec.encoder(config, config.topic, 0).encode([event]))
    assert len(payloads) == 1
    assert payloads[0].key is None
    return json.loads(payloads[0].value)


def round_trip(config: SinkConfig, event: Any) -> list[Any]:
    messages = [
        cdcwire.Message("t", 0, p.key, p.value)
        for p in open_sink(config).codec.encoder(config, config.topic, 0).encode([event])
    ]
    return cdcwire.decode(config, messages)


def tp_int_insert() -> RowChangedEvent:
    return RowChangedEvent(COMMIT_TS, "test", "tp_int", tp_int_row(), None)
