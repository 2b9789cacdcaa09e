"""The craft decoder: the exact inverse of :mod:`cdcwire_craft.message_writer`.

It reads the size tables from the end first, checks that headers, bodies and the
term dictionary add up to exactly the bytes before them, and only then reads
each part inside its own bounds. Every fault is a DecodeError with the byte
offset in the value; no count or length is trusted before it is checked
against the bytes that are really there.

Most of a message repeats from one message to the next: term dictionaries are kept
by their bytes, and so are the names, types and flags of column groups
(:mod:`cdcwire_craft.group_shapes`). A shape seen often reads its values with
generated code (:mod:`cdcwire_craft.group_decode`) that gives up on anything it does
not expect; the checking reader (:func:`_checked_values`) then reads the group again
and reports the fault. Messages of one event (DDL, resolved, single rows) skip the
running sums of the headers.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any, NamedTuple, Optional

from cdcwire.plugin_api import (
    BoundedCache,
    Column,
    DDLEvent,
    DDLType,
    DecodeError,
    Event,
    Message,
    ResolvedEvent,
    build_row_event,
)

from .column_values import BadValue
from .group_decode import FAST_PATH_ERRORS
from .group_shapes import GroupShape, ShapeRegistry, TermDictionary
from .layout import EVENT_DDL, EVENT_RESOLVED, EVENT_ROW, GROUP_NEW, GROUP_OLD, NONE_ID, VERSION
from .primitives import Reader, all_uvarints, read_reversed_uvarint, unzigzag_sums, uvarint_run, uvarint_sums

_PART = "value"
_MAX_CACHED = 4096

#: A group the generated code decoded: its shape, zigzag value lengths, first value byte, columns.
FastGroup = tuple[GroupShape, Any, int, tuple[Column, ...]]


class CraftDecoder:
    """Decodes craft messages; keeps the term dictionaries and group shapes it has seen."""

    def __init__(self) -> None:
        self._dictionaries: BoundedCache[bytes, TermDictionary] = BoundedCache(_MAX_CACHED)
        self._empty = TermDictionary(())
        self._registry = ShapeRegistry()

    def decode(self, message: Message) -> list[Event]:
        value = message.value
        if value is None:
            raise DecodeError("a craft message needs a value, got none", 0, _PART)
        return self.decode_value(value if type(value) is bytes else bytes(value))

    # -- the message ---------------------------------------------------------------------

    def decode_value(self, data: bytes) -> list[Event]:
        """The events of one message value: size tables first (they say where everything
        is), then the term dictionary and the headers, then each event's body."""
        start, tables_start, tables_end = _frame(data)
        tables = _size_tables(data, tables_start, tables_end)
        body_sizes = tables.bodies
        headers_end = start + tables.header_size
        bodies_end = headers_end + sum(body_sizes)
        if bodies_end + tables.dictionary_size != tables_start:
            raise DecodeError(
                f"headers ({tables.header_size} bytes), bodies ({bodies_end - headers_end}) and term"
                f" dictionary ({tables.dictionary_size}) do not end where the size tables start"
                f" (byte {tables_start})",
                start,
                _PART,
            )
        dictionary = self._dictionary(data, bodies_end, tables_start)
        names = dictionary.names  # term id -1 (NULL) reads as the empty string
        count = len(body_sizes)
        commit_ts, types, partitions, schemas, table_names = _headers(
            data, start, headers_end, count, len(dictionary.terms)
        )
        row_tables = tables.starts
        rows = types.count(EVENT_ROW)
        if len(row_tables) != rows:
            raise DecodeError(
                f"{rows} row event(s) need {2 + rows} size tables, found {2 + len(row_tables)}",
                tables_start,
                _PART,
            )
        events: list[Event] = []
        add = events.append
        pos = headers_end
        row_index = 0
        for i in range(count):
            end = pos + body_sizes[i]
            kind = types[i]
            if kind == EVENT_ROW:
                partition = partitions[i]
                columns, pre_columns = self._row(data, pos, end, tables, row_tables[row_index], dictionary)
                add(
                    build_row_event(
                        commit_ts[i], names[schemas[i]], names[table_names[i]], columns, pre_columns,
                        partition if partition >= 0 else None,
                    )
                )
                row_index += 1
            elif kind == EVENT_DDL:
                add(_ddl(data, pos, end, commit_ts[i], names[schemas[i]], names[table_names[i]]))
            else:  # EVENT_RESOLVED: _headers allows no other type
                if end != pos:
                    raise DecodeError(
                        f"a resolved event has an empty body, found {end - pos} bytes", pos, _PART
                    )
                add(ResolvedEvent(commit_ts[i]))
            pos = end
        return events

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
        return self._dictionaries.remember(raw, TermDictionary(terms))

    # -- one event -----------------------------------------------------------------------

    def _row(
        self, data: bytes, pos: int, end: int, tables: SizeTables, table: int, dictionary: TermDictionary
    ) -> tuple[Optional[tuple[Column, ...]], Optional[tuple[Column, ...]]]:
        """The new and old column groups of a row body; ``table`` is where its group sizes start
        in ``tables.fields`` (uvarint count, then a delta varint chunk)."""
        fields = tables.fields
        sizes = fields[table + 1 : table + 1 + fields[table]]
        body = pos
        columns = pre_columns = None
        like = None  # the new image, for an old one of its shape
        size = 0
        for u in sizes:
            size += (u >> 1) ^ -(u & 1)
            if size < 0:
                number = 2 + tables.starts.index(table)
                raise DecodeError(f"negative size in size table {number}", tables.at, _PART)
            if pos + size > end:
                break  # reported below
            kind, group, like = self._group(data, pos, pos + size, dictionary, like)
            if kind == GROUP_NEW and columns is None:
                columns = group
            elif kind == GROUP_OLD and pre_columns is None:
                pre_columns = group
            else:
                raise DecodeError(f"a row holds a second column group of kind {kind}", pos, _PART)
            pos += size
        if pos != end:
            total = sum(_running_sizes(sizes)) if sizes else 0
            raise DecodeError(
                f"column groups of {total} bytes do not fill the row body of {end - body}", body, _PART
            )
        if columns is None and pre_columns is None:
            pre_columns = ()  # the encoder leaves empty groups out: a row of no columns
        return columns, pre_columns

    def _group(
        self, data: bytes, start: int, end: int, dictionary: TermDictionary, like: Optional[FastGroup]
    ) -> tuple[int, tuple[Column, ...], Optional[FastGroup]]:
        """kind byte, uvarint count, names | types | flags (a GroupShape), value lengths, values.

        A hot shape reads the values with its generated decoder (given ``like``, the row's
        other group when it has the same shape, it reuses that group's Columns of equal
        bytes); when that gives up, or the shape is cold, the checking reader decodes them
        or says what is wrong. Returns the kind, the columns, and what a next group may
        reuse (None after the checking reader)."""
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
        known = dictionary.find(data, pos, end, n)
        if known is not None:
            pos += len(known[0])
            shape = known[1]
        else:
            shape, pos = self._new_shape(data, pos, end, n, dictionary)
        fast = shape.fast
        if fast is None:
            shape.note_cold_group()
            return kind, _checked_values(shape, data, pos, end), None
        zs: Any = data[pos : pos + n]
        values_at = pos + n
        if not zs.isascii():  # a length of two or more varint bytes (a value of 64 bytes or more)
            run = uvarint_run(data, pos, end, n)
            if run is None:  # truncated or past 64 bits
                return kind, _checked_values(shape, data, pos, end), None
            zs, values_at = run
        try:
            if like is not None and like[0] is shape:
                columns = shape.fast_like(  # type: ignore[misc]  # compiled together with fast
                    data, zs, values_at, end, like[1], like[2], like[3]
                )
            else:
                columns = fast(data, zs, values_at, end)
        except FAST_PATH_ERRORS:
            columns = None
        if columns is None:  # bad bytes: the checking reader says what and where
            return kind, _checked_values(shape, data, pos, end), None
        return kind, columns, (shape, zs, values_at, columns)

    def _new_shape(
        self, data: bytes, start: int, end: int, n: int, dictionary: TermDictionary
    ) -> tuple[GroupShape, int]:
        """Read and check the names, types and flags of a group not seen with this dictionary."""
        r = Reader(data, start, end, _PART)
        name_ids = r.delta_varint_chunk(n)
        types_at = r.pos
        type_codes = r.uvarint_chunk(n)
        flag_bits = r.uvarint_chunk(n)
        terms = dictionary.terms
        if name_ids and (min(name_ids) < 0 or max(name_ids) >= len(terms)):
            bad = next(i for i in name_ids if i < 0 or i >= len(terms))
            raise DecodeError(
                f"column name term id {bad} is outside the dictionary of {len(terms)} term(s)", start, _PART
            )
        metas = []
        for type_code, flags in zip(type_codes, flag_bits):
            meta = self._registry.meta(type_code, flags)
            if meta is None:
                raise DecodeError(f"unknown column type code {type_code}", types_at, _PART)
            metas.append(meta)
        shape = self._registry.shape(tuple([terms[i] for i in name_ids]), metas)
        dictionary.remember(n, data[start : r.pos], shape)
        return shape, r.pos


