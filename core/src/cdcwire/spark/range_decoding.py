"""One topic-partition's messages decoded into event batches, on an executor.

A message that cannot be decoded fails the read with its place
(``topic/partition/offset``), or, read permissively, becomes a row with
``_malformed`` set, so that ``cdcwire.spark.write(..., dead_letter=DIR)`` sends it
to the dead-letter path with its reason and the rest proceeds.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Iterator, Optional

import pyarrow as pa

from ..codec import Decoder
from ..codec_calls import columnar_decoder_for, decoder_for
from ..errors import DecodeError
from ..event_batch import EventBatch
from ..events import Event
from ..message import Message
from ..sink import Sink
from .arrow_batches import event_batch_arrow
from .arrow_events import batch_problems, events_to_batch, events_to_permissive_batch
from .collector import fewer_collections
from .message_ranges import MessageRange
from .schema import ARROW_MALFORMED, ARROW_PERMISSIVE_READ_EVENT_SCHEMA, ARROW_READ_EVENT_SCHEMA
from .sink_cache import cached_sink

BATCH_EVENTS = 4096


def decode_range(uri: str, part: MessageRange, permissive: bool = False) -> Iterator[pa.RecordBatch]:
    """Decode one range into event batches with topic, partition and offset (and ``_malformed``
    when ``permissive``)."""
    with fewer_collections():
        yield from _decoded_batches(uri, part, permissive)


def _decoded_batches(uri: str, part: MessageRange, permissive: bool) -> Iterator[pa.RecordBatch]:
    sink = cached_sink(uri)
    columnar = columnar_decoder_for(sink)
    if columnar is not None:
        yield from _columnar_batches(sink, columnar, part, permissive)
        return
    reader = sink.needs_transport().reader(sink.config)
    try:
        yield from _event_batches(decoder_for(sink), reader.read(part.topic, part.partition, part.start, part.end),
                                  part, permissive)
    finally:
        reader.close()


def _columnar_batches(sink: Sink, columnar: Any, part: MessageRange, permissive: bool) -> Iterator[pa.RecordBatch]:
    """The columnar path: messages decoded straight into an EventBatch, which becomes Arrow and is
    checked in columns. A chunk with anything the columns do not take (a message that does not
    decode, a row the checks refuse, a value Arrow cannot hold) is decoded again through the
    Event path, which words the error or makes the malformed rows exactly as it always has."""
    reader = sink.needs_transport().reader(sink.config)
    checked = decoder_for(sink)
    try:
        messages: list[Message] = []
        batch = EventBatch.empty()
        offsets: list[int] = []
        clean = True
        for message in reader.read(part.topic, part.partition, part.start, part.end):
            messages.append(message)
            if clean:
                try:
                    offsets.extend([message.offset] * columnar.decode_into(message, batch))  # type: ignore[list-item]
                except DecodeError:
                    clean = False
            if len(messages) >= BATCH_EVENTS or len(offsets) >= BATCH_EVENTS:
                yield from _chunk(checked, messages, batch, offsets, clean, part, permissive)
                messages, batch, offsets, clean = [], EventBatch.empty(), [], True
        if messages:
            yield from _chunk(checked, messages, batch, offsets, clean, part, permissive)
    finally:
        reader.close()


def _chunk(
    checked: Decoder,
    messages: list[Message],
    batch: EventBatch,
    offsets: list[int],
    clean: bool,
    part: MessageRange,
    permissive: bool,
) -> Iterator[pa.RecordBatch]:
    if clean and len(batch):
        try:
            events = event_batch_arrow(batch)
        except (TypeError, ValueError, KeyError, pa.ArrowException):
            events = None
        if events is not None and not batch_problems(events):
            yield _with_place(events, offsets, part, permissive)
            return
    elif clean:
        return
    yield from _event_batches(checked, iter(messages), part, permissive)


def _with_place(events: pa.RecordBatch, offsets: list[int], part: MessageRange, permissive: bool) -> pa.RecordBatch:
    n = events.num_rows
    where = [
        pa.array([part.topic] * n, pa.string()),
        pa.array([part.partition] * n, pa.int32()),
        pa.array(offsets, pa.int64()),
    ]
    if not permissive:
        return pa.RecordBatch.from_arrays([*events.columns, *where], schema=ARROW_READ_EVENT_SCHEMA)
    return pa.RecordBatch.from_arrays(
        [*events.columns, *where, pa.nulls(n, ARROW_MALFORMED)], schema=ARROW_PERMISSIVE_READ_EVENT_SCHEMA
    )


def _event_batches(
    decoder: Decoder, messages: Iterator[Message], part: MessageRange, permissive: bool
) -> Iterator[pa.RecordBatch]:
    """The Event path: each message decoded (and checked) into events, batched into Arrow."""
    events: list[Optional[Event]] = []
    malformed: list[Optional[dict]] = []
    offsets: list[int] = []
    for message in messages:
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
