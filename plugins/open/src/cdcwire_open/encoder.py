"""The open-protocol encoder: events of one topic-partition into batched messages.

Row changes share a message until it holds ``max-batch-size`` rows or the
next one would take it past ``max-message-bytes``. DDL and resolved events
travel in a message of their own, as the reference sends them: its
consumers stop reading a message after a resolved event.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    DDLEvent,
    EncodeError,
    Event,
    EventBatch,
    MessageTooLargeError,
    Payload,
    ResolvedEvent,
    RowChangedEvent,
)

from .event_text import EventText
from .framing import EVENT_FRAMING, LENGTH, VERSION_BYTES, single_event_cost
from .options import OpenOptions
from .row_images import sent_images


class _Batch:
    """A message being filled: key and value buffers, and how many rows they hold."""

    __slots__ = ("key", "value", "rows")

    def __init__(self) -> None:
        self.key = bytearray(VERSION_BYTES)
        self.value = bytearray()
        self.rows = 0

    def add(self, key_json: bytes, value_json: bytes) -> None:
        self.key += LENGTH.pack(len(key_json))
        self.key += key_json
        self.value += LENGTH.pack(len(value_json))
        self.value += value_json
        self.rows += 1

    def cost(self) -> int:
        return len(self.key) + len(self.value) + MESSAGE_OVERHEAD

    def payload(self) -> Payload:
        return Payload(bytes(self.key), bytes(self.value), self.rows)


def single_message(key_json: bytes, value_json: bytes) -> Payload:
    """A message carrying exactly one event."""
    return Payload(
        VERSION_BYTES + LENGTH.pack(len(key_json)) + key_json,
        LENGTH.pack(len(value_json)) + value_json,
        1,
    )


class OpenProtocolEncoder:
    """Encodes the ordered events of one topic-partition."""

    def __init__(self, options: OpenOptions, text: Optional[EventText] = None) -> None:
        self.options = options
        self.text = text or EventText()

    def row_parts(self, row: RowChangedEvent) -> tuple[bytes, bytes]:
        """Key JSON and value JSON of a row change, falling back to handle-key-only when allowed."""
        text, options = self.text, self.options
        key = text.row_key(row)
        value = text.row_value(row, sent_images(row, options))
        cost = single_event_cost(key, value)
        if cost <= options.max_message_bytes:
            return key, value
        return self._large_row_parts(row, cost)

    def sent_with_handle_key_only(self, row: RowChangedEvent) -> bool:
        """True when the row is too large whole and goes out with only its handle-key columns."""
        if not self.options.handle_key_only_when_large:
            return False
        whole = single_event_cost(self.text.row_key(row), self.text.row_value(row, sent_images(row, self.options)))
        return whole > self.options.max_message_bytes

    def _large_row_parts(self, row: RowChangedEvent, cost: int) -> tuple[bytes, bytes]:
        text, options = self.text, self.options
        if not options.handle_key_only_when_large:
            raise self._too_large(row, cost, "; set large-message-handle-option=handle-key-only to send only its handle-key columns")
        key = text.row_key(row, only_handle_key=True)
        value = text.row_value(row, sent_images(row, options, only_handle_key=True))
        cost = single_event_cost(key, value)
        if cost > options.max_message_bytes:
            raise self._too_large(row, cost, " even with only its handle-key columns")
        return key, value

    def _too_large(self, event: Event, cost: int, advice: str) -> MessageTooLargeError:
        if isinstance(event, RowChangedEvent):
            what = f"row change of {event.schema}.{event.table} at commit ts {event.commit_ts}"
        elif isinstance(event, DDLEvent):
            what = f"DDL of {event.schema}.{event.table} at commit ts {event.commit_ts}"
        else:
            what = f"resolved event {event.commit_ts}"
        return MessageTooLargeError(
            f"open-protocol: the {what} needs {cost} bytes in a message (key, value, {EVENT_FRAMING + len(VERSION_BYTES)}"
            f" framing and {MESSAGE_OVERHEAD} record overhead), over max-message-bytes={self.options.max_message_bytes}{advice}"
        )

    def _alone(self, event: Event, key: bytes, value: bytes) -> Payload:
        cost = single_event_cost(key, value)
        if cost > self.options.max_message_bytes:
            raise self._too_large(event, cost, "")
        return single_message(key, value)

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        return self._batched(map(self._parts, events))

    def encode_batches(self, batches: Iterable[EventBatch]) -> Iterator[Payload]:
        """The columnar twin of :meth:`encode` (same bytes, same batching): rows whose images
        are sent whole are rendered from the batch's shapes and values; every other event
        takes the Event path."""
        options = self.options
        fast = {"insert"}
        if options.old_value and not options.only_updated_columns:
            fast.add("update")
        if options.old_value and not options.delete_only_handle_key:
            fast.add("delete")
        return self._batched(self._batch_parts(batches, frozenset(fast)))

    def _batch_parts(self, batches: Iterable[EventBatch], fast: frozenset[str]) -> Iterator[tuple[bytes, bytes] | Payload]:
        text, limit = self.text, self.options.max_message_bytes
        for batch in batches:
            kinds = batch.kinds
            for i in range(len(kinds)):
                parts = text.batch_row_parts(batch, i) if kinds[i] in fast else None
                if parts is None or single_event_cost(*parts) > limit:  # see EventText.batch_row_parts
                    yield self._parts(batch.event(i))
                else:
                    yield parts

    def _parts(self, event: Event) -> tuple[bytes, bytes] | Payload:
        """A row's (key JSON, value JSON), or the message of an event that travels alone."""
        if isinstance(event, RowChangedEvent):
            return self.row_parts(event)
        if isinstance(event, ResolvedEvent):
            return self._alone(event, self.text.resolved_key(event.ts), b"")
        if isinstance(event, DDLEvent):
            return self._alone(event, self.text.ddl_key(event), self.text.ddl_value(event))
        raise EncodeError(f"open-protocol cannot encode {type(event).__name__}: not a cdcwire event")

    def _batched(self, items: Iterable[tuple[bytes, bytes] | Payload]) -> Iterator[Payload]:
        """Rows into shared messages (``max-batch-size``, ``max-message-bytes``); a message of
        its own for each event that travels alone, after the rows before it."""
        limit = self.options.max_message_bytes
        batch_size = self.options.max_batch_size
        batch: Optional[_Batch] = None
        for item in items:
            if item.__class__ is tuple:
                key, value = item  # type: ignore[misc]
                if batch is None:
                    batch = _Batch()
                elif batch.rows >= batch_size or batch.cost() + len(key) + len(value) + EVENT_FRAMING > limit:
                    yield batch.payload()
                    batch = _Batch()
                batch.add(key, value)
                continue
            if batch is not None:
                yield batch.payload()
                batch = None
            yield item  # type: ignore[misc]
        if batch is not None:
            yield batch.payload()
