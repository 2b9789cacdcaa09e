"""Canonical event JSON: one event per line, lossless for every column type.

The plain input of the CLI and the pipeline and the plain output of decoders.
The format is documented in docs/event-json.md. In short::

    {"type":"row","commit_ts":N,"schema":S,"table":T,"columns":[COL...]|null,"pre_columns":[COL...]|null}
    {"type":"ddl","commit_ts":N,"schema":S,"table":T,"ddl_type":"CREATE_TABLE","query":Q}
    {"type":"resolved","ts":N}
    COL = {"name":S,"type":"VARCHAR","flags":N,"value":V,"mysql_type":"varchar(16)"}

V is a JSON number, string or null; bytes are ``{"base64": "..."}``. JSON
numbers carry unsigned 64-bit integers exactly; FLOAT values are float32 and
are written with the fewest digits that read back to the same float32.

This module owns the format. It is a public contract (files people keep, other tools'
input), so a change to it raises :data:`EVENT_JSON_VERSION` and gets a line in the
"Format versions" table of docs/event-json.md.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import IO, Any, Iterable, Iterator, Optional

from ..values.type_codes import BLOB_TYPES, FLOAT_TYPES, STRING_TYPES, ColumnFlag, ColumnType, DDLType
from ..foundation.errors import EventJSONError, InvalidEventError
from .events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_column, build_row_event
from .validation import FLAGS_LIMIT, check_event, shown
from ..values.value_kinds import to_float32
from .value_text import float32_text

#: The version of the event JSON format: MAJOR.MINOR, a new optional field raising the
#: minor, anything an older reader would misread the major.
EVENT_JSON_VERSION = "1.1"

# --- to JSON -------------------------------------------------------------------------------


def _value_to_json(col: Column) -> Any:
    v = col.value
    if isinstance(v, bytes):
        return {"base64": base64.b64encode(v).decode("ascii")}
    if isinstance(v, float) and col.type == ColumnType.FLOAT:
        return float(float32_text(v))
    return v


def column_to_dict(col: Column) -> dict[str, Any]:
    d: dict[str, Any] = {
        "name": col.name,
        "type": ColumnType(col.type).name,
        "flags": int(col.flags),
        "value": _value_to_json(col),
    }
    if col.mysql_type is not None:
        d["mysql_type"] = col.mysql_type
    return d


def event_to_dict(event: Event) -> dict[str, Any]:
    if isinstance(event, RowChangedEvent):
        d: dict[str, Any] = {
            "type": "row",
            "commit_ts": event.commit_ts,
            "schema": event.schema,
            "table": event.table,
        }
        if event.table_id is not None:
            d["table_id"] = event.table_id
        if event.handle_key_only:
            d["handle_key_only"] = True
        d["columns"] = None if event.columns is None else [column_to_dict(c) for c in event.columns]
        d["pre_columns"] = None if event.pre_columns is None else [column_to_dict(c) for c in event.pre_columns]
        return d
    if isinstance(event, DDLEvent):
        return {
            "type": "ddl",
            "commit_ts": event.commit_ts,
            "schema": event.schema,
            "table": event.table,
            "ddl_type": DDLType(event.ddl_type).name,
            "query": event.query,
        }
    if isinstance(event, ResolvedEvent):
        return {"type": "resolved", "ts": event.ts}
    raise TypeError(f"not a cdcwire event: {event!r}")


def to_json(event: Event) -> str:
    """One event as one line of canonical JSON (no trailing newline)."""
    return json.dumps(event_to_dict(event), ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def write_jsonl(events: Iterable[Event], out: IO[str]) -> int:
    n = 0
    for e in events:
        out.write(to_json(e))
        out.write("\n")
        n += 1
    return n


# --- from JSON -----------------------------------------------------------------------------


class _Ctx:
    __slots__ = ("line",)

    def __init__(self, line: Optional[int]) -> None:
        self.line = line

    def fail(self, field: str, message: str) -> EventJSONError:
        """The error, its text escaped where it quotes input UTF-8 cannot carry (so it prints)."""
        return EventJSONError(message.encode("utf-8", "backslashreplace").decode(), self.line, field)


def _req(d: dict[str, Any], key: str, ctx: _Ctx, field: str) -> Any:
    if key not in d:
        raise ctx.fail(field, "is missing")
    return d[key]


def _str(v: Any, ctx: _Ctx, field: str) -> str:
    if not isinstance(v, str):
        raise ctx.fail(field, f"must be a string, got {type(v).__name__}")
    return v


def _column_type(v: Any, ctx: _Ctx, field: str) -> ColumnType:
    try:
        if isinstance(v, str):
            return ColumnType[v.upper()]
        if isinstance(v, int) and not isinstance(v, bool):
            return ColumnType(v)
    except (KeyError, ValueError):
        pass
    names = ", ".join(t.name for t in ColumnType)
    raise ctx.fail(field, f"unknown column type {v!r}; types: {names}")


def _value(v: Any, ctype: ColumnType, flags: Any, ctx: _Ctx, field: str) -> Any:
    """The Python value of a JSON value: numbers of FLOAT/DOUBLE columns as floats (FLOAT
    rounded to float32), ``{"base64": ...}`` as bytes; every rule of the value itself is
    :mod:`cdcwire.model.validation`'s, checked once the event is built."""
    if ctype in FLOAT_TYPES and v.__class__ is int:
        try:
            v = float(v)
        except OverflowError:
            raise ctx.fail(field, f"{shown(v)} is outside the range of {ctype.name}") from None
    if v.__class__ is float and ctype == ColumnType.FLOAT and math.isfinite(v):
        try:
            return to_float32(v)
        except OverflowError:
            raise ctx.fail(field, f"{v!r} is outside the range of FLOAT (float32)") from None
    if isinstance(v, dict):
        if set(v) != {"base64"} or not isinstance(v["base64"], str):
            raise ctx.fail(field, 'bytes must be written as {"base64": "..."}')
        binary = isinstance(flags, int) and flags & ColumnFlag.BINARY
        if not binary and ctype != ColumnType.GEOMETRY:
            rule = f"bytes given for a {ctype.name} column without the BINARY flag; give a string"
            raise ctx.fail(field, rule)
        try:
            return base64.b64decode(v["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise ctx.fail(field, "is not valid base64") from None
    if isinstance(v, str) and isinstance(flags, int) and flags & ColumnFlag.BINARY:
        if ctype in BLOB_TYPES or ctype in STRING_TYPES:
            raise ctx.fail(field, f'the {ctype.name} column has the BINARY flag: give {{"base64": ...}}')
    return v


def _columns(v: Any, ctx: _Ctx, field: str) -> Optional[tuple[Column, ...]]:
    if v is None:
        return None
    if not isinstance(v, list):
        raise ctx.fail(field, f"must be a list of columns or null, got {type(v).__name__}")
    out = []
    for i, c in enumerate(v):
        f = f"{field}[{i}]"
        if not isinstance(c, dict):
            raise ctx.fail(f, "must be an object")
        unknown = set(c) - {"name", "type", "flags", "value", "mysql_type"}
        if unknown:
            raise ctx.fail(f, f"unknown key(s) {', '.join(map(repr, sorted(unknown)))}")
        name = _req(c, "name", ctx, f + ".name")
        ctype = _column_type(_req(c, "type", ctx, f + ".type"), ctx, f + ".type")
        flags = c.get("flags", 0)
        if isinstance(flags, int) and not isinstance(flags, bool) and 0 <= flags < FLAGS_LIMIT:
            flags = ColumnFlag(flags)
        value = _value(c.get("value"), ctype, flags, ctx, f + ".value")
        out.append(build_column(name, ctype, flags, value, c.get("mysql_type")))
    return tuple(out)


def _checked(event: Event, ctx: _Ctx) -> Event:
    try:
        check_event(event)
    except InvalidEventError as exc:
        raise ctx.fail(exc.field or "type", exc.rule) from None
    return event


def event_from_dict(d: Any, line: Optional[int] = None) -> Event:
    """Validate one decoded JSON object and build the event; errors name line and field."""
    ctx = _Ctx(line)
    if not isinstance(d, dict):
        raise EventJSONError("an event must be a JSON object", line)
    kind = _req(d, "type", ctx, "type")
    if kind == "row":
        unknown = set(d) - {"type", "commit_ts", "schema", "table", "table_id", "handle_key_only", "columns", "pre_columns"}
        if unknown:
            raise ctx.fail(sorted(unknown)[0], "unknown field of a row event")
        columns = _columns(d.get("columns"), ctx, "columns")
        pre = _columns(d.get("pre_columns"), ctx, "pre_columns")
        if columns is None and pre is None:
            raise ctx.fail("columns", "a row event needs columns (insert/update) or pre_columns (delete)")
        event: Event = build_row_event(
            _req(d, "commit_ts", ctx, "commit_ts"),
            _req(d, "schema", ctx, "schema"),
            _req(d, "table", ctx, "table"),
            columns,
            pre,
            d.get("table_id"),
            d.get("handle_key_only", False),
        )
        return _checked(event, ctx)
    if kind == "ddl":
        unknown = set(d) - {"type", "commit_ts", "schema", "table", "ddl_type", "query"}
        if unknown:
            raise ctx.fail(sorted(unknown)[0], "unknown field of a DDL event")
        raw = _req(d, "ddl_type", ctx, "ddl_type")
        try:
            ddl_type = DDLType[raw.upper()] if isinstance(raw, str) else DDLType(raw)
        except (KeyError, ValueError):
            raise ctx.fail("ddl_type", f"unknown DDL type {raw!r}") from None
        event = DDLEvent(
            _req(d, "commit_ts", ctx, "commit_ts"),
            d.get("schema", ""),
            d.get("table", ""),
            _req(d, "query", ctx, "query"),
            ddl_type,
        )
        return _checked(event, ctx)
    if kind == "resolved":
        unknown = set(d) - {"type", "ts"}
        if unknown:
            raise ctx.fail(sorted(unknown)[0], "unknown field of a resolved event")
        return _checked(ResolvedEvent(_req(d, "ts", ctx, "ts")), ctx)
    raise ctx.fail("type", f"must be 'row', 'ddl' or 'resolved', got {kind!r}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when it names a key twice (json.loads would keep the last silently)."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"key {twice!r} appears twice in an object")
    return d


def from_json(text: str, line: Optional[int] = None) -> Event:
    """Parse one line of canonical event JSON."""
    try:
        d = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_object)
    except (json.JSONDecodeError, ValueError) as exc:
        raise EventJSONError(f"not valid JSON: {exc}", line) from None
    except RecursionError:
        raise EventJSONError("not valid JSON: nested too deeply", line) from None
    return event_from_dict(d, line)


def read_jsonl(source: IO[str] | Iterable[str]) -> Iterator[Event]:
    """Events of a JSON Lines stream; blank lines are skipped, errors give the 1-based line."""
    for number, text in enumerate(source, 1):
        if text.strip():
            yield from_json(text, number)
