"""The simple codec: parameters, checks, DDL/resolved policy, encoder and decoder."""

from __future__ import annotations

from cdcwire.plugin_api import (
    LARGE_MESSAGE_HANDLE_OPTION,
    LARGE_MESSAGE_PARAMETERS,
    Broadcast,
    Carrier,
    Codec,
    EventPolicy,
    LargeMessageOptions,
    SinkConfig,
)

from .carried import carrier_of
from .decoder import SimpleDecoder
from .encoder import SimpleEncoder
from .jvm_tier import JVM
from .options import (
    ALL_BOOTSTRAP_AT_START,
    BOOTSTRAP_INTERVAL,
    BOOTSTRAP_MSG_COUNT,
    BOOTSTRAP_TO_ALL_PARTITIONS,
    ENCODING_FORMAT,
    TIME_ZONE,
    SimpleOptions,
)


class SimpleCodec(Codec):
    """TiCDC's simple protocol: one self-describing message per event, no key; DDL and
    watermarks to every partition; table schemas in DDL and BOOTSTRAP messages."""

    name = "simple"
    stateful_decoding = True  # rows wait for their table's BOOTSTRAP or DDL: a partition decodes in order
    jvm = JVM  # its Java decoder (plugin API 1.10), one per partition, fed in order, and batch encoder (1.17)
    parameters = (
        ENCODING_FORMAT,
        BOOTSTRAP_INTERVAL,
        BOOTSTRAP_MSG_COUNT,
        BOOTSTRAP_TO_ALL_PARTITIONS,
        ALL_BOOTSTRAP_AT_START,
        TIME_ZONE,
        LARGE_MESSAGE_HANDLE_OPTION.supporting("handle-key-only", "claim-check"),
        *LARGE_MESSAGE_PARAMETERS,
    )

    def validate(self, config: SinkConfig) -> None:
        LargeMessageOptions.from_config(config).check("simple", raw_value_supported=True)

    def policy(self, config: SinkConfig) -> EventPolicy:
        """DDL and watermarks to every partition; a table's BOOTSTRAP, when its first row comes,
        to every partition of its topic, or to partition 0 with send-bootstrap-to-all-partition=false
        (TiCDC's bootstrap worker)."""
        to_all = SimpleOptions.from_config(config).bootstrap_to_all_partitions
        return EventPolicy(
            ddl=Broadcast.ALL_PARTITIONS, resolved=Broadcast.ALL_PARTITIONS,
            announce_tables=Broadcast.ALL_PARTITIONS if to_all else Broadcast.FIRST_PARTITION,
        )

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> SimpleEncoder:
        return SimpleEncoder(SimpleOptions.from_config(config), partition)

    def decoder(self, config: SinkConfig) -> SimpleDecoder:
        return SimpleDecoder(SimpleOptions.from_config(config))

    def carrier(self, config: SinkConfig) -> Carrier:
        return carrier_of(SimpleOptions.from_config(config))
