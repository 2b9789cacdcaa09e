"""The debezium codec: parameters, checks, DDL/resolved policy, encoder and decoder."""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Mapping

from cdcwire.plugin_api import (
    ENABLE_TIDB_EXTENSION,
    LARGE_MESSAGE_HANDLE_COMPRESSION,
    Broadcast,
    Carrier,
    Codec,
    EventPolicy,
    SinkConfig,
    SinkURIError,
)

from .carried import carried_event
from .decoder import DebeziumDecoder
from .encoder import DebeziumEncoder
from .jvm_tier import JVM
from .options import CLUSTER_ID, DISABLE_SCHEMA, INCLUDE_START_TS, OUTPUT_OLD_VALUE, DebeziumOptions


class DebeziumCodec(Codec):
    """TiCDC's debezium (JSON): one message per event, key and value ``{"payload", "schema"}``.

    DDL goes to every partition (TiCDC sends only canal's DDL to partition 0); watermarks
    exist only with ``enable-tidb-extension=true`` and go to every partition.
    """

    name = "debezium"
    jvm = JVM  # its Java decoder (plugin API 1.10) and batch encoder (1.13)
    parameters = (
        ENABLE_TIDB_EXTENSION,
        DISABLE_SCHEMA,
        OUTPUT_OLD_VALUE,
        INCLUDE_START_TS,
        CLUSTER_ID,
        LARGE_MESSAGE_HANDLE_COMPRESSION,
    )

    def validate(self, config: SinkConfig) -> None:
        if config["debezium-include-start-ts"]:
            raise SinkURIError(
                "parameter 'debezium-include-start-ts': cdcwire's events carry no start ts, so there is"
                " no source.start_ts to write; leave it false (TiCDC's decoder then reads start ts"
                " as commit ts)",
                INCLUDE_START_TS.name,
            )

    def policy(self, config: SinkConfig) -> EventPolicy:
        resolved = Broadcast.ALL_PARTITIONS if config["enable-tidb-extension"] else Broadcast.NONE
        return EventPolicy(ddl=Broadcast.ALL_PARTITIONS, resolved=resolved)

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> DebeziumEncoder:
        return DebeziumEncoder(DebeziumOptions.from_config(config))

    def decoder(self, config: SinkConfig) -> DebeziumDecoder:
        return DebeziumDecoder(DebeziumOptions.from_config(config))

    def carrier(self, config: SinkConfig) -> Carrier:
        return partial(carried_event, DebeziumOptions.from_config(config))

    def demo_parameters(self, services: contextlib.ExitStack) -> Mapping[str, str]:
        """The extension on: without it the demo's read-back could not decode rows."""
        return {"enable-tidb-extension": "true"}
