"""The craft encoder of one topic-partition: rows batched, DDL and resolved alone.

Batching follows the reference (Go ``BatchEncoder.AppendRowChangedEvent``): after
a row is added, the message is closed when its estimated size passes
max-message-bytes or it holds max-batch-size rows; the crossing row stays in.
The reference trusts its estimate; cdcwire also checks the real size, and when a
closed message (key + value + 36 bytes of record overhead) would pass
max-message-bytes, the rows at its end move on to the next message. A single
event that cannot fit alone raises MessageTooLargeError.

The Kafka key is None: the reference hands its producer a nil key, which goes
on the wire as a null key (not an empty one).
"""

from __future__ import annotations

from typing import Iterable, Iterator, Optional, Sequence

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    BoundedCache,
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

from .column_values import explain_bad_value
from .layout import GROUP_NEW, GROUP_OLD, HEADER_ESTIMATE, NONE_ID
from .message_writer import (
    LayoutKey,
    PreparedRow,
    TermLayouts,
    ddl_message,
    resolved_message,
    rows_message,
)
from .primitives import I64_MAX, I64_MIN, U64_MAX
from .table_shape import ShapeCache, TableShape

_NEW = bytes((GROUP_NEW,))
_OLD = bytes((GROUP_OLD,))
#: Most tables an encoder keeps the state of, and layout keys a table keeps.
_MAX_TABLES = 4096
_MAX_LAYOUT_KEYS = 64