_VERSION_BYTE = bytes((VERSION,))


def _frame(data: bytes) -> tuple[int, int, int]:
    """Where the headers start, and where the size tables start and end (before the trailer)."""
    start = 1 if data[:1] == _VERSION_BYTE else _version_end(data)
    tables_len = data[-1]
    if tables_len < 0x80 and len(data) > start:  # the common one-byte trailer
        tables_end = len(data) - 1
    else:
        tables_len, trailer = read_reversed_uvarint(data, start, _PART)
        tables_end = len(data) - trailer
    tables_start = tables_end - tables_len
    if tables_start < start:
        raise DecodeError(
            f"size tables of {tables_len} bytes would start before the headers", tables_end, _PART
        )
    return start, tables_start, tables_end


def _version_end(data: bytes) -> int:
    """Where the version uvarint of a message that does not start with byte 1 ends, if it is 1."""
    head = Reader(data, 0, len(data), _PART)
    version = head.uvarint()
    if version != VERSION:
        raise DecodeError(
            f"unsupported craft version {version} (this decoder reads version {VERSION})", 0, _PART
        )
    return head.pos


class SizeTables(NamedTuple):
    """The size tables of a message: the meta and body tables read, the rows' group tables
    left as varints (``fields``) for the row that reads them, from ``starts``."""

    header_size: int
    dictionary_size: int
    bodies: list[int]
    fields: list[int]
    starts: list[int]  # where each row's table starts in fields
    at: int  # the byte offset of the tables, for errors


