"""Messages decoded into event batches, on an executor: one topic-partition's range of a sink
(``cdcwire.spark.read``) or the rows of a DataFrame of messages (``cdcwire.spark.decode``).

A message that cannot be decoded fails the read with its place
(``topic/partition/offset``), or, read permissively, becomes a row with
``_malformed`` set, so that ``cdcwire.spark.write(..., dead_letter=DIR)`` sends it
to the dead-letter path with its reason and the rest proceeds.

A codec with the columnar capability decodes straight into an EventBatch, which
becomes Arrow and is checked in columns; a chunk with anything the columns do not
take (a message that does not decode, a row the checks refuse, a value Arrow cannot
hold) is decoded again through the Event path, which words the error or makes the
malformed rows exactly as it always has.

A streaming read (and a batch read without pinned ranges) also gives each row its
message's ``timestamp``: :func:`decode_stamped_range`.
"""

from __future__ import annotations

import base64
import json
from collections import deque
from typing import Any, Iterable, Iterator, Optional

import pyarrow as pa
import pyarrow.compute as pc

from ...api.codec_calls import CheckedDecoder, columnar_decoder_for, decoder_for
from ...foundation.errors import DecodeError, HeldRowsRefused
from ...model.event_batch import EventBatch
from ...model.events import Event
from ...model.message import Message
from ...sinks.sink import Sink
from ...dispatch.table_filter import TableFilter
from ..rows.arrow_batches import event_batch_arrow
from ..rows.arrow_events import batch_problems, events_to_batch, events_to_permissive_batch
from ..runtime.collector import fewer_collections
from .message_ranges import MessageRange
from ..rows.schema import (
    ARROW_MALFORMED,
    ARROW_MESSAGE_ROW_SCHEMA,
    ARROW_PERMISSIVE_READ_EVENT_SCHEMA,
    ARROW_PERMISSIVE_SOURCE_READ_EVENT_SCHEMA,
    ARROW_READ_EVENT_SCHEMA,
    ARROW_SOURCE_READ_EVENT_SCHEMA,
    ARROW_TIMESTAMP,
)
from ..runtime.sink_cache import cached_sink

#: A batch handed to Spark ends at whichever comes first: this many events, or messages of
#: ``BATCH_BYTES`` in all. Spark takes each batch whole into off-heap memory (sized like the
#: heap): 4,096 wide rows of 24 KB were one 190 MB allocation, an OutOfDirectMemoryError in a
#: 512 MiB driver, so the count alone does not bound a batch.
BATCH_EVENTS = 4096
BATCH_BYTES = 8 << 20


def _size(message: Message) -> int:
    return len(message.value or b"") + len(message.key or b"")


def decode_range(
    uri: str, part: MessageRange, permissive: bool = False, tables: str = ""
) -> Iterator[pa.RecordBatch]:
    """Decode one range into event batches with topic, partition and offset (and ``_malformed``
    when ``permissive``); ``tables``: a table filter (see :func:`decode_messages`).

    With ``part.decode_from`` before its start, the decoder reads from there (the table schemas
    a stateful decoder needs) and the events of those messages are dropped: only the range's
    own come out."""
    sink = cached_sink(uri)
    reader = sink.needs_transport().reader(sink.config)
    first = _first_read(part)
    try:
        messages = reader.read(part.topic, part.partition, first, part.end)
        for batch in decode_messages(sink, messages, permissive, tables):
            if first == part.start:
                yield batch
            elif (batch := _from_start(batch, part)).num_rows:
                yield batch
    finally:
        reader.close()


def range_messages(uri: str, part: MessageRange) -> Iterator[pa.RecordBatch]:
    """One range's messages as they are (``ARROW_MESSAGE_ROW_SCHEMA``), in batches of at most
    ``BATCH_EVENTS`` messages or ``BATCH_BYTES``: for a decoder that runs elsewhere (the JVM's).
    A stateless decoder's range needs no messages before its start, so ``decode_from`` is not read."""
    sink = cached_sink(uri)
    reader = sink.needs_transport().reader(sink.config)
    try:
        chunk: list[Message] = []
        size = 0
        for message in reader.read(part.topic, part.partition, part.start, part.end):
            chunk.append(message)
            size += _size(message)
            if len(chunk) >= BATCH_EVENTS or size >= BATCH_BYTES:
                yield _message_rows(chunk)
                chunk, size = [], 0
        if chunk:
            yield _message_rows(chunk)
    finally:
        reader.close()


