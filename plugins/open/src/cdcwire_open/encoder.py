"""The open-protocol encoder: events of one topic-partition into batched messages.

Row changes share a message until it holds ``max-batch-size`` rows or the
next one would take it past ``max-message-bytes``. DDL and resolved events
travel in a message of their own, as the reference sends them: its
consumers stop reading a message after a resolved event.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Iterator, Optional

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    DDLEvent,
    EncodeError,
    Event,
    EventBatch,
    MessageTooLargeError,
    Payload,
    PointerPayload,
    ResolvedEvent,
    RowChangedEvent,
    in_order_once_stored,
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

    def _texts(self, row: RowChangedEvent, only_handle_key: bool) -> tuple[bytes, bytes]:
        """Key JSON and value JSON of a row; the value compressed as the sink says (the reference
        compresses every value, before the size check)."""
        text, options = self.text, self.options
        value = text.row_value(row, sent_images(row, options, only_handle_key))
        return text.row_key(row, only_handle_key), options.large.compression.compress(value)

    def row_parts(self, row: RowChangedEvent) -> tuple[bytes, bytes] | Payload:
        """Key JSON and value JSON of a row change; a row over ``max-message-bytes`` as the sink's
        large-message option says: its handle key only, or a claim-check pointer, which travels
        in a message of its own (a Payload) as the reference sends it."""
        key, value = self._texts(row, row.handle_key_only)
        cost = single_event_cost(key, value)
        if cost <= self.options.max_message_bytes:
            return key, value
        large = self.options.large
        if large.claim_check:
            return self._claim_checked(row, key, value)
        if not large.handle_key_only:
            raise self._too_large(row, cost, "; set large-message-handle-option=handle-key-only (only its handle-key"
                                  " columns are sent) or claim-check (the message is stored aside)")
        key, value = self._texts(row, True)
        cost = single_event_cost(key, value)
        if cost > self.options.max_message_bytes:
            raise self._too_large(row, cost, " even with only its handle-key columns")
        return key, value

    def sent_as(self, row: RowChangedEvent) -> str:
        """How a row travels: ``whole``, ``handle-key-only`` or ``claim-check`` (for ``carried``)."""
        if row.handle_key_only:
            return "handle-key-only"
        if self.options.large.mode == "none":
            return "whole"
        if single_event_cost(*self._texts(row, False)) <= self.options.max_message_bytes:
            return "whole"
        return self.options.large.mode

    def _claim_checked(self, row: RowChangedEvent, key: bytes, value: bytes) -> Payload:
        """Store the row's whole message (as a message of its own would be) and return the pointer
        that replaces it: key with ``"ccl"``, value with the handle-key columns only. The object is
        stored before the pointer exists, so no reader can see a pointer to nothing."""
        whole = single_message(key, value)
        what = f"the {row.kind} of {row.schema}.{row.table} at commit ts {row.commit_ts}"
        location, stored = self.options.large.store().store_in_background(  # type: ignore[union-attr]
            whole.key, whole.value, what
        )
        pointer_key, pointer_value = self.text.claim_check_key(row, location), self._texts(row, True)[1]
        cost = single_event_cost(pointer_key, pointer_value)
        if cost > self.options.max_message_bytes:
            raise self._too_large(row, cost, " even as a claim-check pointer with only its handle-key columns")
        pointer = single_message(pointer_key, pointer_value)
        return PointerPayload(pointer.key, pointer.value, pointer.events, stored)

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
        return self._released(self._batched(map(self._parts, events)))

    def _released(self, payloads: Iterator[Payload]) -> Iterator[Payload]:
        """Under claim-check, each message once the objects of the pointers up to it are stored."""
        return in_order_once_stored(payloads) if self.options.large.claim_check else payloads

    def encode_batches(self, batches: Iterable[EventBatch]) -> Iterator[Payload]:
        """The columnar twin of :meth:`encode` (same bytes, same batching): rows whose images
        are sent whole are rendered from the batch's shapes and values; every other event
        takes the Event path."""
        options = self.options
        if options.large.compression.enabled:  # every value compressed: the Event path's one place for it
            return self.encode(itertools.chain.from_iterable(batch.events() for batch in batches))
        fast = {"insert"}
        if options.old_value and not options.only_updated_columns:
            fast.add("update")
        if options.old_value and not options.delete_only_handle_key:
            fast.add("delete")
        return self._released(self._batched(self._batch_parts(batches, frozenset(fast))))

    def _batch_parts(self, batches: Iterable[EventBatch], fast: frozenset[str]) -> Iterator[tuple[bytes, bytes] | Payload]:
        text, limit = self.text, self.options.max_message_bytes
        for batch in batches:
            kinds, key_only = batch.kinds, batch.key_only
            for i in range(len(kinds)):
                parts = text.batch_row_parts(batch, i) if kinds[i] in fast and i not in key_only else None
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
            value = self.options.large.compression.compress(self.text.ddl_value(event))
            return self._alone(event, self.text.ddl_key(event), value)
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
