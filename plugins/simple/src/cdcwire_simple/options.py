"""The sink-URI settings simple honours, read once into a frozen record."""

from __future__ import annotations

from dataclasses import dataclass

from cdcwire.plugin_api import LargeMessageOptions, Parameter, SinkConfig

#: TiCDC's ``encoding-format`` of the simple protocol.
ENCODING_FORMAT = Parameter(
    "encoding-format", "choice", "json",
    "simple's encoding: json (text) or avro (binary, one fixed schema, no registry)",
    choices=("json", "avro"),
)
BOOTSTRAP_INTERVAL = Parameter(
    "send-bootstrap-interval-in-sec", "int", 120,
    "re-send a table's BOOTSTRAP (its schema) when this many seconds passed since the last one;"
    " 0 (or send-bootstrap-in-msg-count=0) turns re-sending off",
    minimum=0,
)
BOOTSTRAP_MSG_COUNT = Parameter(
    "send-bootstrap-in-msg-count", "int", 10000,
    "re-send a table's BOOTSTRAP after this many of its rows; 0 turns re-sending off",
    minimum=0,
)
BOOTSTRAP_TO_ALL_PARTITIONS = Parameter(
    "send-bootstrap-to-all-partition", "bool", True,
    "true: a table's BOOTSTRAP goes to every partition of its topic when its first row comes, and every"
    " partition re-sends; false: to partition 0 only, and only partition 0 re-sends (each partition"
    " still carries a table's schema before its first row there)",
)
ALL_BOOTSTRAP_AT_START = Parameter(
    "send-all-bootstrap-at-start", "bool", False,
    "TiCDC: send every table's BOOTSTRAP when the changefeed starts; cdcwire always sends a table's"
    " schema before its first row, which is what this is for",
)
TIME_ZONE = Parameter(
    "simple-time-zone", "str", "UTC",
    "the location written beside each TIMESTAMP value (TiCDC's changefeed time zone); readers ignore it",
)


@dataclass(frozen=True, slots=True)
class SimpleOptions:
    """Effective simple settings of one sink; encoders and decoders of the sink share them."""

    encoding_format: str = "json"
    bootstrap_interval_s: int = 120
    bootstrap_msg_count: int = 10000
    bootstrap_to_all_partitions: bool = True
    all_bootstrap_at_start: bool = False
    time_zone: str = "UTC"
    max_message_bytes: int = 10 * 1024 * 1024
    large: LargeMessageOptions = LargeMessageOptions()

    @property
    def resends_bootstrap(self) -> bool:
        """TiCDC's ShouldSendBootstrapMsg: re-sending is on only when both settings are > 0."""
        return self.bootstrap_interval_s > 0 and self.bootstrap_msg_count > 0

    @classmethod
    def from_config(cls, config: SinkConfig) -> SimpleOptions:
        return cls(
            encoding_format=str(config["encoding-format"]),
            bootstrap_interval_s=int(config["send-bootstrap-interval-in-sec"]),
            bootstrap_msg_count=int(config["send-bootstrap-in-msg-count"]),
            bootstrap_to_all_partitions=bool(config["send-bootstrap-to-all-partition"]),
            all_bootstrap_at_start=bool(config["send-all-bootstrap-at-start"]),
            time_zone=str(config["simple-time-zone"]),
            max_message_bytes=int(config["max-message-bytes"]),
            large=LargeMessageOptions.from_config(config),
        )
