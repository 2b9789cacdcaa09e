"""The open-protocol decoder: the exact inverse of the encoder, and strict.

Every problem (wrong version, a length running past the end, keys and values
that do not pair up, invalid UTF-8 or JSON, a missing field, a value of the
wrong type) raises :class:`cdcwire.DecodeError` with the part (``key`` or
``value``) and the byte offset. A declared length is checked against the
bytes present before anything is sliced, so a huge one allocates nothing.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import orjson

from cdcwire.plugin_api import (
    BoundedCache,
    DecompressionFailed,
    ObjectMissing,
    StorageError,
    ColumnFlag,
    ColumnType,
    Columns,
    DDLEvent,
    DDLType,
    DecodeError,
    Event,
    Message,
    ResolvedEvent,
    RowChangedEvent,
    build_column,
    build_row_event,
)

from .column_values import BadValue, ValueReader, canonical_json_type, value_reader
from .framing import LENGTH, VERSION, VERSION_BYTES
from .options import OpenOptions

U64_MAX = (1 << 64) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
_ROW, _DDL, _RESOLVED = 1, 2, 3
_KNOWN_TYPES = {int(t): t for t in ColumnType}
_KNOWN_DDL = {int(t): t for t in DDLType}
_KEY_CACHE_LIMIT = 4096


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)
_raw_decode = _JSON.raw_decode

#: A parsed key: (event type, ts, schema, table, physical table id, "ohk", "ccl")
_Key = tuple[int, int, str, str, Optional[int], bool, Optional[str]]
#: (column type, flags, reader, JSON type needing no reader) for one (t, f, h) triple on the wire
_ColumnSpec = tuple[ColumnType, ColumnFlag, ValueReader, type]


class _Problem(Exception):
    """A semantic error inside one JSON document; the caller adds part and offset."""


class OpenProtocolDecoder:
    """Decodes open-protocol messages into events. Caches parsed keys and column specs."""

    def __init__(self, options: OpenOptions = OpenOptions()) -> None:
        self._keys: BoundedCache[bytes, _Key] = BoundedCache(_KEY_CACHE_LIMIT)
        self._specs: dict[tuple[int, Optional[int], Optional[bool]], _ColumnSpec] = {}
        self._compression = options.large.compression
        self._large = options.large

    def decode(self, message: Message) -> list[Event]:
        key = b"" if message.key is None else bytes(message.key)
        value = b"" if message.value is None else bytes(message.value)
        if len(key) < len(VERSION_BYTES):
            raise DecodeError(f"key is {len(key)} bytes, shorter than the 8-byte protocol version", 0, "key")
        version = LENGTH.unpack_from(key, 0)[0]
        if version != VERSION:
            raise DecodeError(f"unsupported open-protocol version {version} (this decoder reads version 1)", 0, "key")
        events: list[Event] = []
        kpos, vpos = len(VERSION_BYTES), 0
        kend, vend = len(key), len(value)
        while kpos < kend:
            kstart, kpos = _segment(key, kpos, "key")
            if vpos >= vend:
                raise DecodeError(
                    f"value holds {len(events)} event(s) but the key holds more", vpos, "value"
                )
            vstart, vpos = _segment(value, vpos, "value")
            events.append(self._event(key, kstart, kpos, value, vstart, vpos, len(events)))
        if not events:
            raise DecodeError("key holds a version but no event", kpos, "key")
        if vpos != vend:
            raise DecodeError(
                f"value holds more events than the key's {len(events)} ({vend - vpos} bytes left over)", vpos, "value"
            )
        return events

    # -- one event -------------------------------------------------------------------------

    def _event(self, key: bytes, kstart: int, kend: int, value: bytes, vstart: int, vend: int, index: int) -> Event:
        key_json = key[kstart:kend]
        parsed = self._keys.get(key_json)
        if parsed is None:
            try:
                parsed = _parse_key(_load(key_json, kstart, "key"))
            except _Problem as exc:
                raise DecodeError(f"event {index} key: {exc}", kstart, "key") from None
            self._keys.remember(key_json, parsed)
        kind, ts, schema, table, table_id, key_only, location = parsed
        if kind == _RESOLVED:
            if vend != vstart:
                raise DecodeError(f"event {index} is resolved but carries a {vend - vstart}-byte value", vstart, "value")
            return ResolvedEvent(ts)
        if location is not None:
            return self._claim_checked(location, index, vstart)
        data = value[vstart:vend]
        if self._compression.enabled:
            try:
                data = self._compression.decompress(data)
            except DecompressionFailed as exc:
                raise DecodeError(f"event {index} value: {exc}", vstart, "value") from None
        body = _load(data, vstart, "value")
        try:
            if kind == _ROW:
                new, old = self._row_images(body)
                return build_row_event(ts, schema, table, new, old, table_id, key_only)
            return _ddl(body, ts, schema, table)
        except _Problem as exc:
            raise DecodeError(f"event {index} ({schema}.{table} at ts {ts}) value: {exc}", vstart, "value") from None

    def _claim_checked(self, location: str, index: int, at: int) -> Event:
        """The row a claim-check pointer stands for: the stored message, fetched by its file name
        from the storage this reader is configured with, and decoded as the one row it holds."""
        where = f"event {index} is claim-checked at {location!r}"
        store = self._large.store()
        if store is None:
            raise DecodeError(f"{where}: set claim-check-storage-uri to the storage the writer used", at, "key")
        try:
            key, value = store.fetch(location)
        except ObjectMissing as exc:
            raise DecodeError(f"{where}, but the object is missing: {exc}", at, "key") from None
        except StorageError as exc:
            raise DecodeError(f"{where}: {exc}", at, "key") from None
        except ValueError as exc:
            raise DecodeError(f"{where}: {exc}", at, "key") from None
        try:
            events = self.decode(Message("", 0, key, value))
        except DecodeError as exc:
            raise DecodeError(f"{where}; the stored message: {exc}", at, "key") from None
        if len(events) != 1 or not isinstance(events[0], RowChangedEvent) or events[0].handle_key_only:
            raise DecodeError(f"{where}, but the stored message holds no single whole row change", at, "key")
        return events[0]

    def _row_images(self, body: Any) -> tuple[Optional[Columns], Optional[Columns]]:
        if type(body) is not dict:
            raise _Problem(f"a row value must be a JSON object, got {_json_kind(body)}")
        new, old, deleted = body.get("u"), body.get("p"), body.get("d")
        if deleted is not None:
            if new is not None or old is not None:
                raise _Problem("a row value holds 'd' together with 'u' or 'p'")
            return None, self._columns(deleted, "d")
        if new is None:
            raise _Problem("a row value needs 'u' (insert, update) or 'd' (delete)")
        return self._columns(new, "u"), (None if old is None else self._columns(old, "p"))

    def _columns(self, image: Any, field: str) -> Columns:
        if type(image) is not dict:
            raise _Problem(f"'{field}' must be an object of columns, got {_json_kind(image)}")
        specs = self._specs
        out = []
        append = out.append
        for name, col in image.items():
            if type(col) is not dict:
                raise _Problem(f"column {name!r} in '{field}' must be an object, got {_json_kind(col)}")
            get = col.get
            t, f, h = get("t"), get("f"), get("h")
            # The cache holds only checked keys; checking the types before the lookup keeps
            # True from passing for 1 and a list (unhashable) from reaching the dict.
            if type(t) is int and (f is None or type(f) is int) and (h is None or type(h) is bool):
                spec = specs.get((t, f, h)) or self._learn(name, field, col, t, f, h)
            else:
                spec = self._learn(name, field, col, t, f, h)
            v = get("v", _MISSING)
            if v is not None:
                if type(v) is not spec[3]:  # spec[3]: the JSON type that is already canonical
                    if v is _MISSING:
                        raise _Problem(f"column {name!r} in '{field}' lacks its value 'v'")
                    try:
                        v = spec[2](v)
                    except BadValue as exc:
                        raise _Problem(f"column {name!r} in '{field}' (type {t}): {exc}") from None
            append(build_column(name, spec[0], spec[1], v))
        return tuple(out)

    def _learn(self, name: str, field: str, col: dict, t: Any, f: Any, h: Any) -> _ColumnSpec:
        if type(t) is not int or (f is not None and type(f) is not int) or (h is not None and type(h) is not bool):
            raise _Problem(_describe_bad_header(name, field, col))
        spec = self._specs[(t, f, h)] = _column_spec(t, f, h, name, field)
        return spec


_MISSING = object()


# --- pieces ---------------------------------------------------------------------------------


def _segment(buf: bytes, pos: int, part: str) -> tuple[int, int]:
    """Read one [u64 length, bytes] segment at ``pos``: (start of the bytes, end of the bytes)."""
    left = len(buf) - pos
    if left < 8:
        raise DecodeError(f"length prefix needs 8 bytes, {left} left", pos, part)
    n = LENGTH.unpack_from(buf, pos)[0]
    if n > left - 8:
        raise DecodeError(f"length {n} runs past the end ({left - 8} bytes follow)", pos, part)
    return pos + 8, pos + 8 + n


def _load(data: bytes, start: int, part: str) -> Any:
    """Parse one JSON document; errors carry the byte offset in the key or value.

    orjson parses (about three times the standard library's speed; whitespace around the
    document allowed, as Go allows); what it refuses is parsed again by the standard
    library, which names what is wrong and at which byte, or reads the few texts orjson
    is stricter about (an escaped lone surrogate, refused later as text UTF-8 cannot carry).
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"invalid UTF-8 in JSON: {exc.reason}", start + exc.start, part) from None
    try:
        try:
            doc, end = _raw_decode(text)  # the common case: no surrounding whitespace
            if end == len(text):
                return doc
        except json.JSONDecodeError:
            pass
        return _JSON.decode(text)  # whitespace allowed around the document, as Go allows; precise errors
    except json.JSONDecodeError as exc:
        at = start + len(text[: exc.pos].encode("utf-8"))
        raise DecodeError(f"invalid JSON: {exc.msg}", at, part) from None
    except (ValueError, RecursionError) as exc:  # NaN/Infinity, over-long integers, deep nesting
        raise DecodeError(f"invalid JSON: {exc}", start, part) from None


