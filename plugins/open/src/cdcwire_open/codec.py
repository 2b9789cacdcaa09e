"""The open-protocol codec: TiCDC's batched JSON protocol (``protocol=open-protocol`` or ``default``)."""

from __future__ import annotations

from functools import partial

from cdcwire.plugin_api import Broadcast, Carrier, Codec, EventPolicy, SinkConfig

from .carried import carried
from .decoder import OpenProtocolDecoder
from .encoder import OpenProtocolEncoder
from .jvm_tier import JVM
from .options import PARAMETERS, OpenOptions


class OpenProtocolCodec(Codec):
    """Row changes batched per message; DDL to every partition of the table's topic,
    resolved events to every partition of every topic."""

    name = "open-protocol"
    jvm = JVM  # its Java decoder (plugin API 1.12) and batch encoder (1.13)
    aliases = ("default",)
    parameters = PARAMETERS

    def validate(self, config: SinkConfig) -> None:
        # open-protocol stores the whole message (its key says what the value holds): no raw value
        OpenOptions.from_config(config).large.check(self.name, raw_value_supported=False)

    def policy(self, config: SinkConfig) -> EventPolicy:
        return EventPolicy(ddl=Broadcast.ALL_PARTITIONS, resolved=Broadcast.ALL_PARTITIONS)

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> OpenProtocolEncoder:
        return OpenProtocolEncoder(OpenOptions.from_config(config))

    def decoder(self, config: SinkConfig) -> OpenProtocolDecoder:
        return OpenProtocolDecoder(OpenOptions.from_config(config))

    def carrier(self, config: SinkConfig) -> Carrier:
        return partial(carried, OpenOptions.from_config(config))
