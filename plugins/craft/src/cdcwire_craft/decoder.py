"""The craft decoder: the exact inverse of :mod:`cdcwire_craft.message_writer`.

It reads the size tables from the end first, checks that headers, bodies and the
term dictionary add up to exactly the bytes before them, and only then reads
each part inside its own bounds. Every fault is a DecodeError with the byte
offset in the value; no count or length is trusted before it is checked
against the bytes that are really there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from cdcwire.codes import ColumnFlag, ColumnType, DDLType
from cdcwire.errors import DecodeError
from cdcwire.events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_column
from cdcwire.message import Message

from .column_values import DECODERS, BadValue, value_kind
from .layout import EVENT_DDL, EVENT_RESOLVED, EVENT_ROW, GROUP_NEW, GROUP_OLD, NONE_ID, VERSION
from .primitives import Reader, all_uvarints, read_reversed_uvarint, unzigzag_sums, uvarint_sums

_PART = "value"
_MAX_CACHED = 4096
_MAX_SHAPES_PER_COUNT = 32

#: (type code, flags) -> (ColumnType, ColumnFlag, value decoder); None for unknown type codes.
ColumnMeta = tuple[ColumnType, ColumnFlag, Callable[[bytes], Any]]


def _column_meta(type_code: int, flags: int) -> Optional[ColumnMeta]:
    try:
        ctype = ColumnType(type_code)
    except ValueError:
        return None
    return ctype, ColumnFlag(flags), DECODERS[value_kind(ctype, flags)]


@dataclass(frozen=True, slots=True, eq=False)
class GroupShape:
    """The names, types and flags part of a column group, as bytes and as decoded columns.

    Groups of one table carry the same bytes there for as long as the term
    dictionary is the same, so a decoder recognises them with one ``startswith``.
    """

    prefix: bytes
    names: tuple[str, ...]
    types: tuple[ColumnType, ...]
    flags: tuple[ColumnFlag, ...]
    decoders: tuple[Callable[[bytes], Any], ...]


@dataclass(slots=True, eq=False)
class TermDictionary:
    """A message's terms, and the group shapes seen with them (by column count)."""

    terms: tuple[str, ...]
    shapes: dict[int, list[GroupShape]] = field(default_factory=dict)


