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

from cdcwire.plugin_api import BoundedCache

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
from .table_shape import TableShape

_VERSION_BYTES = uvarint(VERSION)
_ROW_TYPE = uvarint(EVENT_ROW)
#: Most term layouts (one per set of tables a message holds) a TermLayouts keeps.
_MAX_LAYOUTS = 1024


class LayoutKey:
    """What a row's term ids and group prefixes depend on: its schema, its table and
    the (kind byte, shape) of each of its groups.

    The encoder keeps one per table and group shapes, so keys compare (and hash) by
    identity, which is cheap; two equal keys that are different objects (after a
    cache reset) only take the mixed-layout path, which writes the same bytes.
    ``sole`` remembers the layout of messages whose rows all have this key.
    """

    __slots__ = ("schema", "table", "groups", "sole")

    def __init__(self, schema: str, table: str, groups: tuple[tuple[bytes, TableShape], ...]) -> None:
        self.schema = schema
        self.table = table
        self.groups = groups
        self.sole: Optional[SoleLayout] = None

    def __repr__(self) -> str:
        return f"LayoutKey({self.schema!r}, {self.table!r}, {len(self.groups)} group(s))"


class PreparedRow(NamedTuple):
    """A row event with its values encoded and its size estimated (the reference's estimate).

    ``values`` holds each column group's nullable bytes chunk; the rest of a group
    (names as term ids) waits for the message's term dictionary. A NamedTuple: one
    is built per row, and that is cheapest (the encoder even skips the keyword-taking
    constructor and builds it with ``tuple.__new__``).
    """

    commit_ts: int
    partition: int
    layout_key: LayoutKey
    values: tuple[bytes, ...]
    estimate: int

    @property
    def schema(self) -> str:
        return self.layout_key.schema

    @property
    def table(self) -> str:
        return self.layout_key.table


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
    prefix_sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TermLayout:
    """The term dictionary of messages whose rows have the same layout keys in the
    same first-seen order, and each row layout that follows from it."""

    dictionary: bytes
    rows: dict[LayoutKey, RowLayout]


@dataclass(frozen=True, slots=True)
class SoleLayout:
    """The layout of messages whose rows all have one layout key (the common case:
    one table, one shape), with the header's term id bytes ready."""

    dictionary: bytes
    row: RowLayout
    schema_id: bytes  # varint of the schema term id: the first of its delta chunk
    table_id: bytes
    ids_of_one_row: bytes  # both delta chunks of a one-row message


def sole_layout(key: LayoutKey) -> SoleLayout:
    """The key's SoleLayout, made on first use and kept on the key."""
    sole = key.sole
    if sole is None:
        layout = _new_layout((key,))
        row = layout.rows[key]
        schema_id, table_id = varint(row.schema_id), varint(row.table_id)
        sole = key.sole = SoleLayout(layout.dictionary, row, schema_id, table_id, schema_id + table_id)
    return sole


class TermLayouts:
    """TermLayouts by the distinct layout keys of a message in first-seen order; bounded."""

    __slots__ = ("_layouts",)

    def __init__(self) -> None:
        self._layouts: BoundedCache[tuple[LayoutKey, ...], TermLayout] = BoundedCache(_MAX_LAYOUTS)

    def layout(self, rows: Sequence[PreparedRow]) -> TermLayout:
        if len(rows) == 1:
            keys: tuple[LayoutKey, ...] = (rows[0].layout_key,)
        else:
            keys = tuple(dict.fromkeys([r.layout_key for r in rows]))
        layout = self._layouts.get(keys)
        if layout is None:
            layout = self._layouts.remember(keys, _new_layout(keys))
        return layout


def _new_layout(keys: Sequence[LayoutKey]) -> TermLayout:
    """Term ids in first-seen order: every schema, then every table, then column names."""
    ids: dict[str, int] = {}
    for key in keys:
        _term(ids, key.schema)
    for key in keys:
        _term(ids, key.table)
    rows = {}
    for key in keys:
        prefixes = []
        for kind_byte, shape in key.groups:
            names = delta_varint_chunk([ids.setdefault(n, len(ids)) for n in shape.names])
            prefixes.append(b"".join([kind_byte, shape.count_bytes, names, shape.types_and_flags]))
        rows[key] = RowLayout(
            ids.get(key.schema, NONE_ID), ids.get(key.table, NONE_ID), tuple(prefixes), tuple(map(len, prefixes))
        )
    return TermLayout(_dictionary(list(ids)), rows)


