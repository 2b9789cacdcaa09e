"""One topic-partition's messages decoded into event batches, on an executor.

A message that cannot be decoded fails the read with its place
(``topic/partition/offset``), or, read permissively, becomes a row with
``_malformed`` set, so that ``cdcwire.spark.write(..., dead_letter=DIR)`` sends it
to the dead-letter path with its reason and the rest proceeds.
"""

from __future__ import annotations

import base64
import json
from typing import Iterator, Optional

import pyarrow as pa

from ..codec_calls import decoder_for
from ..errors import DecodeError
from ..events import Event
from ..message import Message
from .arrow_events import events_to_batch, events_to_permissive_batch
from .collector import fewer_collections
from .message_ranges import MessageRange
from .schema import ARROW_PERMISSIVE_READ_EVENT_SCHEMA, ARROW_READ_EVENT_SCHEMA
from .sink_cache import cached_sink

BATCH_EVENTS = 4096


def decode_range(uri: str, part: MessageRange, permissive: bool = False) -> Iterator[pa.RecordBatch]:
    """Decode one range into event batches with topic, partition and offset (and ``_malformed``
    when ``permissive``)."""
    with fewer_collections():
        yield from _decoded_batches(uri, part, permissive)


def _decoded_batches(uri: str, part: MessageRange, permissive: bool) -> Iterator[pa.RecordBatch]:
    sink = cached_sink(uri)
    decoder = decoder_for(sink)
    reader = sink.needs_transport().reader(sink.config)
    events: list[Optional[Event]] = []
    malformed: list[Optional[dict]] = []
    offsets: list[int] = []
    try:
        for message in reader.read(part.topic, part.partition, part.start, part.end):
            try:
                decoded = decoder.decode(message)
            except DecodeError as exc:
                located = exc.at_message(message.location())
                if not permissive:
                    raise located from None
                events.append(None)
                malformed.append(
                    {"source": message.location(), "reason": exc.args[0], "text": message_text(message)}
                )
                offsets.append(message.offset)  # type: ignore[arg-type]
                continue
            events.extend(decoded)
            malformed.extend([None] * len(decoded))
            offsets.extend([message.offset] * len(decoded))  # type: ignore[list-item]
            if len(events) >= BATCH_EVENTS:
                yield _located(events, malformed, offsets, part, permissive)
                events, malformed, offsets = [], [], []
        if events:
            yield _located(events, malformed, offsets, part, permissive)
    finally:
        reader.close()


def message_text(message: Message) -> str:
    """A message as a dead letter's record: key and value in base64 (they are bytes)."""
    return json.dumps(
        {
            "key": None if message.key is None else base64.b64encode(message.key).decode("ascii"),
            "value": None if message.value is None else base64.b64encode(message.value).decode("ascii"),
        }
    )


def _located(
    events: list[Optional[Event]],
    malformed: list[Optional[dict]],
    offsets: list[int],
    part: MessageRange,
    permissive: bool,
) -> pa.RecordBatch:
    n = len(events)
    where = [
        pa.array([part.topic] * n, pa.string()),
        pa.array([part.partition] * n, pa.int32()),
        pa.array(offsets, pa.int64()),
    ]
    if not permissive:
        batch = events_to_batch(events)  # type: ignore[arg-type]
        return pa.RecordBatch.from_arrays([*batch.columns, *where], schema=ARROW_READ_EVENT_SCHEMA)
    batch = events_to_permissive_batch(events, malformed)
    *event_columns, bad = batch.columns
    return pa.RecordBatch.from_arrays(
        [*event_columns, *where, bad], schema=ARROW_PERMISSIVE_READ_EVENT_SCHEMA
    )