def _parse_key(obj: Any) -> _Key:
    if type(obj) is not dict:
        raise _Problem(f"must be a JSON object, got {_json_kind(obj)}")
    ts = obj.get("ts")
    if type(ts) is not int or not 0 <= ts <= U64_MAX:
        raise _Problem(_field_problem(obj, "ts", "an unsigned 64-bit integer"))
    kind = obj.get("t")
    if type(kind) is not int or kind not in (_ROW, _DDL, _RESOLVED):
        raise _Problem(_field_problem(obj, "t", "1 (row), 2 (DDL) or 3 (resolved)"))
    if kind == _RESOLVED:
        return kind, ts, "", "", None, False, None
    schema, table = obj.get("scm", ""), obj.get("tbl", "")
    if type(schema) is not str:
        raise _Problem(_field_problem(obj, "scm", "a string"))
    if type(table) is not str:
        raise _Problem(_field_problem(obj, "tbl", "a string"))
    table_id = obj.get("ptn")
    if table_id is not None and (type(table_id) is not int or not I64_MIN <= table_id <= I64_MAX):
        raise _Problem(_field_problem(obj, "ptn", "a 64-bit integer"))
    ohk = obj.get("ohk")
    if ohk is not None and type(ohk) is not bool:
        raise _Problem(_field_problem(obj, "ohk", "true or false"))
    ccl = obj.get("ccl")
    if ccl is not None and (type(ccl) is not str or not ccl or kind != _ROW):
        raise _Problem(_field_problem(obj, "ccl", "the claim-check location of a row event (a string)"))
    return kind, ts, schema, table, table_id, bool(ohk) and kind == _ROW, ccl or None