class CraftDecoder:
    """Decodes craft messages; keeps term dictionaries and column metadata it has seen."""

    def __init__(self) -> None:
        self._dictionaries: dict[bytes, TermDictionary] = {}
        self._empty = TermDictionary(())
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
        dictionary = self._dictionary(data, bodies_end, tables_start)
        terms = dictionary.terms

        count = len(body_sizes)
        fields = all_uvarints(data, start, headers_end, _PART)
        if len(fields) != 5 * count:
            raise DecodeError(
                f"headers hold {len(fields)} varints; {count} event(s) need {5 * count}", start, _PART
            )
        commit_ts = uvarint_sums(fields[:count])
        types = fields[count : 2 * count]
        partitions = unzigzag_sums(fields[2 * count : 3 * count])
        schemas = unzigzag_sums(fields[3 * count : 4 * count])
        table_names = unzigzag_sums(fields[4 * count :])
        _check_headers(data, start, types, schemas, table_names, len(terms))
        names = (*terms, "")  # term id -1 (NULL) reads as the empty string

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
                partition = partitions[i]
                events.append(
                    self._row(
                        data, pos, end, tables[row_index], dictionary, commit_ts[i],
                        names[schemas[i]], names[table_names[i]], partition if partition >= 0 else None,
                    )
                )
                row_index += 1
            elif kind == EVENT_DDL:
                events.append(_ddl(data, pos, end, commit_ts[i], names[schemas[i]], names[table_names[i]]))
            else:  # EVENT_RESOLVED: _check_headers allows no other type
                if end != pos:
                    raise DecodeError(f"a resolved event has an empty body, found {end - pos} bytes", pos, _PART)
                events.append(ResolvedEvent(commit_ts[i]))
            pos = end
        return events

    def _size_tables(self, data: bytes, start: int, end: int) -> list[list[int]]:
        """Each table is uvarint(count) + delta varint chunk; all of it is varints."""
        fields = all_uvarints(data, start, end, _PART)
        tables = []
        i = 0
        total = len(fields)
        while i < total:
            n = fields[i]
            i += 1
            if n > total - i:
                raise DecodeError(
                    f"size table {len(tables)} claims {n} entries; {total - i} varint(s) are left", start, _PART
                )
            table = []
            size = 0
            for u in fields[i : i + n]:
                size += (u >> 1) ^ -(u & 1)
                if size < 0:
                    raise DecodeError(f"negative size in size table {len(tables)}", start, _PART)
                table.append(size)
            i += n
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

    def _dictionary(self, data: bytes, start: int, end: int) -> TermDictionary:
        if start == end:
            return self._empty
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
        entry = self._dictionaries[raw] = TermDictionary(terms)
        return entry

    # -- one event -----------------------------------------------------------------------

    def _row(
        self, data: bytes, pos: int, end: int, group_sizes: list[int], dictionary: TermDictionary,
        commit_ts: int, schema: str, table: str, table_id: Optional[int],
    ) -> RowChangedEvent:
        if sum(group_sizes) != end - pos:
            raise DecodeError(
                f"column groups of {sum(group_sizes)} bytes do not fill the row body of {end - pos}", pos, _PART
            )
        columns = pre_columns = None
        for size in group_sizes:
            kind, group = self._group(data, pos, pos + size, dictionary)
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

    def _group(
        self, data: bytes, start: int, end: int, dictionary: TermDictionary
    ) -> tuple[int, tuple[Column, ...]]:
        """kind byte, uvarint count, names | types | flags (a GroupShape), value lengths, values.

        The common case (a one-byte count, a known shape, one-byte lengths) reads the bytes
        directly; anything else goes through a Reader, which checks every step."""
        if start >= end:
            raise DecodeError("truncated: expected a column group", start, _PART)
        kind = data[start]
        if kind != GROUP_NEW and kind != GROUP_OLD:
            raise DecodeError(f"column group kind {kind} is neither 1 (new) nor 2 (old)", start, _PART)
        pos = start + 1
        n = data[pos] if pos < end else 0x80
        if n < 0x80 and 4 * n <= end - pos - 1:  # each column takes at least 4 bytes
            pos += 1
        else:
            r = Reader(data, pos, end, _PART)
            n = r.count("column", width=4)
            pos = r.pos
        for shape in dictionary.shapes.get(n, ()):
            if data.startswith(shape.prefix, pos, end):
                pos += len(shape.prefix)
                break
        else:
            r = Reader(data, pos, end, _PART)
            shape = self._shape(r, n, dictionary)
            pos = r.pos
        lengths_at = pos
        run = data[pos : pos + n]
        if n and pos + n <= end and max(run) < 0x80:  # every length fits one byte: the rule
            lengths = [(b >> 1) ^ -(b & 1) for b in run]
            pos += n
        else:
            r = Reader(data, pos, end, _PART)
            lengths = r.varint_chunk(n)
            pos = r.pos
        values: list[Any] = []
        add = values.append
        try:
            for decode, length in zip(shape.decoders, lengths):
                if length < 0:
                    if length != -1:
                        raise DecodeError(
                            f"value length {length} of column {shape.names[len(values)]!r} is below -1",
                            lengths_at, _PART,
                        )
                    add(None)
                    continue
                after = pos + length
                if after > end:
                    raise DecodeError(
                        f"value of column {shape.names[len(values)]!r} ({length} bytes) runs past the end"
                        " of its group",
                        pos, _PART,
                    )
                add(decode(data[pos:after]))
                pos = after
        except BadValue as exc:
            raise DecodeError(f"value of column {shape.names[len(values)]!r}: {exc}", pos, _PART) from None
        except UnicodeDecodeError as exc:
            raise DecodeError(
                f"value of column {shape.names[len(values)]!r} is not valid UTF-8", pos + exc.start, _PART
            ) from None
        if pos != end:
            raise DecodeError(f"{end - pos} unexpected byte(s) after the column group", pos, _PART)
        return kind, tuple(map(build_column, shape.names, shape.types, shape.flags, values))

    def _shape(self, r: Reader, n: int, dictionary: TermDictionary) -> GroupShape:
        """Read and check the names, types and flags of a group not seen before."""
        start = r.pos
        name_ids = r.delta_varint_chunk(n)
        types_at = r.pos
        type_codes = r.uvarint_chunk(n)
        flag_bits = r.uvarint_chunk(n)
        terms = dictionary.terms
        columns = []
        for name_id, type_code, flags in zip(name_ids, type_codes, flag_bits):
            if name_id < 0 or name_id >= len(terms):
                raise DecodeError(
                    f"column name term id {name_id} is outside the dictionary of {len(terms)} term(s)",
                    start, _PART,
                )
            key = (type_code, flags)
            meta = self._metas.get(key, False)
            if meta is False:
                if len(self._metas) >= _MAX_CACHED:
                    self._metas.clear()
                meta = self._metas[key] = _column_meta(type_code, flags)
            if meta is None:
                raise DecodeError(f"unknown column type code {type_code}", types_at, _PART)
            columns.append((terms[name_id], *meta))
        names, types, flags, decoders = zip(*columns) if columns else ((), (), (), ())
        shape = GroupShape(r.data[start : r.pos], names, types, flags, decoders)
        known = dictionary.shapes.setdefault(n, [])
        if len(known) >= _MAX_SHAPES_PER_COUNT:
            del known[0]
        known.append(shape)
        return shape


def _header_offsets(data: bytes, start: int, count: int) -> tuple[int, int, int]:
    """Where the type, schema and table chunks of well-formed headers start (for error offsets)."""
    r = Reader(data, start, len(data), _PART)
    r.delta_uvarint_chunk(count)
    types_at = r.pos
    r.uvarint_chunk(count)
    r.delta_varint_chunk(count)
    schemas_at = r.pos
    r.delta_varint_chunk(count)
    return types_at, schemas_at, r.pos


_EVENT_TYPES = frozenset({EVENT_ROW, EVENT_DDL, EVENT_RESOLVED})


def _check_headers(
    data: bytes, start: int, types: list[int], schemas: list[int], tables: list[int], n_terms: int
) -> None:
    """Event types are known and term ids are in the dictionary (or -1); else say where."""
    if not _EVENT_TYPES.issuperset(types):
        types_at = _header_offsets(data, start, len(types))[0]
        i, kind = next((i, t) for i, t in enumerate(types) if t not in _EVENT_TYPES)
        raise DecodeError(f"unknown event type {kind} (event {i})", types_at, _PART)
    for what, ids, at_index in (("schema", schemas, 1), ("table", tables, 2)):
        if ids and (min(ids) < NONE_ID or max(ids) >= n_terms):
            bad = next(t for t in ids if t < NONE_ID or t >= n_terms)
            raise DecodeError(
                f"{what} term id {bad} is outside the dictionary of {n_terms} term(s)",
                _header_offsets(data, start, len(ids))[at_index],
                _PART,
            )


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
