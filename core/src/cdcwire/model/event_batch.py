"""Many events as columns: the columnar twin of the :mod:`cdcwire.model.events` model.

A pipeline that holds events as Arrow record batches (the Spark stages) pays most
of its time building ``Column`` objects that an encoder reads once and drops. An
:class:`EventBatch` gives an encoder the same events without them: per event its
kind, commit ts, names and DDL fields in plain lists, and each row image as an
:class:`ImageShape` (the columns' names, types, flags and type texts, shared by
every row of a table schema) plus a list of values. An encoder keys its per-table
work on the shape, which is interned (one object per distinct shape in a process),
so that lookup is an identity hash.

The ``Event`` path stays the reference semantics: ``batch.event(i)`` is the event
row ``i`` stands for, and an encoder without the capability
(:class:`cdcwire.contract.codec.BatchEncoder`) is simply given ``batch.events()``.
:func:`cdcwire.testing.columnar_conformance` checks that an encoder with it writes
the same bytes both ways.

Pure Python on purpose: plugins need no Arrow to implement the capability; the
Spark side builds batches from Arrow (:mod:`cdcwire.spark.rows.arrow_batches`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional, Sequence

from ..foundation.bounded_cache import BoundedCache
from .events import Columns, DDLEvent, Event, ResolvedEvent, RowChangedEvent, Value, build_column
from ..values.type_codes import ColumnFlag, ColumnType, DDLType

#: Row kinds of an EventBatch; the Event classes' ``kind`` for rows, "ddl" and "resolved".
INSERT, UPDATE, DELETE, DDL, RESOLVED = "insert", "update", "delete", "ddl", "resolved"


@dataclass(frozen=True, slots=True, eq=False)
class ImageShape:
    """The columns of a row image without their values. Interned (:meth:`of`): equal shapes
    are the same object, so a codec's cache keyed on a shape hashes by identity."""

    names: tuple[str, ...]
    types: tuple[ColumnType, ...]
    flags: tuple[ColumnFlag, ...]
    mysql_types: tuple[Optional[str], ...]

    @staticmethod
    def of(
        names: Sequence[str],
        types: Sequence[ColumnType],
        flags: Sequence[ColumnFlag],
        mysql_types: Sequence[Optional[str]],
    ) -> ImageShape:
        """The one shape of these columns (``types`` and ``flags`` as the enums)."""
        key = (tuple(names), tuple(types), tuple(flags), tuple(mysql_types))
        shape = _SHAPES.get(key)
        if shape is None:
            shape = _SHAPES.remember(key, ImageShape(*key))
        return shape

    @staticmethod
    def of_columns(columns: Columns) -> ImageShape:
        return ImageShape.of(
            [c.name for c in columns], [c.type for c in columns], [c.flags for c in columns],
            [c.mysql_type for c in columns],
        )

    def __len__(self) -> int:
        return len(self.names)

    def columns(self, values: Sequence[Value]) -> Columns:
        """The image with these values, as Column objects (the Event path)."""
        return tuple(map(build_column, self.names, self.types, self.flags, values, self.mysql_types))


#: Shapes by content. Bounded like every cache: once cleared, a shape seen again is a new
#: object, which only costs the codecs one rebuild of what they keyed on the old one.
_SHAPES: BoundedCache[tuple, ImageShape] = BoundedCache()


