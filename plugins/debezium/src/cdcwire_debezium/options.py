"""The sink-URI settings debezium honours, read once into a frozen record."""

from __future__ import annotations

from dataclasses import dataclass

from cdcwire.plugin_api import LargeMessageOptions, Parameter, SinkConfig

#: TiCDC's ``debezium-disable-schema``: messages carry only ``payload``, no Connect ``schema``.
DISABLE_SCHEMA = Parameter(
    "debezium-disable-schema", "bool", False,
    "leave out the Kafka Connect \"schema\" part of key and value (decoding rows needs it)",
)

#: TiCDC's ``[sink.debezium] output-old-value``, as a URI parameter in cdcwire's spelling.
OUTPUT_OLD_VALUE = Parameter(
    "debezium-output-old-value", "bool", True,
    "updates carry \"before\" (TiCDC's [sink.debezium] output-old-value);"
    " off, an update reads back as an insert",
)

#: TiCDC's ``debezium-include-start-ts``: accepted so a TiCDC URI reads, refused when on (see README).
INCLUDE_START_TS = Parameter(
    "debezium-include-start-ts", "bool", False,
    "source.start_ts, the transaction's start TSO (cdcwire events carry no start ts: refused when true)",
)

#: TiCDC's cluster id (``cdc server --cluster-id``): source.name, source.cluster_id and the schema names.
CLUSTER_ID = Parameter(
    "debezium-cluster-id", "str", "default",
    "the TiCDC cluster id written as source.name/cluster_id and in schema names (TiCDC's default: default)",
)


@dataclass(frozen=True, slots=True)
class DebeziumOptions:
    """Effective debezium settings of one sink; encoders and decoders of the sink share them."""

    cluster_id: str = "default"
    disable_schema: bool = False
    output_old_value: bool = True
    tidb_extension: bool = False
    max_message_bytes: int = 10 * 1024 * 1024
    large: LargeMessageOptions = LargeMessageOptions()

    @classmethod
    def from_config(cls, config: SinkConfig) -> DebeziumOptions:
        return cls(
            cluster_id=str(config["debezium-cluster-id"]),
            disable_schema=bool(config["debezium-disable-schema"]),
            output_old_value=bool(config["debezium-output-old-value"]),
            tidb_extension=bool(config["enable-tidb-extension"]),
            max_message_bytes=int(config["max-message-bytes"]),
            large=LargeMessageOptions.from_config(config),
        )
