"""Hypothesis strategies: table schemas with every column type, and events on them.

Values are canonical (see :mod:`cdcwire.model.event_json`): ints within their type's
range, float32 for FLOAT, bytes for binary columns, text for DECIMAL, dates,
times and JSON. Every column carries its MySQL type text, so codecs that need
precision, scale or enum elements (avro, canal-json) get them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable, Optional

from hypothesis import strategies as st

from ..values.type_codes import ColumnFlag as F
from ..values.type_codes import ColumnType as T
from ..values.type_codes import DDLType
from ..values.column_kinds import COLUMN_KINDS as DECLARED_KINDS
from ..model.events import Column, DDLEvent, ResolvedEvent, RowChangedEvent

U64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class ColumnKind:
    """One column type as a table declares it (:data:`cdcwire.values.column_kinds.COLUMN_KINDS`),
    with a strategy for its values."""

    label: str
    type: T
    flags: F
    mysql_type: str
    values: st.SearchStrategy


def _float32s() -> st.SearchStrategy:
    return st.floats(width=32, allow_nan=False, allow_infinity=False).map(
        lambda f: struct.unpack("<f", struct.pack("<f", f))[0]
    )


_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_BYTES = st.binary(max_size=40)


def _decimal(precision: int, scale: int) -> st.SearchStrategy:
    whole = precision - scale

    def fmt(sign: bool, i: int, frac: int) -> str:
        text = f"{i}.{frac:0{scale}d}" if scale else str(i)
        return ("-" + text) if sign and (i or frac) else text

    return st.builds(fmt, st.booleans(), st.integers(0, 10**whole - 1), st.integers(0, 10**scale - 1))


_DATES = st.dates().map(lambda d: d.isoformat())
# isoformat, not strftime: glibc's %Y does not pad years below 1000 to four digits
_DATETIMES = st.datetimes().map(lambda d: d.isoformat(" ", "seconds"))
_TIMESTAMPS = st.datetimes(
    min_value=__import__("datetime").datetime(1970, 1, 2), max_value=__import__("datetime").datetime(2038, 1, 18)
).map(lambda d: d.isoformat(" ", "seconds"))
_TIMES = st.builds(
    lambda neg, h, m, s: f"{'-' if neg and (h or m or s) else ''}{h:02d}:{m:02d}:{s:02d}",
    st.booleans(), st.integers(0, 838), st.integers(0, 59), st.integers(0, 59),
)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**9), 10**9) | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=6,
).map(lambda v: __import__("json").dumps(v, ensure_ascii=False, sort_keys=True))

#: A value strategy for every label of :data:`cdcwire.values.column_kinds.COLUMN_KINDS`.
_VALUES: dict[str, st.SearchStrategy] = {
    "tinyint": st.integers(-128, 127),
    "tinyint_unsigned": st.integers(0, 255),
    "smallint": st.integers(-(1 << 15), (1 << 15) - 1),
    "smallint_unsigned": st.integers(0, (1 << 16) - 1),
    "mediumint": st.integers(-(1 << 23), (1 << 23) - 1),
    "mediumint_unsigned": st.integers(0, (1 << 24) - 1),
    "int": st.integers(-(1 << 31), (1 << 31) - 1),
    "int_unsigned": st.integers(0, (1 << 32) - 1),
    "bigint": st.integers(-(1 << 63), (1 << 63) - 1),
    "bigint_unsigned": st.integers(0, U64),
    "float": _float32s(),
    "double": st.floats(allow_nan=False, allow_infinity=False),
    "decimal": _decimal(10, 4),
    "decimal_int": _decimal(20, 0),
    "date": _DATES,
    "datetime": _DATETIMES,
    "timestamp": _TIMESTAMPS,
    "time": _TIMES,
    "year": st.integers(1901, 2155),
    "varchar": _TEXT,
    "varbinary": _BYTES,
    "char": _TEXT,
    "binary": _BYTES,
    "tinytext": _TEXT,
    "tinyblob": _BYTES,
    "text": _TEXT,
    "blob": _BYTES,
    "mediumtext": _TEXT,
    "mediumblob": _BYTES,
    "longtext": _TEXT,
    "longblob": _BYTES,
    "json": _JSON,
    "enum": st.integers(1, 3),
    "set": st.integers(0, 7),
    "bit": st.integers(0, (1 << 12) - 1),
    "bit64": st.integers(0, U64),
}

#: Every column type the protocols carry, signed and unsigned, text and binary.
COLUMN_KINDS: tuple[ColumnKind, ...] = tuple(
    ColumnKind(k.label, k.type, k.flags, k.mysql_type, _VALUES[k.label]) for k in DECLARED_KINDS
)

KINDS_BY_LABEL = {k.label: k for k in COLUMN_KINDS}

#: The primary key every generated table has: a handle-key INT.
KEY_FLAGS = F.HANDLE_KEY | F.PRIMARY_KEY


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A generated table: a name and its columns (the first one is the handle key)."""

    schema: str
    table: str
    kinds: tuple[ColumnKind, ...]
    nullable: tuple[bool, ...]

    def flags(self, i: int) -> F:
        f = self.kinds[i].flags
        return f | F.NULLABLE if self.nullable[i] else f

    def column_names(self) -> list[str]:
        return ["id"] + [f"c_{k.label}" for k in self.kinds]