class CraftEncoder:
    """Encodes the ordered events of one topic-partition into craft messages."""

    def __init__(
        self,
        max_batch_size: int = 16,
        max_message_bytes: int = 10 * 1024 * 1024,
        delete_only_handle_key_columns: bool = False,
    ) -> None:
        self.max_batch_size = max_batch_size
        self.max_message_bytes = max_message_bytes
        self.delete_only_handle_key_columns = delete_only_handle_key_columns
        self._shapes = ShapeCache()
        self._layouts = TermLayouts()
        self._by_image: BoundedCache[ImageShape, TableShape] = BoundedCache(_MAX_TABLES)
        self._tables: BoundedCache[tuple[str, str], _TableState] = BoundedCache(_MAX_TABLES)
        #: Its bound ``get`` (the plain dict's), read once a row: CPython calls that as fast as
        #: ``get`` on a dict, where the method looked up on a dict subclass is not specialised.
        self._table_of = self._tables.get

    # -- the stream ----------------------------------------------------------------------

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        return self._stream(events)

    def encode_batches(self, batches: Iterable[EventBatch]) -> Iterator[Payload]:
        """The columnar twin of :meth:`encode` (same bytes, same batching): rows are prepared
        from the batch's shapes and values by each shape's values encoder; every other event,
        and a row the fast path hands over, takes the Event path."""
        return self._stream(self._batch_items(batches))

    def _batch_items(self, batches: Iterable[EventBatch]) -> Iterator[PreparedRow | Event]:
        cut_deletes = self.delete_only_handle_key_columns
        for batch in batches:
            kinds = batch.kinds
            for i in range(len(kinds)):
                kind = kinds[i]
                row = None
                if kind == "insert" or kind == "update" or (kind == "delete" and not cut_deletes):
                    row = self._prepare_values(batch, i)
                yield batch.event(i) if row is None else row

    def _prepare_values(self, batch: EventBatch, i: int) -> Optional[PreparedRow]:
        """Row ``i`` as :meth:`prepare` makes it, or None for a value the Event path must word."""
        partition = batch.table_ids[i]
        if partition is None:
            partition = NONE_ID
        schema, table_name = batch.schemas[i], batch.tables[i]
        table = self._table_of((schema, table_name)) or self._tables.remember(
            (schema, table_name), _TableState(schema, table_name)  # type: ignore[arg-type]
        )
        new_image, old_image = batch.new_shapes[i], batch.old_shapes[i]
        new_shape = old_shape = None
        values: tuple[bytes, ...] = ()
        estimate = table.header_estimate
        try:
            if new_image is not None:
                new_shape = self._image_shape(new_image)
                encoded = new_shape.encode_values(batch.new_values[i])  # type: ignore[arg-type]
                values = (encoded[0],)
                estimate += encoded[1]
            if old_image is not None:
                old_shape = self._image_shape(old_image)
                encoded = old_shape.encode_values(batch.old_values[i])  # type: ignore[arg-type]
                values += (encoded[0],)
                estimate += encoded[1]
        except _VALUE_ERRORS:
            return None
        layout_key = table.layout_key_of((new_shape, old_shape)) or table.layout_key(new_shape, old_shape)
        return _new_row(PreparedRow, (batch.commit_ts[i], partition, layout_key, values, estimate))

    def _image_shape(self, image: ImageShape) -> TableShape:
        shape = self._by_image.get(image)
        if shape is None:
            shape = self._by_image.remember(image, self._shapes.shape_of_image(image))
        return shape

    def _stream(self, items: Iterable[PreparedRow | Event]) -> Iterator[Payload]:
        pending: list[PreparedRow] = []
        estimate = 0
        limit = self.max_message_bytes
        batch = self.max_batch_size
        for event in items:
            if event.__class__ is PreparedRow or isinstance(event, RowChangedEvent):
                row = event if event.__class__ is PreparedRow else self.prepare(event)  # type: ignore[arg-type]
                pending.append(row)  # type: ignore[arg-type]
                estimate += row.estimate
                while pending and (estimate > limit or len(pending) >= batch):
                    payload, pending = self._close(pending)
                    estimate = sum([r.estimate for r in pending]) if pending else 0
                    yield payload
            elif isinstance(event, DDLEvent):
                while pending:
                    payload, pending = self._close(pending)
                    yield payload
                estimate = 0
                yield self._single(ddl_message(*_ddl_fields(event)), f"DDL at commit ts {event.commit_ts}")
            elif isinstance(event, ResolvedEvent):
                while pending:
                    payload, pending = self._close(pending)
                    yield payload
                estimate = 0
                _check_u64(event.ts, "resolved ts")
                yield self._single(resolved_message(event.ts), f"resolved ts {event.ts}")
            else:
                raise EncodeError(f"craft cannot encode {type(event).__name__} {event!r}")
        while pending:
            payload, pending = self._close(pending)
            yield payload

    def _fits(self, value: bytes) -> bool:
        return len(value) + MESSAGE_OVERHEAD <= self.max_message_bytes

    def _single(self, value: bytes, what: str) -> Payload:
        if not self._fits(value):
            raise MessageTooLargeError(
                f"{what} encodes to {len(value)} bytes; with {MESSAGE_OVERHEAD} bytes of record overhead"
                f" that passes max-message-bytes={self.max_message_bytes}"
            )
        return Payload(None, value, 1)

    def _close(self, rows: list[PreparedRow]) -> tuple[Payload, list[PreparedRow]]:
        """One message of the longest prefix of ``rows`` that fits; the rest is left over."""
        end = len(rows)
        value = rows_message(rows, self._layouts)
        while not self._fits(value):
            if end == 1:
                r = rows[0]
                raise MessageTooLargeError(
                    f"a row of {r.schema}.{r.table} at commit ts {r.commit_ts} encodes to {len(value)} bytes;"
                    f" with {MESSAGE_OVERHEAD} bytes of record overhead that passes"
                    f" max-message-bytes={self.max_message_bytes}"
                )
            end -= 1
            value = rows_message(rows[:end], self._layouts)
        return Payload(None, value, end), rows[end:]

    # -- one row -------------------------------------------------------------------------

    def prepare(self, row: RowChangedEvent) -> PreparedRow:
        """Encode a row's values and estimate its size as the reference does."""
        commit_ts = row.commit_ts
        if commit_ts.__class__ is not int or commit_ts < 0 or commit_ts > U64_MAX:
            _check_u64(commit_ts, "commit ts")
        partition = NONE_ID if row.table_id is None else row.table_id
        if partition < I64_MIN or partition > I64_MAX:
            raise EncodeError(f"table id {partition} of {row.schema}.{row.table} is outside the signed 64-bit range")
        table = self._table_of((row.schema, row.table)) or self._new_table(row)
        new = row.columns
        old = row.pre_columns
        if old is not None and new is None and self.delete_only_handle_key_columns:
            old = tuple(c for c in old if c.is_handle_key)
            if not old:
                raise EncodeError(
                    f"delete of {row.schema}.{row.table}@{commit_ts}: the table has no handle-key column, so"
                    " delete-only-output-handle-key-columns=true would send an empty row image"
                )
        new_shape = old_shape = None
        values: tuple[bytes, ...] = ()
        estimate = table.header_estimate
        if new:
            new_shape, encoded = self._image(new, row, table)
            values = (encoded[0],)
            estimate += encoded[1]
        if old:
            old_shape, encoded = self._image(old, row, table)
            values += (encoded[0],)
            estimate += encoded[1]
        layout_key = table.layout_key_of((new_shape, old_shape)) or table.layout_key(new_shape, old_shape)
        return _new_row(PreparedRow, (commit_ts, partition, layout_key, values, estimate))

    def _image(
        self, columns: Sequence[Column], row: RowChangedEvent, table: _TableState
    ) -> tuple[TableShape, tuple[bytes, int]]:
        """One image's shape and encoded group. The table's last shape with as many columns is
        tried first (the hot path); a mismatch, a new table or a bad value leaves it to _group."""
        shape = table.shapes.get(len(columns), _UNSEEN)
        try:
            encoded = shape.encode_group(columns)
        except _VALUE_ERRORS:
            encoded = None
        if encoded is None:
            return self._group(columns, row, table)
        return shape, encoded

    def _new_table(self, row: RowChangedEvent) -> _TableState:
        return self._tables.remember((row.schema, row.table), _TableState(row.schema, row.table))

    def _group(
        self, columns: Sequence[Column], row: RowChangedEvent, table: _TableState
    ) -> tuple[TableShape, tuple[bytes, int]]:
        """The group's shape and (values as a nullable bytes chunk, size estimate), the slow way.

        The table's last shape with this many columns is tried again (its generated
        encoder checks the columns' names, types and flags exactly and returns None
        when they differ), then the shape of the columns' whole signature. A bad
        value raises EncodeError naming its column."""
        n = len(columns)
        shape = table.shapes.get(n)
        try:
            if shape is not None:
                encoded = shape.encode_group(columns)
                if encoded is not None:
                    return shape, encoded
        except _VALUE_ERRORS:
            raise _bad_value(shape, columns, row) from None
        shape = table.shapes[n] = self._shapes.shape_of(columns)
        try:
            encoded = shape.encode_group(columns)
        except _VALUE_ERRORS:
            raise _bad_value(shape, columns, row) from None
        assert encoded is not None  # the shape was made from these columns
        return shape, encoded


