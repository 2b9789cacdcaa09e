"""The canal-json encoder: one event per message, JSON text built in one pass.

Row messages are the table's :class:`RowLayout` templates with their slots
filled: per row only the values (and ``sqlType`` when an unsigned value is
promoted) are written; everything else is ready-made JSON text.

Large messages, as the reference's ``JSONRowEventEncoder`` (tiflow
``pkg/sink/codec/canal/canal_json_row_event_encoder.go``): every value (rows, DDL,
watermarks) is compressed with ``large-message-handle-compression`` before its size
is checked; a row over ``max-message-bytes`` is sent with its handle-key columns only
(``_tidb.onlyHandleKey``), or stored whole in the claim-check storage and replaced by
its handle-key columns with ``_tidb.claimCheckLocation``.
"""

from __future__ import annotations

import struct
import time
from concurrent.futures import Future
from itertools import count
from typing import Callable, Iterable, Iterator, Optional, Sequence

from cdcwire.plugin_api import (
    PointerPayload,
    in_order_once_stored,
    MESSAGE_OVERHEAD,
    BoundedCache,
    ClaimCheckStore,
    Column,
    DDLEvent,
    EncodeError,
    Event,
    EventBatch,
    ImageShape,
    MessageTooLargeError,
    Payload,
    ResolvedEvent,
    RowChangedEvent,
)

from .ddl_kinds import canal_ddl_word
from .options import CanalOptions
from .row_layout import NULL_MARK, QUOTED_NULL, UPDATE_CHANGED, ColumnPlan, RowLayout, dumps

WATERMARK = "TIDB_WATERMARK"
LARGE_ROW_OPTION = "large-message-handle-option={}, the row being over max-message-bytes"
KEY_ONLY_ROW = "the row arrived key-only (handle_key_only)"
#: What ``_tidb`` says of a row sent with its handle-key columns only.
ONLY_HANDLE_KEY = ',"onlyHandleKey":true'
#: A location the size of a real one (a UUID and ``.json``), for sizing a claim-check
#: pointer without storing anything (see :meth:`CanalJSONEncoder.read_back_key_only`).
_SIZING_OBJECT = "5f0c7a2e-93d1-4b8a-b6e4-2c91d0e7a3f5.json"
U64_LIMIT = 1 << 64
_LAYOUT_CACHE_LIMIT = 4096