_new_tables = tuple.__new__  # a NamedTuple's keyword-taking __new__ costs more than reading the tables


def _size_tables(data: bytes, start: int, end: int) -> SizeTables:
    """Each table is uvarint(count) + delta varint chunk; all of it is varints. The meta
    table [header size, dictionary size] and the body size table come first."""
    fields = all_uvarints(data, start, end, _PART)
    total = len(fields)
    if total and fields[0] >= total:
        raise DecodeError(
            f"size table 0 claims {fields[0]} entries; {total - 1} varint(s) are left", start, _PART
        )
    if total < 4 or fields[0] != 2:
        raise DecodeError(
            "the size tables must start with the meta table [header size, dictionary size]"
            " and the body size table",
            start,
            _PART,
        )
    u = fields[1]
    header_size = (u >> 1) ^ -(u & 1)
    u = fields[2]
    dictionary_size = header_size + ((u >> 1) ^ -(u & 1))
    count = fields[3]
    i = 4 + count
    if i > total:
        raise DecodeError(
            f"size table 1 claims {count} entries; {total - 4} varint(s) are left", start, _PART
        )
    bodies = _running_sizes(fields[4:i])
    starts = []
    while i < total:
        starts.append(i)
        i += 1 + fields[i]
    if i > total:
        at = starts[-1]
        raise DecodeError(
            f"size table {len(starts) + 1} claims {fields[at]} entries; {total - at - 1} varint(s) are left",
            start,
            _PART,
        )
    if header_size < 0 or dictionary_size < 0 or (bodies and min(bodies) < 0):
        number = 0 if min(header_size, dictionary_size) < 0 else 1
        raise DecodeError(f"negative size in size table {number}", start, _PART)
    if not bodies:
        raise DecodeError("the message holds no events", start, _PART)
    return _new_tables(SizeTables, (header_size, dictionary_size, bodies, fields, starts, start))