def _ddl(body: Any, ts: int, schema: str, table: str) -> DDLEvent:
    if type(body) is not dict:
        raise _Problem(f"a DDL value must be a JSON object, got {_json_kind(body)}")
    query = body.get("q")
    if type(query) is not str:
        raise _Problem(_field_problem(body, "q", "the query string"))
    ddl_type = body.get("t")
    if type(ddl_type) is not int or ddl_type not in _KNOWN_DDL:
        raise _Problem(_field_problem(body, "t", f"a DDL type code 1-{max(_KNOWN_DDL)}"))
    return DDLEvent(ts, schema, table, query, _KNOWN_DDL[ddl_type])


def _column_spec(t: int, f: Optional[int], h: Optional[bool], name: str, field: str) -> _ColumnSpec:
    column_type = _KNOWN_TYPES.get(t)
    if column_type is None:
        raise _Problem(f"column {name!r} in '{field}' has unknown type code {t}")
    if f is not None and not 0 <= f <= U64_MAX:
        raise _Problem(f"column {name!r} in '{field}' has flags {f} outside 0..2^64-1")
    flags = ColumnFlag(f or 0)
    if h:
        flags |= ColumnFlag.HANDLE_KEY
    binary = bool(flags & ColumnFlag.BINARY)
    return column_type, flags, value_reader(t, binary), canonical_json_type(t, binary)


def _describe_bad_header(name: str, field: str, col: dict) -> str:
    for key, want in (("t", "a type code"), ("f", "a flag number"), ("h", "true or false")):
        v = col.get(key)
        if key == "t" and type(v) is not int or key == "f" and v is not None and type(v) is not int \
                or key == "h" and v is not None and type(v) is not bool:
            got = "missing" if key not in col else _json_kind(v)
            return f"column {name!r} in '{field}': '{key}' must be {want}, got {got}"
    return f"column {name!r} in '{field}' is malformed"  # pragma: no cover


def _field_problem(obj: dict, field: str, want: str) -> str:
    if field not in obj:
        return f"lacks field '{field}' ({want})"
    v = obj[field]
    text = repr(v)
    return f"field '{field}' must be {want}, got {_json_kind(v)} {text[:40]}"


def _json_kind(v: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", int: "integer", float: "number"}.get(
        type(v), "null" if v is None else type(v).__name__
    )