def _message_rows(messages: list[Message]) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [
            pa.array([m.topic for m in messages], pa.string()),
            pa.array([m.partition for m in messages], pa.int32()),
            pa.array([m.offset for m in messages], pa.int64()),
            pa.array([m.key for m in messages], pa.binary()),
            pa.array([m.value for m in messages], pa.binary()),
        ],
        schema=ARROW_MESSAGE_ROW_SCHEMA,
    )


def _first_read(part: MessageRange) -> Optional[int]:
    """The offset a range's reading starts at: its ``decode_from`` when that is before its start."""
    if part.decode_from is not None and part.start is not None and part.decode_from < part.start:
        return part.decode_from
    return part.start


def _from_start(batch: pa.RecordBatch, part: MessageRange) -> pa.RecordBatch:
    """The rows of a batch at or after the range's start (the ones before only brought state)."""
    return batch.filter(pc.greater_equal(batch.column("offset"), part.start))


def decode_stamped_range(
    uri: str, part: MessageRange, permissive: bool = False, tables: str = ""
) -> Iterator[pa.RecordBatch]:
    """The batches :func:`decode_range` gives for ``part`` (``decode_from`` alike), each row with
    its message's timestamp after ``offset`` (:data:`~.schema.SOURCE_READ_EVENT_SCHEMA`)."""
    sink = cached_sink(uri)
    reader = sink.needs_transport().reader(sink.config)
    first = _first_read(part)
    try:
        stamps = _Stamps()
        messages = stamps.noting(reader.read(part.topic, part.partition, first, part.end))
        for batch in decode_messages(sink, messages, permissive, tables):
            if first == part.start:
                yield stamps.stamped(batch, permissive)
            elif (batch := _from_start(batch, part)).num_rows:
                yield stamps.stamped(batch, permissive)
    finally:
        reader.close()


class _Stamps:
    """The timestamps of the messages read, kept until their rows come out of the decoder.

    Rows come out in offset order (a range is one partition), so each batch takes the
    timestamps up to its last offset and the rest wait; messages that decoded to no rows
    (a table filter) are dropped as later rows pass them. None kept (``file://``): all null.
    """

    def __init__(self) -> None:
        self._pending: deque[tuple[int, int]] = deque()

    def noting(self, messages: Iterator[Message]) -> Iterator[Message]:
        pending = self._pending
        for m in messages:
            if m.timestamp is not None and m.offset is not None:
                pending.append((m.offset, m.timestamp))
            yield m

    def stamped(self, batch: pa.RecordBatch, permissive: bool) -> pa.RecordBatch:
        stamps = self._column(batch.column("offset").to_pylist()) if self._pending else None
        if stamps is None:
            stamps = pa.nulls(batch.num_rows, ARROW_TIMESTAMP)
        columns = list(batch.columns)
        if permissive:
            columns.insert(len(columns) - 1, stamps)  # before _malformed
            return pa.RecordBatch.from_arrays(columns, schema=ARROW_PERMISSIVE_SOURCE_READ_EVENT_SCHEMA)
        return pa.RecordBatch.from_arrays([*columns, stamps], schema=ARROW_SOURCE_READ_EVENT_SCHEMA)

    def _column(self, offsets: list[int]) -> pa.Array:
        pending = self._pending
        micros: list[Optional[int]] = []
        for offset in offsets:
            while pending and pending[0][0] < offset:
                pending.popleft()
            micros.append(pending[0][1] * 1000 if pending and pending[0][0] == offset else None)
        return pa.array(micros, ARROW_TIMESTAMP)


