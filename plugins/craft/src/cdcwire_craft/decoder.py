"""The craft decoder: the exact inverse of :mod:`cdcwire_craft.message_writer`.

It reads the size tables from the end first, checks that headers, bodies and the
term dictionary add up to exactly the bytes before them, and only then reads
each part inside its own bounds. Every fault is a DecodeError with the byte
offset in the value; no count or length is trusted before it is checked
against the bytes that are really there.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from cdcwire.codes import ColumnFlag, ColumnType, DDLType
from cdcwire.errors import DecodeError
from cdcwire.events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent
from cdcwire.message import Message

from .column_values import DECODERS, BadValue, value_kind
from .layout import EVENT_DDL, EVENT_RESOLVED, EVENT_ROW, GROUP_NEW, GROUP_OLD, NONE_ID, VERSION
from .primitives import Reader, read_reversed_uvarint

_PART = "value"
_MAX_CACHED = 4096

#: (type code, flags) -> (ColumnType, ColumnFlag, value decoder); None for unknown type codes.
ColumnMeta = tuple[ColumnType, ColumnFlag, Callable[[bytes], Any]]


def _column_meta(type_code: int, flags: int) -> Optional[ColumnMeta]:
    try:
        ctype = ColumnType(type_code)
    except ValueError:
        return None
    return ctype, ColumnFlag(flags), DECODERS[value_kind(ctype, flags)]


class CraftDecoder:
    """Decodes craft messages; keeps term dictionaries and column metadata it has seen."""

    def __init__(self) -> None:
        self._dictionaries: dict[bytes, tuple[str, ...]] = {}
        self._metas: dict[tuple[int, int], Optional[ColumnMeta]] = {}

    def decode(self, message: Message) -> list[Event]:
        value = message.value
        if value is None:
            raise DecodeError("a craft message needs a value, got none", 0, _PART)
        return self.decode_value(value if type(value) is bytes else bytes(value))

    # -- the message ---------------------------------------------------------------------

    def decode_value(self, data: bytes) -> list[Event]:
        head = Reader(data)
        version = head.uvarint()
        if version != VERSION:
            raise DecodeError(f"unsupported craft version {version} (this decoder reads version {VERSION})", 0, _PART)
        start = head.pos
        tables_len, trailer = read_reversed_uvarint(data, start, _PART)
        tables_end = len(data) - trailer
        tables_start = tables_end - tables_len
        if tables_start < start:
            raise DecodeError(
                f"size tables of {tables_len} bytes would start before the headers", tables_end, _PART
            )
        tables = self._size_tables(data, tables_start, tables_end)

        header_size, dict_size = tables[0]
        body_sizes = tables[1]
        headers_end = start + header_size
        bodies_end = headers_end + sum(body_sizes)
        if bodies_end + dict_size != tables_start:
            raise DecodeError(
                f"headers ({header_size} bytes), bodies ({bodies_end - headers_end}) and term dictionary"
                f" ({dict_size}) do not end where the size tables start (byte {tables_start})",
                start,
                _PART,
            )
        terms = self._terms(data, bodies_end, tables_start)

        count = len(body_sizes)
        r = Reader(data, start, headers_end, _PART)
        commit_ts = r.delta_uvarint_chunk(count)
        types_at = r.pos
        types = r.uvarint_chunk(count)
        partitions = r.delta_varint_chunk(count)
        schemas_at = r.pos
        schemas = r.delta_varint_chunk(count)
        tables_at = r.pos
        table_names = r.delta_varint_chunk(count)
        r.expect_end("headers")

        rows = types.count(EVENT_ROW)
        if len(tables) != 2 + rows:
            raise DecodeError(
                f"{rows} row event(s) need {2 + rows} size tables, found {len(tables)}", tables_start, _PART
            )
        events: list[Event] = []
        pos = headers_end
        row_index = 2
        for i in range(count):
            end = pos + body_sizes[i]
            kind = types[i]
            if kind == EVENT_ROW:
                schema = _term(terms, schemas[i], schemas_at, "schema")
                table = _term(terms, table_names[i], tables_at, "table")
                partition = partitions[i]
                events.append(
                    self._row(
                        data, pos, end, tables[row_index], terms, commit_ts[i], schema, table,
                        partition if partition >= 0 else None,
                    )
                )
                row_index += 1
            elif kind == EVENT_DDL:
                schema = _term(terms, schemas[i], schemas_at, "schema")
                table = _term(terms, table_names[i], tables_at, "table")
                events.append(_ddl(data, pos, end, commit_ts[i], schema, table))
            elif kind == EVENT_RESOLVED:
                if end != pos:
                    raise DecodeError(f"a resolved event has an empty body, found {end - pos} bytes", pos, _PART)
                events.append(ResolvedEvent(commit_ts[i]))
            else:
                raise DecodeError(f"unknown event type {kind} (event {i})", types_at, _PART)
            pos = end
        return events

    def _size_tables(self, data: bytes, start: int, end: int) -> list[list[int]]:
        r = Reader(data, start, end, _PART)
        tables = []
        while not r.at_end():
            n = r.count("size table")
            at = r.pos
            table = r.delta_varint_chunk(n)
            if any(size < 0 for size in table):
                raise DecodeError(f"negative size in size table {len(tables)}", at, _PART)
            tables.append(table)
        if len(tables) < 2 or len(tables[0]) != 2:
            raise DecodeError(
                "the size tables must start with the meta table [header size, dictionary size]"
                " and the body size table",
                start,
                _PART,
            )
        if not tables[1]:
            raise DecodeError("the message holds no events", start, _PART)
        return tables

    def _terms(self, data: bytes, start: int, end: int) -> tuple[str, ...]:
        if start == end:
            return ()
        raw = data[start:end]
        cached = self._dictionaries.get(raw)
        if cached is not None:
            return cached
        r = Reader(data, start, end, _PART)
        n = r.count("term")
        strings = r.string_chunk(n)
        r.expect_end("term dictionary")
        try:
            terms = tuple(s.decode() for s in strings)
        except UnicodeDecodeError:
            raise DecodeError("a term of the dictionary is not valid UTF-8", start, _PART) from None
        if len(self._dictionaries) >= _MAX_CACHED:
            self._dictionaries.clear()
        self._dictionaries[raw] = terms
        return terms

    # -- one event -----------------------------------------------------------------------

    def _row(
        self, data: bytes, pos: int, end: int, group_sizes: list[int], terms: tuple[str, ...],
        commit_ts: int, schema: str, table: str, table_id: Optional[int],
    ) -> RowChangedEvent:
        if sum(group_sizes) != end - pos:
            raise DecodeError(
                f"column groups of {sum(group_sizes)} bytes do not fill the row body of {end - pos}", pos, _PART
            )
        columns = pre_columns = None
        for size in group_sizes:
            kind, group = self._group(data, pos, pos + size, terms)
            if kind == GROUP_NEW and columns is None:
                columns = group
            elif kind == GROUP_OLD and pre_columns is None:
                pre_columns = group
            else:
                raise DecodeError(f"a row holds a second column group of kind {kind}", pos, _PART)
            pos += size
        if columns is None and pre_columns is None:
            pre_columns = ()  # the encoder leaves empty groups out: a row of no columns
        return RowChangedEvent(commit_ts, schema, table, columns, pre_columns, table_id)

    def _group(self, data: bytes, start: int, end: int, terms: tuple[str, ...]) -> tuple[int, tuple[Column, ...]]:
        r = Reader(data, start, end, _PART)
        kind = r.byte()
        if kind != GROUP_NEW and kind != GROUP_OLD:
            raise DecodeError(f"column group kind {kind} is neither 1 (new) nor 2 (old)", start, _PART)
        n = r.count("column", width=4)
        names_at = r.pos
        name_ids = r.delta_varint_chunk(n)
        types_at = r.pos
        type_codes = r.uvarint_chunk(n)
        flag_bits = r.uvarint_chunk(n)
        raws = r.nullable_bytes_chunk(n)
        r.expect_end("column group")
        n_terms = len(terms)
        metas = self._metas
        out = []
        for i in range(n):
            name_id = name_ids[i]
            if name_id < 0 or name_id >= n_terms:
                raise DecodeError(
                    f"column name term id {name_id} is outside the dictionary of {n_terms} term(s)",
                    names_at, _PART,
                )
            key = (type_codes[i], flag_bits[i])
            meta = metas.get(key, False)
            if meta is False:
                if len(metas) >= _MAX_CACHED:
                    metas.clear()
                meta = metas[key] = _column_meta(*key)
            if meta is None:
                raise DecodeError(f"unknown column type code {key[0]}", types_at, _PART)
            raw = raws[i]
            if raw is None:
                value = None
            else:
                try:
                    value = meta[2](raw)
                except BadValue as exc:
                    raise DecodeError(
                        f"value of column {terms[name_id]!r}: {exc}", _value_offset(raws, i, end), _PART
                    ) from None
            out.append(Column(terms[name_id], meta[0], meta[1], value))
        return kind, tuple(out)


def _term(terms: tuple[str, ...], term_id: int, at: int, what: str) -> str:
    if term_id == NONE_ID:
        return ""
    if 0 <= term_id < len(terms):
        return terms[term_id]
    raise DecodeError(f"{what} term id {term_id} is outside the dictionary of {len(terms)} term(s)", at, _PART)


def _value_offset(raws: list[Optional[bytes]], index: int, end: int) -> int:
    """Where value ``index`` starts: values are packed at the end of their group."""
    after = sum(len(b) for b in raws[index:] if b is not None)
    return end - after


def _ddl(data: bytes, start: int, end: int, commit_ts: int, schema: str, table: str) -> DDLEvent:
    r = Reader(data, start, end, _PART)
    code = r.uvarint()
    try:
        ddl_type = DDLType(code)
    except ValueError:
        raise DecodeError(f"unknown DDL type {code}", start, _PART) from None
    at = r.pos
    query_bytes = r.take(r.uvarint())
    r.expect_end("DDL body")
    try:
        query = query_bytes.decode()
    except UnicodeDecodeError:
        raise DecodeError("the DDL query is not valid UTF-8", at, _PART) from None
    return DDLEvent(commit_ts, schema, table, query, ddl_type)
