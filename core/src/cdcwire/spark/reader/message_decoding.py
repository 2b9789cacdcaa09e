"""The mapInArrow stage of ``cdcwire.spark.decode``: rows of messages in, event batches out.

Each input batch (key, value, topic, partition, offset) becomes Messages, decoded by
:func:`cdcwire.spark.reader.range_decoding.decode_messages` exactly as a sink's range is.
"""

from __future__ import annotations

from typing import Callable, Iterator

import pyarrow as pa

from ...message import Message
from ...sink import open_sink
from ...sink_uri import SinkConfig
from ..runtime.job_errors import carried_to_driver
from .range_decoding import decode_messages


def decode_stage(
    config: SinkConfig, permissive: bool, tables: str = ""
) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function (runs on executors); ``config`` (plain data: a sink URI's or a
    bare protocol name's) names the protocol and its parameters."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        with carried_to_driver("decoding messages"):  # a DecodeError reaches the driver as itself
            yield from decode_messages(open_sink(config), _messages(batches), permissive, tables)

    return run


def _messages(batches: Iterator[pa.RecordBatch]) -> Iterator[Message]:
    for batch in batches:
        columns = [batch.column(name).to_pylist() for name in ("topic", "partition", "key", "value", "offset")]
        yield from map(Message, *columns)
