"""The change event model: what every codec encodes and every decoder gives back.

Events are immutable and slotted: a pipeline builds millions of them, and a
codec may cache per-table work keyed on their fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

from .table_schema import TableSchema
from ..values.type_codes import ColumnFlag, ColumnType, DDLType
from ..values.value_kinds import holds_bytes

#: A column value: int (signed or unsigned 64-bit), float, str, bytes or None.
#: DECIMAL, date/time and JSON values are their text; ENUM is the 1-based index,
#: SET the bit mask, BIT an unsigned int; binary strings and BLOBs are bytes.
Value = Union[int, float, str, bytes, None]


@dataclass(frozen=True, slots=True)
class Column:
    """One column of a row image.

    ``mysql_type`` is the full MySQL type text (``decimal(10,4)``,
    ``enum('a','b')``, ``int(11) unsigned``) when known: it carries precision,
    scale, elements and length that the type code alone does not.
    """

    name: str
    type: ColumnType
    flags: ColumnFlag = ColumnFlag(0)
    value: Value = None
    mysql_type: Optional[str] = None

    @property
    def is_handle_key(self) -> bool:
        return bool(self.flags & ColumnFlag.HANDLE_KEY)

    @property
    def is_primary_key(self) -> bool:
        return bool(self.flags & ColumnFlag.PRIMARY_KEY)

    @property
    def is_binary(self) -> bool:
        return bool(self.flags & ColumnFlag.BINARY)

    @property
    def is_unsigned(self) -> bool:
        return bool(self.flags & ColumnFlag.UNSIGNED)

    @property
    def is_nullable(self) -> bool:
        return bool(self.flags & ColumnFlag.NULLABLE)

    @property
    def holds_bytes(self) -> bool:
        """True when the canonical value is bytes (BLOB, BINARY, VARBINARY, GEOMETRY): the
        one rule of :func:`cdcwire.values.value_kinds.holds_bytes`."""
        return holds_bytes(self.type, self.flags)


Columns = tuple[Column, ...]


class _ColumnShell:
    """Column's slots without Column's frozen ``__setattr__``: see :func:`build_column`."""

    __slots__ = tuple(Column.__slots__)


_new_shell = object.__new__


def build_column(name: str, type: ColumnType, flags: ColumnFlag, value: Value, mysql_type: Optional[str] = None) -> Column:
    """A Column, built at about a third of the constructor's cost; for hot paths that build
    millions (Arrow batches to events, decoders).

    A frozen dataclass's ``__init__`` writes each field through ``object.__setattr__``,
    which made Column construction most of the cost of turning an Arrow batch into
    events. This fills a shell with the same slots by plain assignment and then makes it
    a Column (``__class__`` assignment between identical slot layouts): the result is an
    ordinary, frozen Column, equal to and hashed like ``Column(...)`` of the same fields.
    """
    shell = _new_shell(_ColumnShell)
    shell.name = name
    shell.type = type
    shell.flags = flags
    shell.value = value
    shell.mysql_type = mysql_type
    shell.__class__ = Column  # type: ignore[assignment]
    return shell  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class RowChangedEvent:
    """A row change. Insert: only ``columns``; delete: only ``pre_columns``; update: both.

    ``table_id`` is the physical table id of a partitioned table's partition
    (open-protocol ``ptn``, craft "partition id"), None for a plain table.

    ``handle_key_only`` marks a row that arrived with its handle-key columns only: the
    sink sent it so because the whole row was over ``max-message-bytes``
    (``large-message-handle-option=handle-key-only``: open-protocol ``"ohk"``, canal-json
    ``_tidb.onlyHandleKey``). Its images are not the row, only the key to look it up by,
    so a consumer that keeps tables must fetch the row, not apply the image.

    ``table_schema`` is the table's schema when the decoder knew it (simple's ``tableSchema``,
    debezium's and canal-json's column types): exact types, defaults, indexes. It is not part of
    the event's equality, hash or repr: the same change is the same event whether or not its
    reader knew the table's DDL. Rows of one table share one TableSchema object.
    """

    commit_ts: int
    schema: str
    table: str
    columns: Optional[Columns] = None
    pre_columns: Optional[Columns] = None
    table_id: Optional[int] = None
    handle_key_only: bool = False
    table_schema: Optional[TableSchema] = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.columns is None and self.pre_columns is None:
            raise ValueError(
                f"row event {self.schema}.{self.table}@{self.commit_ts} has neither columns nor pre_columns"
            )

    @property
    def is_insert(self) -> bool:
        return self.pre_columns is None

    @property
    def is_delete(self) -> bool:
        return self.columns is None

    @property
    def is_update(self) -> bool:
        return self.columns is not None and self.pre_columns is not None

    @property
    def kind(self) -> str:
        """"insert", "update" or "delete"."""
        if self.pre_columns is None:
            return "insert"
        if self.columns is None:
            return "delete"
        return "update"

    @property
    def image(self) -> Columns:
        """The image that identifies the row: new values, or old values for a delete."""
        return self.columns if self.columns is not None else self.pre_columns  # type: ignore[return-value]

    def handle_key_columns(self) -> Columns:
        return tuple(c for c in self.image if c.flags & ColumnFlag.HANDLE_KEY)


class _RowShell:
    """RowChangedEvent's slots without its frozen ``__setattr__``: see :func:`build_row_event`."""

    __slots__ = tuple(RowChangedEvent.__slots__)


def build_row_event(
    commit_ts: int,
    schema: str,
    table: str,
    columns: Optional[Columns],
    pre_columns: Optional[Columns],
    table_id: Optional[int] = None,
    handle_key_only: bool = False,
    table_schema: Optional[TableSchema] = None,
) -> RowChangedEvent:
    """A RowChangedEvent at a fraction of the constructor's cost, the same way as
    :func:`build_column`, with the constructor's one check kept."""
    if columns is None and pre_columns is None:
        raise ValueError(f"row event {schema}.{table}@{commit_ts} has neither columns nor pre_columns")
    shell = _new_shell(_RowShell)
    shell.commit_ts = commit_ts
    shell.schema = schema
    shell.table = table
    shell.columns = columns
    shell.pre_columns = pre_columns
    shell.table_id = table_id
    shell.handle_key_only = handle_key_only
    shell.table_schema = table_schema
    shell.__class__ = RowChangedEvent  # type: ignore[assignment]
    return shell  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class DDLEvent:
    """A schema change, sent after it ran upstream. ``schema``/``table`` may be empty.

    ``table_schema`` is the table after the change and ``pre_table_schema`` before it, when
    the decoder (or whoever built the event) knew them; like a row's, neither is part of the
    event's equality, hash or repr.
    """

    commit_ts: int
    schema: str
    table: str
    query: str
    ddl_type: DDLType
    table_schema: Optional[TableSchema] = field(default=None, compare=False, repr=False)
    pre_table_schema: Optional[TableSchema] = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ResolvedEvent:
    """A checkpoint: every event with commit ts <= ``ts`` has been sent before it."""

    ts: int

    @property
    def commit_ts(self) -> int:
        return self.ts


Event = Union[RowChangedEvent, DDLEvent, ResolvedEvent]

__all__ = [
    "Column",
    "build_column",
    "build_row_event",
    "Columns",
    "ColumnFlag",
    "ColumnType",
    "DDLEvent",
    "DDLType",
    "Event",
    "ResolvedEvent",
    "RowChangedEvent",
    "TableSchema",
    "Value",
]
