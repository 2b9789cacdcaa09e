"""Assembles craft messages, byte for byte as REFERENCE.md lays them out.

    uvarint(1) | headers | bodies | term dictionary | size tables | reversed uvarint(len(size tables))

Headers are columnar over the message's events: commit ts (delta uvarint),
event type (uvarint chunk), partition id (delta varint), schema term ids and
table term ids (delta varint, -1 = NULL). Term ids are handed out in first-seen
order: every schema, then every table, then column names as the groups use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Optional, Sequence

from .layout import EVENT_DDL, EVENT_RESOLVED, EVENT_ROW, NONE_ID, VERSION
from .primitives import (
    SMALL_UVARINT,
    delta_uvarint_chunk,
    delta_varint_chunk,
    reversed_uvarint,
    string_chunk,
    uvarint,
    varint,
)

_VERSION_BYTES = uvarint(VERSION)
_ROW_TYPE = uvarint(EVENT_ROW)


#: What the term dictionary depends on in a row: (schema, table, (kind byte, shape) per group).
LayoutKey = tuple


class PreparedRow(NamedTuple):
    """A row event with its values encoded and its size estimated (the reference's estimate).

    ``values`` holds each column group's nullable bytes chunk; the rest of a group
    (names as term ids) waits for the message's term dictionary. A NamedTuple: one
    is built per row, and that is cheapest.
    """

    commit_ts: int
    partition: int
    layout_key: LayoutKey
    values: tuple[bytes, ...]
    estimate: int

    @property
    def schema(self) -> str:
        return self.layout_key[0]

    @property
    def table(self) -> str:
        return self.layout_key[1]


def _size_tables(tables: Sequence[Sequence[int]]) -> bytes:
    """Each table as uvarint(count) + delta varint chunk, then the reversed-uvarint trailer."""
    out = bytearray()
    for table in tables:
        count = len(table)
        out += SMALL_UVARINT[count] if count < 0x80 else uvarint(count)
        last = 0
        for v in table:
            d = v - last
            last = v
            if -64 <= d < 64:
                out.append((d << 1) ^ (d >> 63))
            elif 0 <= d < 0x2000:  # two bytes: zigzag(d) = 2d < 0x4000
                out.append(((d << 1) & 0x7F) | 0x80)
                out.append(d >> 6)
            else:
                out += varint(d)
    out += reversed_uvarint(len(out))
    return bytes(out)


def _dictionary(terms: Sequence[str]) -> bytes:
    """uvarint(count) + string chunk; an empty dictionary takes no bytes at all."""
    if not terms:
        return b""
    return uvarint(len(terms)) + string_chunk([t.encode() for t in terms])


def _term(terms: dict[str, int], text: str) -> int:
    if not text:
        return NONE_ID
    return terms.setdefault(text, len(terms))


@dataclass(frozen=True, slots=True)
class RowLayout:
    """A row's schema and table term ids and the bytes of its groups before the values."""

    schema_id: int
    table_id: int
    group_prefixes: tuple[bytes, ...]


@dataclass(frozen=True, slots=True)
class TermLayout:
    """The term dictionary of messages whose rows have the same layout keys in the
    same first-seen order, and each row layout that follows from it."""

    dictionary: bytes
    rows: dict[LayoutKey, RowLayout]


class TermLayouts:
    """TermLayouts by the distinct layout keys of a message in first-seen order; bounded."""

    __slots__ = ("_layouts",)

    def __init__(self) -> None:
        self._layouts: dict[tuple[LayoutKey, ...], TermLayout] = {}

    def layout(self, rows: Sequence[PreparedRow]) -> TermLayout:
        if len(rows) == 1:
            keys: tuple[LayoutKey, ...] = (rows[0].layout_key,)
        else:
            keys = tuple(dict.fromkeys([r.layout_key for r in rows]))
        layout = self._layouts.get(keys)
        if layout is None:
            if len(self._layouts) >= 1024:
                self._layouts.clear()
            layout = self._layouts[keys] = _new_layout(keys)
        return layout


def _new_layout(keys: Sequence[LayoutKey]) -> TermLayout:
    """Term ids in first-seen order: every schema, then every table, then column names."""
    ids: dict[str, int] = {}
    for key in keys:
        _term(ids, key[0])
    for key in keys:
        _term(ids, key[1])
    rows = {}
    for key in keys:
        prefixes = []
        for kind_byte, shape in key[2:]:
            names = delta_varint_chunk([ids.setdefault(n, len(ids)) for n in shape.names])
            prefixes.append(b"".join([kind_byte, shape.count_bytes, names, shape.types_and_flags]))
        rows[key] = RowLayout(ids.get(key[0], NONE_ID), ids.get(key[1], NONE_ID), tuple(prefixes))
    return TermLayout(_dictionary(list(ids)), rows)


_TS_BYTES: dict[int, bytes] = {}


def ts_uvarint(ts: int) -> bytes:
    """uvarint of a commit ts, remembered: a TSO takes 9 bytes, and a transaction's rows share one."""
    data = _TS_BYTES.get(ts)
    if data is None:
        if len(_TS_BYTES) >= 4096:
            _TS_BYTES.clear()
        data = _TS_BYTES[ts] = uvarint(ts)
    return data


def rows_message(rows: Sequence[PreparedRow], layouts: Optional[TermLayouts] = None) -> bytes:
    """One message holding the row events in order."""
    layout = (layouts or TermLayouts()).layout(rows)
    n = len(rows)
    layouts_of = layout.rows
    if len(layouts_of) == 1:  # one table and shape: the term id chunks are a first id and zero deltas
        (row_layout,) = layouts_of.values()
        row_layouts: Sequence[RowLayout] = (row_layout,) * n
        zeros = bytes(n - 1)
        ids = varint(row_layout.schema_id) + zeros + varint(row_layout.table_id) + zeros
    else:
        row_layouts = [layouts_of[r.layout_key] for r in rows]
        ids = delta_varint_chunk([r.schema_id for r in row_layouts]) + delta_varint_chunk(
            [r.table_id for r in row_layouts]
        )
    if n == 1:
        headers = b"".join([ts_uvarint(rows[0].commit_ts), _ROW_TYPE, varint(rows[0].partition), ids])
    else:
        headers = b"".join(
            [
                delta_uvarint_chunk([r.commit_ts for r in rows]),
                _ROW_TYPE * n,
                delta_varint_chunk([r.partition for r in rows]),
                ids,
            ]
        )
    parts: list[bytes] = [_VERSION_BYTES, headers]
    add = parts.append
    body_sizes: list[int] = []
    group_tables: list[list[int]] = []
    for row, row_layout in zip(rows, row_layouts):
        sizes = []
        for prefix, values in zip(row_layout.group_prefixes, row.values):
            add(prefix)
            add(values)
            sizes.append(len(prefix) + len(values))
        group_tables.append(sizes)
        body_sizes.append(sum(sizes))
    add(layout.dictionary)
    add(_size_tables([[len(headers), len(layout.dictionary)], body_sizes, *group_tables]))
    return b"".join(parts)


def ddl_message(commit_ts: int, schema: str, table: str, ddl_type: int, query: str) -> bytes:
    """A DDL event alone: body = uvarint(ddl type), uvarint(len(query)), query."""
    terms: dict[str, int] = {}
    schema_id = _term(terms, schema)
    table_id = _term(terms, table)
    headers = b"".join(
        [
            ts_uvarint(commit_ts),
            uvarint(EVENT_DDL),
            SMALL_UVARINT[1],  # partition id -1 as a varint
            delta_varint_chunk([schema_id]),
            delta_varint_chunk([table_id]),
        ]
    )
    q = query.encode()
    body = uvarint(int(ddl_type)) + uvarint(len(q)) + q
    dictionary = _dictionary(list(terms))
    tables = _size_tables([[len(headers), len(dictionary)], [len(body)]])
    return b"".join([_VERSION_BYTES, headers, body, dictionary, tables])


def resolved_message(ts: int) -> bytes:
    """A resolved event alone: no partition, schema or table (all -1), an empty body."""
    minus_one = SMALL_UVARINT[1]
    headers = ts_uvarint(ts) + uvarint(EVENT_RESOLVED) + minus_one * 3
    tables = _size_tables([[len(headers), 0], [0]])
    return b"".join([_VERSION_BYTES, headers, tables])