class _Unseen:
    """Stands in for the shape of a column count a table has not had yet: nothing matches it."""

    @staticmethod
    def encode_group(columns: Sequence[Column]) -> None:
        return None


_UNSEEN = _Unseen()

#: PreparedRow(...) without the NamedTuple's keyword-taking __new__: one row is built per event,
#: and the plain tuple constructor takes half the time.
_new_row = tuple.__new__

#: What encoding a bad value raises (EncodeError, from the primitives, is a ValueError).
_VALUE_ERRORS = (TypeError, ValueError, OverflowError, AttributeError)


class _TableState:
    """What the encoder remembers per table: its header estimate, its last shape by
    column count, and its layout keys by group shapes (one object each, see LayoutKey)."""

    __slots__ = ("schema", "table", "header_estimate", "shapes", "layout_keys", "layout_key_of")

    def __init__(self, schema: str, table: str) -> None:
        self.schema = schema
        self.table = table
        self.header_estimate = HEADER_ESTIMATE + len(schema.encode()) + len(table.encode())
        self.shapes: dict[int, TableShape] = {}
        self.layout_keys: BoundedCache[tuple[Optional[TableShape], Optional[TableShape]], LayoutKey] = (
            BoundedCache(_MAX_LAYOUT_KEYS)
        )
        self.layout_key_of = self.layout_keys.get  # bound, as CraftEncoder._table_of is

    def layout_key(self, new: Optional[TableShape], old: Optional[TableShape]) -> LayoutKey:
        """Make and remember the layout key of this table's rows with these group shapes; bounded."""
        groups = tuple((kind, shape) for kind, shape in ((_NEW, new), (_OLD, old)) if shape is not None)
        return self.layout_keys.remember((new, old), LayoutKey(self.schema, self.table, groups))


def _bad_value(shape: TableShape, columns: Sequence[Column], row: RowChangedEvent) -> EncodeError:
    """Find the column whose value broke encoding and say what is wrong with it."""
    for kind, encode, column in zip(shape.kinds, shape.encoders, columns):
        if column.value is None:
            continue
        try:
            encode(column.value)
        except _VALUE_ERRORS as exc:
            detail = explain_bad_value(kind, column.value)
            if str(exc) not in detail:  # the encoder's own words, when they add to the explanation
                detail += f" ({exc})"
            return EncodeError(
                f"column {column.name!r} ({getattr(column.type, 'name', column.type)}) of"
                f" {row.schema}.{row.table} at commit ts {row.commit_ts}: {detail}"
            )
    return EncodeError(f"a value of {row.schema}.{row.table} at commit ts {row.commit_ts} cannot be encoded")


def _check_u64(n: int, what: str) -> None:
    if not isinstance(n, int) or n < 0 or n > U64_MAX:
        raise EncodeError(f"{what} {n!r} is outside 0..2^64-1")


def _ddl_fields(event: DDLEvent) -> tuple[int, str, str, int, str]:
    _check_u64(event.commit_ts, "DDL commit ts")
    return event.commit_ts, event.schema, event.table, int(event.ddl_type), event.query