def decode_messages(
    sink: Sink, messages: Iterable[Message], permissive: bool = False, tables: str = ""
) -> Iterator[pa.RecordBatch]:
    """Event batches of these messages, each event with its message's topic, partition and offset.

    The messages are a whole input (a range, a micro-batch, a Spark partition): at their end the
    decoder's ``finish`` gives what it still holds, placed at the last message, or refuses it
    (a DecodeError, permissive or not: it is about the input, not one message).

    ``tables`` (TiDB's table-filter syntax, :mod:`cdcwire.dispatch.table_filter`; "" keeps all): only
    row and DDL events of the tables it matches are kept; resolved events and malformed
    rows always are (a consumer needs every watermark, a dead-letter path every bad message).
    """
    with fewer_collections():
        columnar = columnar_decoder_for(sink)
        if columnar is None:
            batches = event_batches(decoder_for(sink), iter(messages), permissive, finishing=True)
        else:
            batches = _columnar_batches(decoder_for(sink), columnar, messages, permissive)
        if not tables:
            yield from batches
            return
        keep = TableFilter.of(tables)
        for batch in batches:
            kept = _of_tables(batch, keep)
            if kept.num_rows:
                yield kept


def _of_tables(batch: pa.RecordBatch, keep: TableFilter) -> pa.RecordBatch:
    """The rows of a decoded batch that a table filter keeps (see :func:`decode_messages`)."""
    verdicts: dict[tuple, bool] = {}
    mask = []
    for kind, schema, table in zip(
        batch.column("kind").to_pylist(), batch.column("schema").to_pylist(), batch.column("table").to_pylist()
    ):
        if kind is None or kind == "resolved":
            mask.append(True)
            continue
        verdict = verdicts.get((schema, table))
        if verdict is None:
            verdict = verdicts[(schema, table)] = keep.matches(schema or "", table or "")
        mask.append(verdict)
    return batch if all(mask) else batch.filter(pa.array(mask, pa.bool_()))


def _columnar_batches(
    checked: CheckedDecoder, columnar: Any, messages: Iterable[Message], permissive: bool
) -> Iterator[pa.RecordBatch]:
    chunk = _Chunk()
    for message in messages:
        chunk.add(columnar, message)
        if len(chunk.messages) >= BATCH_EVENTS or len(chunk.offsets) >= BATCH_EVENTS or chunk.size >= BATCH_BYTES:
            yield from chunk.batches(checked, permissive)
            chunk = _Chunk()
    if chunk.messages:
        yield from chunk.batches(checked, permissive)
        last = chunk.messages[-1]
    else:
        last = None
    yield from finished(CheckedDecoder(columnar), last, permissive)


class _Chunk:
    """Messages decoded into one EventBatch, with each event's place, until one does not decode."""

    __slots__ = ("messages", "batch", "topics", "partitions", "offsets", "clean", "size")

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.batch = EventBatch.empty()
        self.topics: list[str] = []
        self.partitions: list[int] = []
        self.offsets: list[Optional[int]] = []
        self.clean = True
        self.size = 0  # bytes of the messages

    def add(self, columnar: Any, message: Message) -> None:
        self.messages.append(message)
        self.size += _size(message)
        if not self.clean:
            return
        try:
            n = columnar.decode_into(message, self.batch)
        except Exception:  # noqa: BLE001 - the columnar boundary: whatever a message's columnar
            # decode cannot take (a DecodeError, an int past 64 bits, any value it does not hold)
            # sends the chunk to the Event path, which refuses the message as a DecodeError
            self.clean = False
            return
        self.topics.extend([message.topic] * n)
        self.partitions.extend([message.partition] * n)
        self.offsets.extend([message.offset] * n)

    def batches(self, checked: CheckedDecoder, permissive: bool) -> Iterator[pa.RecordBatch]:
        if self.clean and not len(self.batch):
            return
        if self.clean:
            try:
                events: Optional[pa.RecordBatch] = event_batch_arrow(self.batch)
            except Exception:  # noqa: BLE001 - anything Arrow cannot hold (an int past 64 bits:
                events = None  # OverflowError) goes the Event path, which words it per message
            if events is not None and not batch_problems(events):
                yield _placed(list(events.columns), self.topics, self.partitions, self.offsets, None, permissive)
                return
        yield from event_batches(checked, iter(self.messages), permissive)


