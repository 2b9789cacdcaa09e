"""The sink-URI parameters open-protocol honours, read once into a typed record."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cdcwire.plugin_api import (
    DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS,
    LARGE_MESSAGE_HANDLE_OPTION,
    LARGE_MESSAGE_PARAMETERS,
    MAX_BATCH_SIZE,
    ONLY_OUTPUT_UPDATED_COLUMNS,
    LargeMessageOptions,
    Parameter,
)

if TYPE_CHECKING:
    from cdcwire.plugin_api import SinkConfig

#: TiCDC's old-value switch: on (the reference default) updates carry "p" and deletes
#: every column; off, updates carry only "u" and deletes only handle-key columns.
ENABLE_OLD_VALUE = Parameter(
    "enable-old-value", "bool", True, "updates carry the old row image (\"p\"); deletes every column"
)

PARAMETERS: tuple[Parameter, ...] = (
    MAX_BATCH_SIZE,
    ENABLE_OLD_VALUE,
    ONLY_OUTPUT_UPDATED_COLUMNS,
    DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS,
    LARGE_MESSAGE_HANDLE_OPTION.supporting("handle-key-only", "claim-check"),
    *LARGE_MESSAGE_PARAMETERS,
)


@dataclass(frozen=True, slots=True)
class OpenOptions:
    """What the encoder, decoder and ``carried`` need to know about a sink."""

    max_batch_size: int = 16
    max_message_bytes: int = 10 * 1024 * 1024
    old_value: bool = True
    only_updated_columns: bool = False
    delete_only_handle_key: bool = False
    large: LargeMessageOptions = LargeMessageOptions()

    @property
    def handle_key_only_when_large(self) -> bool:
        return self.large.handle_key_only

    @classmethod
    def from_config(cls, config: SinkConfig) -> "OpenOptions":
        return cls(
            max_batch_size=config["max-batch-size"],
            max_message_bytes=config["max-message-bytes"],
            old_value=config["enable-old-value"],
            only_updated_columns=config["only-output-updated-columns"],
            delete_only_handle_key=config["delete-only-output-handle-key-columns"],
            large=LargeMessageOptions.from_config(config),
        )
