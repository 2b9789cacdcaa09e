"""The canal-json codec: parameters, checks, DDL/resolved policy, encoder and decoder."""

from __future__ import annotations

import contextlib
from functools import partial
from typing import Mapping

from cdcwire.plugin_api import (
    DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS,
    ENABLE_TIDB_EXTENSION,
    LARGE_MESSAGE_HANDLE_OPTION,
    LARGE_MESSAGE_PARAMETERS,
    ONLY_OUTPUT_UPDATED_COLUMNS,
    Broadcast,
    Carrier,
    Codec,
    EventPolicy,
    LargeMessageOptions,
    SinkConfig,
    SinkURIError,
)

from .carried import carried_event
from .decoder import CanalJSONDecoder
from .encoder import CanalJSONEncoder
from .jvm_tier import JVM
from .options import CONTENT_COMPATIBLE, CanalOptions


class CanalJSONCodec(Codec):
    """TiCDC's canal-json: one JSON message per event, empty key, DDL to partition 0."""

    name = "canal-json"
    jvm = JVM  # its Java tier (plugin API 1.10)
    parameters = (
        ENABLE_TIDB_EXTENSION,
        ONLY_OUTPUT_UPDATED_COLUMNS,
        DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS,
        CONTENT_COMPATIBLE,
        LARGE_MESSAGE_HANDLE_OPTION.supporting("handle-key-only", "claim-check"),
        *LARGE_MESSAGE_PARAMETERS,
    )

    def validate(self, config: SinkConfig) -> None:
        large = LargeMessageOptions.from_config(config)
        if large.mode != "none" and not config["enable-tidb-extension"]:
            field = "_tidb.onlyHandleKey" if large.handle_key_only else "_tidb.claimCheckLocation"
            raise SinkURIError(
                f"parameter 'large-message-handle-option': {large.mode} needs enable-tidb-extension=true"
                f" (the reader learns what a cut-down message is from {field})",
                LARGE_MESSAGE_HANDLE_OPTION.name,
            )
        large.check("canal-json", raw_value_supported=True)

    def policy(self, config: SinkConfig) -> EventPolicy:
        resolved = Broadcast.ALL_PARTITIONS if config["enable-tidb-extension"] else Broadcast.NONE
        return EventPolicy(ddl=Broadcast.FIRST_PARTITION, resolved=resolved)

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> CanalJSONEncoder:
        return CanalJSONEncoder(CanalOptions.from_config(config))

    def decoder(self, config: SinkConfig) -> CanalJSONDecoder:
        return CanalJSONDecoder(CanalOptions.from_config(config))

    def carrier(self, config: SinkConfig) -> Carrier:
        return partial(carried_event, CanalOptions.from_config(config))

    def demo_parameters(self, services: contextlib.ExitStack) -> Mapping[str, str]:
        """The extension on: the demo's read-back then checks exact commit ts and watermarks."""
        return {"enable-tidb-extension": "true"}

    def exact_commit_ts(self, config: SinkConfig) -> bool:
        """Whether decoded commit ts are the real TSO (extension on) or only ``es << 18``."""
        return bool(config["enable-tidb-extension"])