def event_batches(
    decoder: CheckedDecoder, messages: Iterator[Message], permissive: bool, finishing: bool = False
) -> Iterator[pa.RecordBatch]:
    """The Event path: each message decoded (and checked) into events, batched into Arrow;
    ``finishing``: the messages are the whole input, ended with the decoder's ``finish``."""
    events: list[Optional[Event]] = []
    malformed: list[Optional[dict]] = []
    places: list[Message] = []
    size = 0
    last: Optional[Message] = None
    for message in messages:
        last = message
        size += _size(message)
        try:
            decoded = decoder.decode(message)
        except HeldRowsRefused as exc:  # held rows released, some refused: each at its own place
            if not permissive:
                raise
            for held, error in exc.refused:
                events.append(None)
                malformed.append({"source": held.location(), "reason": error.args[0],
                                  "text": message_text(held)})
                places.append(held)
            decoded = exc.events
        except DecodeError as exc:
            located = exc.at_message(message.location())
            if not permissive:
                raise located from None
            events.append(None)
            malformed.append(
                {"source": message.location(), "reason": exc.args[0], "text": message_text(message)}
            )
            places.append(message)
            continue
        events.extend(decoded)
        malformed.extend([None] * len(decoded))
        places.extend([message] * len(decoded))
        if len(events) >= BATCH_EVENTS or size >= BATCH_BYTES:
            yield _located(events, malformed, places, permissive)
            events, malformed, places, size = [], [], [], 0
    if events:
        yield _located(events, malformed, places, permissive)
    if finishing:
        yield from finished(decoder, last, permissive)


def finished(decoder: CheckedDecoder, last: Optional[Message], permissive: bool) -> Iterator[pa.RecordBatch]:
    """What the decoder still holds at the end of the input, placed at its last message."""
    held = decoder.finish()
    if held:
        assert last is not None, "a decoder given no message holds no event"
        yield _located(list(held), [None] * len(held), [last] * len(held), permissive)


def message_text(message: Message) -> str:
    """A message as a dead letter's record: key and value in base64 (they are bytes)."""
    return json.dumps(
        {
            "key": None if message.key is None else base64.b64encode(message.key).decode("ascii"),
            "value": None if message.value is None else base64.b64encode(message.value).decode("ascii"),
        }
    )


def _located(
    events: list[Optional[Event]], malformed: list[Optional[dict]], places: list[Message], permissive: bool
) -> pa.RecordBatch:
    topics = [m.topic for m in places]
    partitions = [m.partition for m in places]
    offsets = [m.offset for m in places]
    if not permissive:
        batch = events_to_batch(events)  # type: ignore[arg-type]
        return _placed(list(batch.columns), topics, partitions, offsets, None, permissive)
    *event_columns, bad = events_to_permissive_batch(events, malformed).columns
    return _placed(event_columns, topics, partitions, offsets, bad, permissive)


def _placed(
    event_columns: list[pa.Array],
    topics: list[str],
    partitions: list[int],
    offsets: list[Optional[int]],
    malformed: Optional[pa.Array],
    permissive: bool,
) -> pa.RecordBatch:
    """Event columns with each event's place (and ``_malformed`` when read permissively)."""
    where = [pa.array(topics, pa.string()), pa.array(partitions, pa.int32()), pa.array(offsets, pa.int64())]
    if not permissive:
        return pa.RecordBatch.from_arrays([*event_columns, *where], schema=ARROW_READ_EVENT_SCHEMA)
    if malformed is None:
        malformed = pa.nulls(len(topics), ARROW_MALFORMED)
    return pa.RecordBatch.from_arrays([*event_columns, *where, malformed], schema=ARROW_PERMISSIVE_READ_EVENT_SCHEMA)