_IDENT = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)


def tables(
    kinds: tuple[ColumnKind, ...] = COLUMN_KINDS, min_columns: int = 1, max_columns: int = 8
) -> st.SearchStrategy[TableSpec]:
    """Tables with a handle-key ``id`` and a few columns drawn from ``kinds``."""
    return st.builds(
        lambda schema, table, picked, nulls: TableSpec(schema, table, tuple(picked), tuple(nulls[: len(picked)])),
        _IDENT,
        _IDENT,
        st.lists(st.sampled_from(kinds), min_size=min_columns, max_size=max_columns, unique_by=lambda k: k.label),
        st.lists(st.booleans(), min_size=max_columns, max_size=max_columns),
    )


def all_types_table(schema: str = "test", table: str = "all_types", nullable: bool = True) -> TableSpec:
    """One table holding a column of every kind."""
    return TableSpec(schema, table, COLUMN_KINDS, (nullable,) * len(COLUMN_KINDS))


@st.composite
def row_images(draw: Callable, spec: TableSpec, key: Optional[int] = None) -> tuple[Column, ...]:
    """One row image of ``spec``: the key column and a value for every other column."""
    key_value = draw(st.integers(-(1 << 31), (1 << 31) - 1)) if key is None else key
    cols = [Column("id", T.INT, KEY_FLAGS, key_value, "int(11)")]
    for i, kind in enumerate(spec.kinds):
        value = draw(kind.values)
        if spec.nullable[i] and draw(st.integers(0, 4)) == 0:
            value = None
        cols.append(Column(f"c_{kind.label}", kind.type, spec.flags(i), value, kind.mysql_type))
    return tuple(cols)


_TS = st.integers(1, (1 << 63) - 1)


@st.composite
def row_events(
    draw: Callable, spec: Optional[TableSpec] = None, kinds: tuple[str, ...] = ("insert", "update", "delete")
) -> RowChangedEvent:
    """An insert, update (same key) or delete on ``spec`` (drawn if not given)."""
    spec = spec or draw(tables())
    kind = draw(st.sampled_from(kinds))
    ts = draw(_TS)
    new = draw(row_images(spec))
    if kind == "insert":
        return RowChangedEvent(ts, spec.schema, spec.table, new, None)
    if kind == "delete":
        return RowChangedEvent(ts, spec.schema, spec.table, None, new)
    old = draw(row_images(spec, key=new[0].value))
    return RowChangedEvent(ts, spec.schema, spec.table, new, old)


ddl_events = st.builds(
    DDLEvent, _TS, _IDENT, _IDENT, _TEXT.map(lambda q: "ALTER TABLE t COMMENT " + repr(q)), st.sampled_from(list(DDLType))
)
resolved_events = st.builds(ResolvedEvent, _TS)


def events(spec: Optional[TableSpec] = None) -> st.SearchStrategy:
    """Any event: rows (on ``spec`` or a drawn table), DDL or resolved."""
    return st.one_of(row_events(spec), ddl_events, resolved_events)


@st.composite
def event_batches(draw: Callable, max_size: int = 20) -> list:
    """A list of mixed events over one or two tables, as one partition might carry."""
    specs = draw(st.lists(tables(max_columns=5), min_size=1, max_size=2))
    return draw(
        st.lists(
            st.one_of(*(row_events(s) for s in specs), ddl_events, resolved_events), min_size=1, max_size=max_size
        )
    )