@dataclass(slots=True)
class EventBatch:
    """Events in order, one entry per event in each list.

    ``kinds``: insert | update | delete | ddl | resolved. ``commit_ts``: a resolved event's
    ts too. Rows have ``schemas``, ``tables``, ``table_ids`` and their images: ``new_*``
    for insert and update, ``old_*`` for update and delete (shape and values None where
    the kind has no such image). DDL events have ``schemas``, ``tables``, ``ddl_types``
    and ``queries``. Every event is valid (the builder checked it): a batch never holds a
    row the Event model would refuse.

    ``key_only`` holds the positions of rows marked ``handle_key_only`` (rare: a row that
    arrived with its handle key only). A columnar encoder sends those through its Event
    path (``batch.event(i)`` carries the mark); reading them, a columnar decoder may
    hand the message to its Event path instead.
    """

    kinds: list[str]
    commit_ts: list[int]
    schemas: list[Optional[str]]
    tables: list[Optional[str]]
    table_ids: list[Optional[int]]
    new_shapes: list[Optional[ImageShape]]
    new_values: list[Optional[list[Value]]]
    old_shapes: list[Optional[ImageShape]]
    old_values: list[Optional[list[Value]]]
    ddl_types: list[Optional[DDLType]]
    queries: list[Optional[str]]
    key_only: set[int] = field(default_factory=set)

    def __len__(self) -> int:
        return len(self.kinds)

    def event(self, i: int) -> Event:
        """The event row ``i`` stands for."""
        kind = self.kinds[i]
        if kind == RESOLVED:
            return ResolvedEvent(self.commit_ts[i])
        if kind == DDL:
            return DDLEvent(
                self.commit_ts[i], self.schemas[i] or "", self.tables[i] or "", self.queries[i] or "",
                self.ddl_types[i],  # type: ignore[arg-type]
            )
        new_shape, old_shape = self.new_shapes[i], self.old_shapes[i]
        return RowChangedEvent(
            self.commit_ts[i],
            self.schemas[i],  # type: ignore[arg-type]
            self.tables[i],  # type: ignore[arg-type]
            None if new_shape is None else new_shape.columns(self.new_values[i]),  # type: ignore[arg-type]
            None if old_shape is None else old_shape.columns(self.old_values[i]),  # type: ignore[arg-type]
            self.table_ids[i],
            i in self.key_only,
        )

    def events(self) -> Iterator[Event]:
        return map(self.event, range(len(self.kinds)))

    @classmethod
    def empty(cls) -> EventBatch:
        return cls([], [], [], [], [], [], [], [], [], [], [])

    def append_row(
        self,
        kind: str,
        commit_ts: int,
        schema: str,
        table: str,
        new: Optional[tuple[ImageShape, list[Value]]],
        old: Optional[tuple[ImageShape, list[Value]]],
        table_id: Optional[int] = None,
        key_only: bool = False,
    ) -> None:
        """Add a row change at the end: each image as (shape, values), or None (a decoder's path)."""
        if key_only:
            self.key_only.add(len(self.kinds))
        self._add(kind, commit_ts, schema, table, table_id, None, None)
        self.new_shapes.append(None if new is None else new[0])
        self.new_values.append(None if new is None else new[1])
        self.old_shapes.append(None if old is None else old[0])
        self.old_values.append(None if old is None else old[1])

    def append(self, event: Event) -> None:
        """Add one event at the end (for tests and for building a batch from events)."""
        if isinstance(event, RowChangedEvent):
            new, old = event.columns, event.pre_columns
            if event.handle_key_only:
                self.key_only.add(len(self.kinds))
            self._add(event.kind, event.commit_ts, event.schema, event.table, event.table_id, None, None)
            self.new_shapes.append(None if new is None else ImageShape.of_columns(new))
            self.new_values.append(None if new is None else [c.value for c in new])
            self.old_shapes.append(None if old is None else ImageShape.of_columns(old))
            self.old_values.append(None if old is None else [c.value for c in old])
            return
        if isinstance(event, DDLEvent):
            self._add(DDL, event.commit_ts, event.schema, event.table, None, event.ddl_type, event.query)
        elif isinstance(event, ResolvedEvent):
            self._add(RESOLVED, event.ts, None, None, None, None, None)
        else:
            raise TypeError(f"not a cdcwire event: {type(event).__name__}")
        self.new_shapes.append(None)
        self.new_values.append(None)
        self.old_shapes.append(None)
        self.old_values.append(None)

    def _add(self, kind: str, ts: int, schema: Optional[str], table: Optional[str], table_id: Optional[int],
             ddl_type: Optional[DDLType], query: Optional[str]) -> None:
        self.kinds.append(kind)
        self.commit_ts.append(ts)
        self.schemas.append(schema)
        self.tables.append(table)
        self.table_ids.append(table_id)
        self.ddl_types.append(ddl_type)
        self.queries.append(query)

    @classmethod
    def of_events(cls, events: Iterable[Event]) -> EventBatch:
        batch = cls.empty()
        for event in events:
            batch.append(event)
        return batch