_TS_BYTES: BoundedCache[int, bytes] = BoundedCache(limit=4096)


def ts_uvarint(ts: int) -> bytes:
    """uvarint of a commit ts, remembered: a TSO takes 9 bytes, and a transaction's rows share one."""
    data = _TS_BYTES.get(ts)
    if data is None:
        data = _TS_BYTES.remember(ts, uvarint(ts))
    return data


def rows_message(rows: Sequence[PreparedRow], layouts: Optional[TermLayouts] = None) -> bytes:
    """One message holding the row events in order."""
    key = rows[0].layout_key
    n = len(rows)
    if n == 1 or all([r.layout_key is key for r in rows]):
        sole = key.sole or sole_layout(key)
        if n == 1:
            row = rows[0]
            p = row.partition
            headers = b"".join(
                [
                    _TS_BYTES.get(row.commit_ts) or ts_uvarint(row.commit_ts),
                    _ROW_TYPE,
                    SMALL_UVARINT[(p << 1) ^ (p >> 63)] if -64 <= p < 64 else varint(p),
                    sole.ids_of_one_row,
                ]
            )
        else:  # the term id chunks: a first id and zero deltas
            zeros = bytes(n - 1)
            headers = b"".join(
                [
                    delta_uvarint_chunk([r.commit_ts for r in rows]),
                    _ROW_TYPE * n,
                    delta_varint_chunk([r.partition for r in rows]),
                    sole.schema_id,
                    zeros,
                    sole.table_id,
                    zeros,
                ]
            )
        return _message(headers, rows, (sole.row,) * n, sole.dictionary)
    layout = (layouts or TermLayouts()).layout(rows)
    layouts_of = layout.rows
    row_layouts = [layouts_of[r.layout_key] for r in rows]
    headers = b"".join(
        [
            delta_uvarint_chunk([r.commit_ts for r in rows]),
            _ROW_TYPE * n,
            delta_varint_chunk([r.partition for r in rows]),
            delta_varint_chunk([r.schema_id for r in row_layouts]),
            delta_varint_chunk([r.table_id for r in row_layouts]),
        ]
    )
    return _message(headers, rows, row_layouts, layout.dictionary)


def _message(
    headers: bytes, rows: Sequence[PreparedRow], row_layouts: Sequence[RowLayout], dictionary: bytes
) -> bytes:
    """version | headers | bodies | dictionary | size tables | trailer; a row's body is
    its group prefixes and values.

    The size tables are gathered as the uvarints they are written as (counts, and
    zigzagged deltas), then written in one go. A row has one or two
    groups (new, old), written without a loop: builtin calls such as zip() cost more
    here than the plain operations they save."""
    parts: list[bytes] = [_VERSION_BYTES, headers]
    h = len(headers)
    d = len(dictionary) - h
    numbers = [2, h << 1, (d << 1) ^ (d >> 63), len(rows)]  # the meta table, the body table's count
    group_tables: list[int] = []
    last_body = 0
    i = 0
    for row in rows:
        values = row.values
        row_layout = row_layouts[i]
        i += 1
        groups = len(values)
        if groups == 2:
            new, old = values
            new_prefix, old_prefix = row_layout.group_prefixes
            new_size, old_size = row_layout.prefix_sizes
            parts += (new_prefix, new, old_prefix, old)
            new_size += len(new)
            old_size += len(old)
            d = old_size - new_size
            group_tables += (2, new_size << 1, (d << 1) ^ (d >> 63))
            body = new_size + old_size
        elif groups == 1:
            (group,) = values
            parts += (row_layout.group_prefixes[0], group)
            body = row_layout.prefix_sizes[0] + len(group)
            group_tables += (1, body << 1)
        else:  # no groups: an empty delete
            body = 0
            group_tables.append(0)
        d = body - last_body
        numbers.append((d << 1) ^ (d >> 63))
        last_body = body
    numbers += group_tables
    tables = _uvarints(numbers)
    parts += (dictionary, tables, reversed_uvarint(len(tables)))
    return b"".join(parts)


def _uvarints(numbers: list[int]) -> bytearray:
    """uvarint chunk of non-negative numbers, most of one or two bytes (sizes of bodies and groups)."""
    out = bytearray()
    add = out.append
    for x in numbers:
        if x < 0x80:
            add(x)
        elif x < 0x4000:
            add((x & 0x7F) | 0x80)
            add(x >> 7)
        else:
            out += uvarint(x)
    return out


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