def _running_sizes(deltas: list[int]) -> list[int]:
    """The values of a delta varint chunk, from its uvarints (sizes: no 64-bit wrap needed)."""
    if not deltas:
        return []
    if len(deltas) == 1:
        u = deltas[0]
        return [(u >> 1) ^ -(u & 1)]
    return list(accumulate([(u >> 1) ^ -(u & 1) for u in deltas]))


def _headers(
    data: bytes, start: int, end: int, count: int, n_terms: int
) -> tuple[list[int], list[int], list[int], list[int], list[int]]:
    """Commit ts, event types, partition ids, schema and table term ids of ``count`` events,
    checked: known event types, term ids in the dictionary or -1."""
    fields = all_uvarints(data, start, end, _PART)
    if len(fields) != 5 * count:
        raise DecodeError(
            f"headers hold {len(fields)} varints; {count} event(s) need {5 * count}", start, _PART
        )
    if count == 1:  # DDL, resolved, single rows: no running sums
        ts, kind, partition, schema, table = fields
        schema = (schema >> 1) ^ -(schema & 1)
        table = (table >> 1) ^ -(table & 1)
        headers = [ts], [kind], [(partition >> 1) ^ -(partition & 1)], [schema], [table]
        if kind in _EVENT_TYPES and NONE_ID <= schema < n_terms and NONE_ID <= table < n_terms:
            return headers
    else:
        headers = (
            uvarint_sums(fields[:count]),
            fields[count : 2 * count],
            unzigzag_sums(fields[2 * count : 3 * count]),
            unzigzag_sums(fields[3 * count : 4 * count]),
            unzigzag_sums(fields[4 * count :]),
        )
    _check_headers(data, start, headers[1], headers[3], headers[4], n_terms)
    return headers


def _checked_values(shape: GroupShape, data: bytes, pos: int, end: int) -> tuple[Column, ...]:
    """The value lengths and values of a group, every step checked; says what is wrong and where."""
    r = Reader(data, pos, end, _PART)
    lengths = r.varint_chunk(len(shape.kinds))
    lengths_at = pos
    pos = r.pos
    names = shape.names
    values: list[Any] = []
    add = values.append
    try:
        for decode, length in zip(shape.decoders, lengths):
            if length < 0:
                if length != -1:
                    raise DecodeError(
                        f"value length {length} of column {names[len(values)]!r} is below -1",
                        lengths_at,
                        _PART,
                    )
                add(None)
                continue
            after = pos + length
            if after > end:
                raise DecodeError(
                    f"value of column {names[len(values)]!r} ({length} bytes) runs past the end of its group",
                    pos, _PART,
                )
            add(decode(data[pos:after]))
            pos = after
    except BadValue as exc:
        raise DecodeError(f"value of column {names[len(values)]!r}: {exc}", pos, _PART) from None
    except UnicodeDecodeError as exc:
        raise DecodeError(
            f"value of column {names[len(values)]!r} is not valid UTF-8", pos + exc.start, _PART
        ) from None
    if pos != end:
        raise DecodeError(f"{end - pos} unexpected byte(s) after the column group", pos, _PART)
    return shape.columns(values)


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
