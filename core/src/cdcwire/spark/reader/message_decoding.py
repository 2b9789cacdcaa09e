"""The mapInArrow stage of ``cdcwire.spark.decode``: rows of messages in, event batches out.

Each input batch (key, value, topic, partition, offset) becomes Messages, decoded by
:func:`cdcwire.spark.reader.range_decoding.decode_messages` exactly as a sink's range is.

A message with a null topic, partition or offset is refused (:func:`check_placed`), on both
decoding tiers alike: the place is what its events, its errors and its ``_malformed`` row
name, and the read schema holds it as never null. Placeholders (``''``, 0, 0) would give
rows that look placed and are not, several messages the same place, and errors that point at
the wrong message; nulls carried through would break the read schema every other read gives.
One error naming the column and the way out is what a user can act on.
"""

from __future__ import annotations

from typing import Callable, Iterator

import pyarrow as pa

from ...foundation.errors import CdcwireError
from ...model.message import Message
from ...sinks.sink import open_sink
from ...uris.sink_uri import SinkConfig
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


#: What decode sets a column to when the frame has none: the way out of a null one.
_WHEN_LEFT_OUT = {"topic": "the URI's topic", "partition": "0", "offset": "the row's position in the frame"}
_CAST = {"topic": "a string", "partition": "an int", "offset": "a bigint"}


def check_placed(topic: pa.Array, partition: pa.Array, offset: pa.Array) -> None:
    """Refuse messages without a place: a null ``topic``, ``partition`` or ``offset`` (one that
    did not cast to string, int or bigint is null too) is one :class:`CdcwireError` naming the
    column and what to do."""
    for name, column in (("topic", topic), ("partition", partition), ("offset", offset)):
        if column.null_count:
            raise CdcwireError(
                f"decode: a message has a null {name!r} (or one that does not cast to"
                f" {_CAST[name]}): every message needs its topic, partition and offset, which its events,"
                f" errors and _malformed rows name; fill the column (e.g. with F.coalesce), or leave it out"
                f" of the frame and decode sets it to {_WHEN_LEFT_OUT[name]}"
            )


def _messages(batches: Iterator[pa.RecordBatch]) -> Iterator[Message]:
    for batch in batches:
        check_placed(batch.column("topic"), batch.column("partition"), batch.column("offset"))
        columns = [batch.column(name).to_pylist() for name in ("topic", "partition", "key", "value", "offset")]
        yield from map(Message, *columns)
