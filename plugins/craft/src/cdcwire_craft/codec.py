"""The craft codec: what cdcwire's registry sees of this plugin."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Optional

from cdcwire.plugin_api import (
    DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS,
    MAX_BATCH_SIZE,
    Broadcast,
    Carrier,
    Codec,
    Column,
    Event,
    EventPolicy,
    RowChangedEvent,
    SinkConfig,
)

from .column_values import carried_value, value_kind
from .decoder import CraftDecoder
from .encoder import CraftEncoder
from .jvm_tier import JVM


class CraftCodec(Codec):
    """TiCDC craft: binary, columnar, many rows per message.

    Parameters beyond the shared ones: ``max-batch-size`` (rows per message,
    default 16) and ``delete-only-output-handle-key-columns``. DDL and resolved
    events go to every partition, one message each.
    """

    name = "craft"
    jvm = JVM  # its Java decoder (plugin API 1.12) and batch encoder (1.13)
    parameters = (MAX_BATCH_SIZE, DELETE_ONLY_OUTPUT_HANDLE_KEY_COLUMNS)

    def policy(self, config: SinkConfig) -> EventPolicy:
        return EventPolicy(ddl=Broadcast.ALL_PARTITIONS, resolved=Broadcast.ALL_PARTITIONS)

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> CraftEncoder:
        return CraftEncoder(
            max_batch_size=config["max-batch-size"],
            max_message_bytes=config["max-message-bytes"],
            delete_only_handle_key_columns=config["delete-only-output-handle-key-columns"],
        )

    def decoder(self, config: SinkConfig) -> CraftDecoder:
        return CraftDecoder()

    def carrier(self, config: SinkConfig) -> Carrier:
        return partial(carried, bool(config["delete-only-output-handle-key-columns"]))


def carried(delete_keys_only: bool, event: Event) -> Optional[Event]:
    """Craft carries no MySQL type text; values come back canonical for their type;
    NULL and GEOMETRY columns come back NULL; a negative table id means none."""
    if not isinstance(event, RowChangedEvent):
        return event
    pre = event.pre_columns
    if pre is not None and event.columns is None and delete_keys_only:
        pre = tuple(c for c in pre if c.is_handle_key)
    columns = _carried_columns(event.columns)
    pre = _carried_columns(pre)
    if not columns and not pre:  # empty groups are left out: the row reads back as an empty delete
        columns, pre = None, ()
    elif not columns:
        columns = None
    elif not pre:
        pre = None
    table_id = event.table_id if event.table_id is not None and event.table_id >= 0 else None
    return replace(event, columns=columns, pre_columns=pre, table_id=table_id)


def _carried_columns(columns: Optional[tuple[Column, ...]]) -> Optional[tuple[Column, ...]]:
    if columns is None:
        return None
    return tuple(
        Column(c.name, c.type, c.flags, carried_value(value_kind(c.type, c.flags), c.type, c.flags, c.value))
        for c in columns
    )
