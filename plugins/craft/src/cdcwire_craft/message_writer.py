"""Assembles craft messages, byte for byte as REFERENCE.md lays them out.

    uvarint(1) | headers | bodies | term dictionary | size tables | reversed uvarint(len(size tables))

Headers are columnar over the message's events: commit ts (delta uvarint),
event type (uvarint chunk), partition id (delta varint), schema term ids and
table term ids (delta varint, -1 = NULL). Term ids are handed out in first-seen
order: every schema, then every table, then column names as the groups use them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .layout import EVENT_DDL, EVENT_RESOLVED, EVENT_ROW, NONE_ID, VERSION
from .primitives import (
    SMALL_UVARINT,
    delta_uvarint_chunk,
    delta_varint_chunk,
    reversed_uvarint,
    string_chunk,
    uvarint,
)
from .table_shape import TableShape

_VERSION_BYTES = uvarint(VERSION)
_ROW_TYPE = uvarint(EVENT_ROW)


@dataclass(frozen=True, slots=True)
class EncodedGroup:
    """A column group whose values are already encoded; names wait for the message's dictionary."""

    kind_byte: bytes
    shape: TableShape
    values: bytes  # nullable bytes chunk: varint lengths, then the bytes


@dataclass(frozen=True, slots=True)
class PreparedRow:
    """A row event with its values encoded and its size estimated (the reference's estimate)."""

    commit_ts: int
    partition: int
    schema: str
    table: str
    groups: tuple[EncodedGroup, ...]
    estimate: int


def _size_tables(tables: Sequence[Sequence[int]]) -> bytes:
    """Each table as uvarint(count) + delta varint chunk, then the reversed-uvarint trailer."""
    data = b"".join([uvarint(len(t)) + delta_varint_chunk(t) for t in tables])
    return data + reversed_uvarint(len(data))


def _dictionary(terms: Sequence[str]) -> bytes:
    """uvarint(count) + string chunk; an empty dictionary takes no bytes at all."""
    if not terms:
        return b""
    return uvarint(len(terms)) + string_chunk([t.encode() for t in terms])


def _term(terms: dict[str, int], text: str) -> int:
    if not text:
        return NONE_ID
    return terms.setdefault(text, len(terms))


def rows_message(rows: Sequence[PreparedRow]) -> bytes:
    """One message holding the row events in order."""
    terms: dict[str, int] = {}
    schema_ids = [_term(terms, r.schema) for r in rows]
    table_ids = [_term(terms, r.table) for r in rows]
    headers = b"".join(
        [
            delta_uvarint_chunk([r.commit_ts for r in rows]),
            _ROW_TYPE * len(rows),
            delta_varint_chunk([r.partition for r in rows]),
            delta_varint_chunk(schema_ids),
            delta_varint_chunk(table_ids),
        ]
    )
    names_of: dict[int, bytes] = {}
    parts: list[bytes] = [_VERSION_BYTES, headers]
    body_sizes: list[int] = []
    group_tables: list[list[int]] = []
    setdefault = terms.setdefault
    for row in rows:
        sizes = []
        for g in row.groups:
            shape = g.shape
            names = names_of.get(id(shape))
            if names is None:
                names = names_of[id(shape)] = delta_varint_chunk(
                    [setdefault(n, len(terms)) for n in shape.names]
                )
            group = b"".join([g.kind_byte, shape.count_bytes, names, shape.types_and_flags, g.values])
            parts.append(group)
            sizes.append(len(group))
        group_tables.append(sizes)
        body_sizes.append(sum(sizes))
    dictionary = _dictionary(list(terms))
    parts.append(dictionary)
    parts.append(_size_tables([[len(headers), len(dictionary)], body_sizes, *group_tables]))
    return b"".join(parts)


def ddl_message(commit_ts: int, schema: str, table: str, ddl_type: int, query: str) -> bytes:
    """A DDL event alone: body = uvarint(ddl type), uvarint(len(query)), query."""
    terms: dict[str, int] = {}
    schema_id = _term(terms, schema)
    table_id = _term(terms, table)
    headers = b"".join(
        [
            uvarint(commit_ts),
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
    headers = uvarint(ts) + uvarint(EVENT_RESOLVED) + minus_one * 3
    tables = _size_tables([[len(headers), 0], [0]])
    return b"".join([_VERSION_BYTES, headers, tables])

