"""The sink-URI settings canal-json honours, resolved once into plain fields."""

from __future__ import annotations

from dataclasses import dataclass

from cdcwire.plugin_api import LargeMessageOptions, Parameter, SinkConfig

#: canal-json's own parameter: only this protocol has a ``mysqlType`` field to fill.
CONTENT_COMPATIBLE = Parameter(
    "content-compatible", "bool", False,
    "full MySQL type text in mysqlType (int(11), enum('a','b')); implies only-output-updated-columns",
)


@dataclass(frozen=True, slots=True)
class CanalOptions:
    """Effective canal-json settings of one sink.

    ``only_updated_columns`` is on when asked for or implied by content-compatible.
    ``large`` holds the large-message parameters (mode, compression, claim-check storage),
    read once here: encoders and decoders of the sink share them.
    """

    tidb_extension: bool = False
    only_updated_columns: bool = False
    delete_handle_key_only: bool = False
    content_compatible: bool = False
    max_message_bytes: int = 10 * 1024 * 1024
    large: LargeMessageOptions = LargeMessageOptions()

    @classmethod
    def from_config(cls, config: SinkConfig) -> CanalOptions:
        content_compatible = bool(config["content-compatible"])
        return cls(
            tidb_extension=bool(config["enable-tidb-extension"]),
            only_updated_columns=bool(config["only-output-updated-columns"]) or content_compatible,
            delete_handle_key_only=bool(config["delete-only-output-handle-key-columns"]),
            content_compatible=content_compatible,
            max_message_bytes=int(config["max-message-bytes"]),
            large=LargeMessageOptions.from_config(config),
        )