_BAD_VALUE = (TypeError, ValueError, struct.error, OverflowError)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class CanalJSONEncoder:
    """Encodes the events of one topic-partition. ``clock`` gives the ``ts`` field (ms);
    :func:`now_ms` (looked up when the encoder is made) by default."""

    def __init__(self, options: CanalOptions, clock: Optional[Callable[[], int]] = None) -> None:
        self.options = options
        self._clock = now_ms if clock is None else clock
        self._layouts: BoundedCache[tuple, RowLayout] = BoundedCache(_LAYOUT_CACHE_LIMIT)
        #: Each table's last shape and layout: a plain dict, emptied whenever _layouts is, so
        #: that it holds only layouts _layouts holds and stays as bounded.
        self._last_layouts: dict[tuple[str, str], tuple[list[tuple], RowLayout]] = {}
        self._store: Optional[ClaimCheckStore] = None  # opened at the first row to claim-check
        #: The upload of the object of the pointer being made (see _payload).
        self._upload: Optional[Future] = None
        compression = options.large.compression
        #: The codec's compress, None without compression (one test per message on the hot path).
        self._compress: Optional[Callable[[bytes], bytes]] = (
            compression.compress if compression.enabled else None
        )

    # -- public ---------------------------------------------------------------------------

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        return self._released(self._encode(events))

    def _encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        for event in events:
            value = self._event_value(event)
            if value is not None:
                yield self._payload(value)

    def _payload(self, value: bytes) -> Payload:
        """The message of ``value``; a claim-check pointer carries the upload of its object."""
        stored, self._upload = self._upload, None
        return Payload(None, value, 1) if stored is None else PointerPayload(None, value, 1, stored)

    def _released(self, payloads: Iterator[Payload]) -> Iterator[Payload]:
        """Under claim-check, each message once the objects of the pointers up to it are stored
        (see cdcwire.large_messages.uploads: objects are stored side by side)."""
        return in_order_once_stored(payloads) if self.options.large.claim_check else payloads

    def encode_batches(self, batches: Iterable[EventBatch]) -> Iterator[Payload]:
        return self._released(self._encode_batches(batches))

    def _encode_batches(self, batches: Iterable[EventBatch]) -> Iterator[Payload]:
        """The columnar twin of :meth:`encode` (same bytes): rows with the default options are
        filled from the batch's values and shapes; every other event, and every key-only row
        (``batch.key_only``), takes the Event path."""
        options = self.options
        fast_kinds = {"insert"}  # the kinds the options leave whole
        if not options.only_updated_columns:
            fast_kinds.add("update")
        if not options.delete_handle_key_only:
            fast_kinds.add("delete")
        for batch in batches:
            kinds = batch.kinds
            key_only = batch.key_only
            for i in range(len(kinds)):
                kind = kinds[i]
                value = None
                if kind in fast_kinds and (not key_only or i not in key_only):
                    value = self._batch_row(batch, i, kind)
                if value is None:  # not a fast row, or one the fast path hands over (see _batch_row)
                    value = self._event_value(batch.event(i))
                if value is not None:
                    yield self._payload(value)

    def encode_event(self, event: Event) -> Optional[bytes]:
        """The message value for one event; None for a resolved event without the extension.
        A claim-checked row's object is stored before this returns."""
        value = self._event_value(event)
        stored, self._upload = self._upload, None
        if stored is not None:
            stored.result()
        return value

    def _event_value(self, event: Event) -> Optional[bytes]:
        if isinstance(event, RowChangedEvent):
            return self._row_message(event)[0]
        compress = self._compress
        if isinstance(event, DDLEvent):
            value = self._ddl_message(event)
            return self._checked_size(value if compress is None else compress(value), event)
        if isinstance(event, ResolvedEvent):
            if not self.options.tidb_extension:
                return None
            value = self._watermark_message(event)
            return value if compress is None else compress(value)
        raise EncodeError(f"canal-json cannot encode {type(event).__name__}: not a cdcwire event")

    def _batch_row(self, batch: EventBatch, i: int, kind: str) -> Optional[bytes]:
        """Row ``i`` as :meth:`_row_message` writes it whole (compressed as it compresses it), or
        None to hand it to the Event path: an update whose images differ in shape, a value the
        formatters refuse, text UTF-8 cannot carry, a message over max-message-bytes (their
        errors and fallbacks live there)."""
        schema, table = batch.schemas[i], batch.tables[i]
        if kind == "delete":
            layout = self._shape_layout(schema, table, batch.old_shapes[i])  # type: ignore[arg-type]
            values = batch.old_values[i]
        else:
            layout = self._shape_layout(schema, table, batch.new_shapes[i])  # type: ignore[arg-type]
            values = batch.new_values[i]
            if kind == "update" and batch.old_shapes[i] is not batch.new_shapes[i]:
                return None
        try:
            texts = [
                null if v is None else f(v)  # type: ignore[union-attr]
                for f, null, v in zip(layout.json_formatters, layout.nulls, values)  # type: ignore[arg-type]
            ]
            ts = batch.commit_ts[i]
            head = (ts >> 18, self._clock(), layout.sql_types_json(values))  # type: ignore[arg-type]
            tail = self._tail(ts, "")
            data = layout.data.pick(texts)
            if kind == "update":
                old_values = batch.old_values[i]
                old = layout.data.pick([
                    null if v is None else f(v)  # type: ignore[union-attr]
                    for f, null, v in zip(layout.json_formatters, layout.nulls, old_values)  # type: ignore[arg-type]
                ])
                text = layout.templates["UPDATE"] % (*head, *old, *data, tail)
            else:
                text = layout.templates["INSERT" if kind == "insert" else "DELETE"] % (*head, *data, tail)
            if NULL_MARK in text:
                text = text.replace(QUOTED_NULL, "null")
            value = text.encode("utf-8")
        except (*_BAD_VALUE, UnicodeEncodeError):
            return None
        if self._compress is not None:
            value = self._compress(value)
        if len(value) + MESSAGE_OVERHEAD > self.options.max_message_bytes:
            return None
        return value

    def _shape_layout(self, schema: str, table: str, shape: ImageShape) -> RowLayout:
        """The layout of a batch image: keyed on the interned shape (an identity hash), built
        from the shape as :meth:`_layout` builds it from Column objects."""
        key = (schema, table, shape)
        layout = self._layouts.get(key)
        if layout is None:
            try:
                layout = RowLayout.of(schema, table, shape.columns([None] * len(shape)), self.options.content_compatible)
            except (KeyError, ValueError) as exc:
                raise EncodeError(f"{schema}.{table}: unsupported column type or flags: {exc}") from None
            self._layouts.remember(key, layout)
            if len(self._layouts) == 1:
                self._last_layouts.clear()
        return layout

    def read_back_key_only(self, row: RowChangedEvent) -> bool:
        """Whether a reader gets ``row`` back with its handle-key columns only (and marked so):
        a row that arrived key-only (with the extension, which carries the mark), or a row too
        large whole under handle-key-only. A claim-checked row reads back whole. Nothing is
        stored: a claim-check pointer is sized with a location of a real one's length.

        Raises MessageTooLargeError when the row cannot be sent at all.
        """
        return self._row_message(row, sizing=True)[1]

    # -- rows -----------------------------------------------------------------------------

    def _row_message(self, row: RowChangedEvent, sizing: bool = False) -> tuple[bytes, bool]:
        """The message value for ``row``, and whether it reads back key-only.

        With claim-check, a row too large whole is stored (compressed, as it would have been
        sent) before its pointer is made; ``sizing`` stores nothing and sizes the pointer
        with a stand-in location.
        """
        marked = row.handle_key_only and self.options.tidb_extension  # the mark needs _tidb to travel
        value = self._render_row(row, marked, ONLY_HANDLE_KEY if marked else "", KEY_ONLY_ROW)
        compress = self._compress
        if compress is not None:
            value = compress(value)
        if len(value) + MESSAGE_OVERHEAD <= self.options.max_message_bytes:
            return value, marked
        return self._large_row(row, value, marked, sizing)

    def _large_row(
        self, row: RowChangedEvent, value: bytes, marked: bool, sizing: bool
    ) -> tuple[bytes, bool]:
        """:meth:`_row_message` for a row whose message ``value`` is over max-message-bytes."""
        options = self.options
        large, compress, limit = options.large, self._compress, options.max_message_bytes
        if large.handle_key_only:
            value = self._render_row(row, True, ONLY_HANDLE_KEY, LARGE_ROW_OPTION.format(large.mode))
            if compress is not None:
                value = compress(value)
            if len(value) + MESSAGE_OVERHEAD > limit:
                raise self._too_large(row, value, "even with only its handle-key columns")
            return value, True
        if large.claim_check:
            if not options.tidb_extension:
                raise EncodeError(
                    "canal-json: large-message-handle-option=claim-check needs enable-tidb-extension=true"
                )
            location = self._sizing_location() if sizing else self._claim_check(row, value)
            extra = ',"claimCheckLocation":' + dumps(location)
            pointer = self._render_row(row, True, extra, LARGE_ROW_OPTION.format(large.mode))
            if compress is not None:
                pointer = compress(pointer)
            if len(pointer) + MESSAGE_OVERHEAD > limit:
                how = "even as a claim-check pointer (its handle-key columns and location)"
                raise self._too_large(row, pointer, how)
            return pointer, marked
        raise self._too_large(
            row, value,
            "; set large-message-handle-option=handle-key-only (send its key only) or claim-check (store it"
            " in claim-check-storage-uri), with enable-tidb-extension",
        )

    def _too_large(self, row: RowChangedEvent, value: bytes, how: str) -> MessageTooLargeError:
        compressed = self.options.large.compression
        size = f"{len(value)} bytes" + (f" ({compressed.name}-compressed)" if compressed.enabled else "")
        return MessageTooLargeError(
            f"canal-json message for {row.kind} on {row.schema}.{row.table} at commit ts {row.commit_ts}"
            f" is {size} + {MESSAGE_OVERHEAD} overhead > max-message-bytes {self.options.max_message_bytes}"
            + (how if how.startswith(";") else " " + how)
        )

    def _claim_check_store(self) -> ClaimCheckStore:
        store = self._store
        if store is None:
            store = self._store = self.options.large.store()
            if store is None:  # a config that skipped validate (LargeMessageOptions.check refuses it)
                raise EncodeError(
                    "canal-json: large-message-handle-option=claim-check needs claim-check-storage-uri"
                )
        return store

    def _claim_check(self, row: RowChangedEvent, value: bytes) -> str:
        """Store the whole message value; the location its pointer carries. The key is None:
        canal-json messages have none."""
        what = f"the {row.kind} on {row.schema}.{row.table} at commit ts {row.commit_ts}"
        location, self._upload = self._claim_check_store().store_in_background(None, value, f"canal-json: {what}")
        return location

    def _sizing_location(self) -> str:
        return self._claim_check_store().storage.location(_SIZING_OBJECT)

    def _layout(self, row: RowChangedEvent, image: Sequence[Column]) -> RowLayout:
        """The layout of ``image``: the table's last one when every column's name, type, flags
        and type text are the same, else the one cached for this shape, else a new one.

        The shape is a list of tuples built by a comprehension (faster than attrgetter at
        reading the slots) and compared, not hashed, on the common path.
        """
        shape = [(c.name, c.type, c.flags, c.mysql_type) for c in image]
        table = (row.schema, row.table)
        last = self._last_layouts.get(table)
        if last is not None and last[0] == shape:
            return last[1]
        key = (row.schema, row.table, tuple(shape))
        layout = self._layouts.get(key)
        if layout is None:
            try:
                layout = RowLayout.of(row.schema, row.table, image, self.options.content_compatible)
            except (KeyError, ValueError) as exc:
                raise EncodeError(f"{row.schema}.{row.table}: unsupported column type or flags: {exc}") from None
            self._layouts.remember(key, layout)
            if len(self._layouts) == 1:  # remember emptied it when full (or it was empty: so is this)
                self._last_layouts.clear()
        self._last_layouts[table] = (shape, layout)
        return layout

    def _render_row(self, row: RowChangedEvent, only_key: bool, tidb_extra: str = "", why: str = "") -> bytes:
        """The row's message text: whole, or its handle-key columns only (``why``: what asked for
        that, for the error of a table without any); ``tidb_extra`` goes into ``_tidb`` after
        ``commitTs``, as the reference orders it (onlyHandleKey, claimCheckLocation)."""
        ts = row.commit_ts
        if ts.__class__ is not int or not 0 <= ts < U64_LIMIT:
            raise EncodeError(f"commit ts {ts!r} of {row.schema}.{row.table} is not an unsigned 64-bit integer")
        new, old = row.columns, row.pre_columns
        tail = self._tail(ts, tidb_extra)
        if new is None:  # delete: data is the deleted row
            layout = self._layout(row, old)  # type: ignore[arg-type]
            if only_key:
                layout = _key_layout(layout, row, why)
            elif self.options.delete_handle_key_only:
                layout = _key_layout(layout, row, "delete-only-output-handle-key-columns=true")
            values = self._values(layout, old)  # type: ignore[arg-type]
            data = self._json_values(layout, values, row, "pre_columns")
            head = (ts >> 18, self._clock(), layout.sql_types_json(values))
            text = layout.templates["DELETE"] % (*head, *data, tail)
        else:
            layout = self._layout(row, new)
            if only_key:
                layout = _key_layout(layout, row, why)
            values = self._values(layout, new)
            data = self._json_values(layout, values, row, "columns")
            head = (ts >> 18, self._clock(), layout.sql_types_json(values))
            if old is None:
                text = layout.templates["INSERT"] % (*head, *data, tail)
            elif self.options.only_updated_columns:
                changed = self._changed_old_json(layout, row, new, old)
                text = layout.templates[UPDATE_CHANGED] % (*head, changed, *data, tail)
            else:
                old_data = self._old_values(layout, row, new, old)
                text = layout.templates["UPDATE"] % (*head, *old_data, *data, tail)
        if NULL_MARK in text:
            text = text.replace(QUOTED_NULL, "null")
        return _utf8(text, row)

    def _tail(self, ts: int, tidb_extra: str) -> str:
        """The end of a row message: ``_tidb`` with the extension, and the closing brace."""
        if not self.options.tidb_extension:
            return "}"
        return f',"_tidb":{{"commitTs":{ts}{tidb_extra}}}}}'


    @staticmethod
    def _values(layout: RowLayout, image: Sequence[Column]) -> list[object]:
        if len(layout.indices) == len(image):
            return [c.value for c in image]  # a comprehension reads slots faster than attrgetter
        return [image[i].value for i in layout.indices]

    @classmethod
    def _json_values(
        cls, layout: RowLayout, values: list[object], row: RowChangedEvent, image_name: str
    ) -> list[str]:
        """The text of each value for ``layout``'s object slots (see ``RowLayout.nulls``)."""
        try:
            texts = [
                null if v is None else f(v) for f, null, v in zip(layout.json_formatters, layout.nulls, values)
            ]
        except _BAD_VALUE:
            raise cls._value_error(layout, values, row, image_name) from None
        return layout.data.pick(texts)

    @staticmethod
    def _value_error(
        layout: RowLayout, values: list[object], row: RowChangedEvent, image_name: str
    ) -> EncodeError:
        """Name the first column whose value its formatter rejects."""
        for plan, v in zip(layout.plans, values):
            try:
                if v is not None:
                    plan.formatter(v)
            except _BAD_VALUE as exc:
                return EncodeError(
                    f"{row.schema}.{row.table} {image_name} column {plan.name!r} ({plan.type.name}):"
                    f" cannot write {type(v).__name__} value {_short(v)}: {exc}"
                )
        raise AssertionError("unreachable: a formatter failed and then succeeded")

    @staticmethod
    def _check_same_columns(row: RowChangedEvent, new: Sequence[Column], old: Sequence[Column]) -> None:
        if len(old) != len(new) or [c.name for c in old] != [c.name for c in new]:
            raise EncodeError(
                f"{row.schema}.{row.table} update at commit ts {row.commit_ts}: old and new images must have"
                f" the same columns in the same order; old has {[c.name for c in old]}, new {[c.name for c in new]}"
            )

    def _old_values(
        self, layout: RowLayout, row: RowChangedEvent, new: Sequence[Column], old: Sequence[Column]
    ) -> list[str]:
        """The JSON text of each value of the whole old image, for the UPDATE template."""
        self._check_same_columns(row, new, old)
        return self._json_values(layout, self._values(layout, old), row, "pre_columns")

    def _changed_old_json(
        self, layout: RowLayout, row: RowChangedEvent, new: Sequence[Column], old: Sequence[Column]
    ) -> str:
        """``old`` with only-output-updated-columns: the columns whose value changed.

        The reference leaves an old value out when its type and value equal the new one's
        (a value of another Python class counts as changed). The changed values fill the
        layout's template for that set of columns; a bad value (or a layout with a name
        twice) takes the path that builds a dict, which names the bad column.
        """
        self._check_same_columns(row, new, old)
        indices = layout.indices
        if layout.data.slots is None:
            try:
                changed = [
                    (position, null if o.value is None else f(o.value))
                    for position, f, null, o, n in zip(
                        count(), layout.json_formatters, layout.nulls,
                        map(old.__getitem__, indices), map(new.__getitem__, indices),
                    )
                    if not (o.type == n.type and o.value.__class__ is n.value.__class__ and o.value == n.value)
                ]
            except _BAD_VALUE:
                pass
            else:
                if not changed:
                    return "[{}]"
                positions, texts = zip(*changed)
                return "[" + layout.changed_object(positions) % texts + "]"
        texts_by_name = {
            plan.name: _text(plan, o.value, row)
            for plan, o, n in zip(layout.plans, map(old.__getitem__, indices), map(new.__getitem__, indices))
            if not (o.type == n.type and o.value.__class__ is n.value.__class__ and o.value == n.value)
        }
        return "[" + dumps(texts_by_name) + "]"

    # -- DDL and watermarks ---------------------------------------------------------------

    def _ddl_message(self, ddl: DDLEvent) -> bytes:
        ts = ddl.commit_ts
        if ts.__class__ is not int or not 0 <= ts < U64_LIMIT:
            raise EncodeError(f"commit ts {ts!r} of DDL {_short(ddl.query)} is not an unsigned 64-bit integer")
        doc: dict[str, object] = {
            "id": 0,
            "database": ddl.schema,
            "table": ddl.table,
            "pkNames": None,
            "isDdl": True,
            "type": canal_ddl_word(ddl.ddl_type),
            "es": ts >> 18,
            "ts": self._clock(),
            "sql": ddl.query,
            "sqlType": None,
            "mysqlType": None,
            "data": None,
            "old": None,
        }
        if self.options.tidb_extension:
            doc["_tidb"] = {"commitTs": ts}
        return _utf8(dumps(doc), ddl)

    def _watermark_message(self, resolved: ResolvedEvent) -> bytes:
        ts = resolved.ts
        if ts.__class__ is not int or not 0 <= ts < U64_LIMIT:
            raise EncodeError(f"resolved ts {ts!r} is not an unsigned 64-bit integer")
        doc = {
            "id": 0,
            "database": "",
            "table": "",
            "pkNames": None,
            "isDdl": False,
            "type": WATERMARK,
            "es": 0,
            "ts": self._clock(),
            "sql": "",
            "sqlType": None,
            "mysqlType": None,
            "data": None,
            "old": None,
            "_tidb": {"watermarkTs": ts},
        }
        return dumps(doc).encode()

    def _checked_size(self, value: bytes, ddl: DDLEvent) -> bytes:
        limit = self.options.max_message_bytes
        if len(value) + MESSAGE_OVERHEAD > limit:
            raise MessageTooLargeError(
                f"canal-json DDL message at commit ts {ddl.commit_ts} is {len(value)} bytes"
                f" + {MESSAGE_OVERHEAD} overhead > max-message-bytes {limit}"
            )
        return value


