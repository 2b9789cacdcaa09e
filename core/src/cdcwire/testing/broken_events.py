"""Hypothesis strategies for events that break one rule of :mod:`cdcwire.model.validation` each.

A codec's own encoder may still write such an event (the core never gives it one:
:mod:`cdcwire.api.codec_calls` checks first), so they make the messages a decoder must
refuse or read back as valid events: values past their type's range, NaN, lone
surrogates, NUL in names, duplicate column names, flags past 2^63, negative commit
ts, bytes in a text column, month 13, DECIMAL "abc", unknown DDL types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from hypothesis import strategies as st

from ..values.type_codes import ColumnFlag as F
from ..values.type_codes import ColumnType as T
from ..values.type_codes import DDLType
from ..model.events import Column, DDLEvent, Event, RowChangedEvent, build_row_event
from .strategies import row_events, tables


@dataclass(frozen=True, slots=True)
class Broken:
    """An event and the rule it breaks (words of the InvalidEventError's message)."""

    event: Event
    rule: str


def _with_column(column: Column) -> Callable[[RowChangedEvent], RowChangedEvent]:
    def add(row: RowChangedEvent) -> RowChangedEvent:
        new = None if row.columns is None else (*row.columns, column)
        old = None if row.pre_columns is None else (*row.pre_columns, column)
        return build_row_event(row.commit_ts, row.schema, row.table, new, old, row.table_id)

    return add


def _twice(row: RowChangedEvent) -> RowChangedEvent:
    image = row.image
    twice = (*image, image[0])
    if row.columns is None:
        return build_row_event(row.commit_ts, row.schema, row.table, None, twice, row.table_id)
    return build_row_event(row.commit_ts, row.schema, row.table, twice, row.pre_columns, row.table_id)


def _emptied(row: RowChangedEvent) -> RowChangedEvent:
    if row.columns is None:
        return build_row_event(row.commit_ts, row.schema, row.table, None, (), row.table_id)
    return build_row_event(row.commit_ts, row.schema, row.table, (), row.pre_columns, row.table_id)


def _renamed(schema: str = "", table: str = "") -> Callable[[RowChangedEvent], RowChangedEvent]:
    def rename(row: RowChangedEvent) -> RowChangedEvent:
        return build_row_event(
            row.commit_ts, row.schema + schema, row.table + table, row.columns, row.pre_columns, row.table_id
        )

    return rename


def _at_ts(ts: int) -> Callable[[RowChangedEvent], RowChangedEvent]:
    def move(row: RowChangedEvent) -> RowChangedEvent:
        return build_row_event(ts, row.schema, row.table, row.columns, row.pre_columns, row.table_id)

    return move


def _bad(type_: T, flags: F, value: Any, mysql_type: str) -> Callable[[RowChangedEvent], RowChangedEvent]:
    return _with_column(Column("bad", type_, flags, value, mysql_type))


#: Each way to break a row event, with words of the rule it breaks.
ROW_BREAKS: tuple[tuple[Callable[[RowChangedEvent], RowChangedEvent], str], ...] = (
    (_bad(T.TINYINT, F(0), 300, "tinyint(4)"), "300 is outside -128..127"),
    (_bad(T.TINYINT, F(0), 99999, "tinyint(4)"), "99999 is outside -128..127"),
    (_bad(T.INT, F.UNSIGNED, -1, "int(10) unsigned"), "the range of INT UNSIGNED"),
    (_bad(T.SMALLINT, F.UNSIGNED, 1 << 16, "smallint(5) unsigned"), "the range of SMALLINT UNSIGNED"),
    (_bad(T.INT, F(1 << 63), 1, "int(11)"), "0..2^63-1"),
    (_bad(T.DOUBLE, F(0), float("nan"), "double"), "must be finite"),
    (_bad(T.DOUBLE, F(0), float("inf"), "double"), "must be finite"),
    (_bad(T.FLOAT, F(0), float("-inf"), "float"), "must be finite"),
    (_bad(T.VARCHAR, F(0), "a\ud800b", "varchar(16)"), "lone surrogate"),
    (_bad(T.VARCHAR, F(0), b"\xff\xfe", "varchar(16)"), "must be str, got bytes"),
    (_bad(T.DATE, F.BINARY, "2024-13-45", "date"), "is not a DATE"),
    (_bad(T.DATETIME, F.BINARY, "2024-01-01 25:00:00", "datetime"), "is not a DATETIME"),
    (_bad(T.DECIMAL, F(0), "abc", "decimal(10,2)"), "is not a decimal number"),
    (_twice, "appears twice"),
    (_emptied, "empty image"),
    (_renamed(table="\ud800"), "lone surrogate"),
    (_renamed(schema="\x00"), "NUL character"),
    (_at_ts(-1), "0..2^64-1"),
)


@st.composite
def broken_row_events(draw: Callable) -> Broken:
    """A valid row event (of a drawn table) with one rule broken."""
    row = draw(row_events(draw(tables(max_columns=4))))
    breaks, rule = draw(st.sampled_from(ROW_BREAKS))
    return Broken(breaks(row), rule)


#: DDL events breaking a rule: unknown DDL type, no query, a lone surrogate in the query.
BROKEN_DDL: tuple[Broken, ...] = (
    Broken(DDLEvent(5, "s", "t", "ALTER TABLE t ADD c INT", 999), "must be a DDLType"),  # type: ignore
    Broken(DDLEvent(5, "s", "t", None, DDLType.ADD_COLUMN), "query must be a string"),  # type: ignore
    Broken(DDLEvent(5, "s", "t", "ALTER TABLE t COMMENT '\ud800'", DDLType.ADD_COLUMN), "lone surrogate"),
)


def broken_events() -> st.SearchStrategy[Broken]:
    """Row events with one rule broken, and now and then a broken DDL event."""
    return st.one_of(broken_row_events(), st.sampled_from(BROKEN_DDL))