def _key_layout(layout: RowLayout, row: RowChangedEvent, option: str) -> RowLayout:
    """The key-only layout of a row; a table without a handle-key column is an error, since
    ``"data":[{}]`` would not tell a consumer which row changed."""
    key = layout.key_layout()
    if not key.plans:
        raise EncodeError(
            f"canal-json: the {row.kind} of {row.schema}.{row.table} at commit ts {row.commit_ts}"
            f" cannot be sent with only its handle-key columns ({option}): the table has no handle-key column"
        )
    return key


def _text(plan: ColumnPlan, value: object, row: RowChangedEvent) -> Optional[str]:
    if value is None:
        return None
    try:
        return plan.formatter(value)
    except _BAD_VALUE as exc:
        raise EncodeError(
            f"{row.schema}.{row.table} pre_columns column {plan.name!r} ({plan.type.name}):"
            f" cannot write {type(value).__name__} value {_short(value)}: {exc}"
        ) from None


def _utf8(text: str, event: object) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        where = f"{event.schema}.{event.table}" if hasattr(event, "table") else "event"  # type: ignore[attr-defined]
        raise EncodeError(
            f"{where}: text holds U+{ord(exc.object[exc.start]):04X}, a lone surrogate that UTF-8 cannot carry"
        ) from None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
