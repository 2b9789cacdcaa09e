"""Canonical event JSON: one event per line, lossless for every column type.

The plain input of the CLI and the pipeline and the plain output of decoders.
The format is documented in the README ("Event JSON"). In short::

    {"type":"row","commit_ts":N,"schema":S,"table":T,"columns":[COL...]|null,"pre_columns":[COL...]|null}
    {"type":"ddl","commit_ts":N,"schema":S,"table":T,"ddl_type":"CREATE_TABLE","query":Q}
    {"type":"resolved","ts":N}
    COL = {"name":S,"type":"VARCHAR","flags":N,"value":V,"mysql_type":"varchar(16)"}

V is a JSON number, string or null; bytes are ``{"base64": "..."}``. JSON
numbers carry unsigned 64-bit integers exactly; FLOAT values are float32 and
are written with the fewest digits that read back to the same float32.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from typing import IO, Any, Iterable, Iterator, Optional

from .codes import BLOB_TYPES, FLOAT_TYPES, STRING_TYPES, INTEGER_TYPES, ColumnFlag, ColumnType, DDLType
from .errors import EventJSONError
from .events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_column
from .value_text import float32_text, to_float32

U64_MAX = (1 << 64) - 1
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1

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
        return EventJSONError(message, self.line, field)


def _req(d: dict[str, Any], key: str, ctx: _Ctx, field: str) -> Any:
    if key not in d:
        raise ctx.fail(field, "is missing")
    return d[key]


def _uint64(v: Any, ctx: _Ctx, field: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= U64_MAX:
        raise ctx.fail(field, f"must be an integer in 0..2^64-1, got {v!r}")
    return v


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


#: (signed range, unsigned range) of each integer type's values; YEAR, ENUM, SET and BIT are
#: unsigned whatever their flags (ENUM is the 1-based index, 0 for the invalid value '').
_INTEGER_RANGES: dict[ColumnType, tuple[tuple[int, int], tuple[int, int]]] = {
    ColumnType.TINYINT: ((-(1 << 7), (1 << 7) - 1), (0, (1 << 8) - 1)),
    ColumnType.SMALLINT: ((-(1 << 15), (1 << 15) - 1), (0, (1 << 16) - 1)),
    ColumnType.MEDIUMINT: ((-(1 << 23), (1 << 23) - 1), (0, (1 << 24) - 1)),
    ColumnType.INT: ((-(1 << 31), (1 << 31) - 1), (0, (1 << 32) - 1)),
    ColumnType.BIGINT: ((I64_MIN, I64_MAX), (0, U64_MAX)),
    ColumnType.YEAR: ((0, 2155), (0, 2155)),
    ColumnType.ENUM: ((0, 65535), (0, 65535)),
    ColumnType.SET: ((0, U64_MAX), (0, U64_MAX)),
    ColumnType.BIT: ((0, U64_MAX), (0, U64_MAX)),
}


def _value(v: Any, ctype: ColumnType, flags: int, ctx: _Ctx, field: str) -> Any:
    if v is None:
        return None
    if ctype in INTEGER_TYPES:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ctx.fail(field, f"a {ctype.name} value must be an integer, got {v!r}")
        signed_range, unsigned_range = _INTEGER_RANGES[ctype]
        lo, hi = unsigned_range if flags & ColumnFlag.UNSIGNED else signed_range
        if not lo <= v <= hi:
            unsigned = " UNSIGNED" if flags & ColumnFlag.UNSIGNED and signed_range != unsigned_range else ""
            raise ctx.fail(field, f"{v} is outside {lo}..{hi}, the range of {ctype.name}{unsigned}")
        return v
    if ctype in FLOAT_TYPES:
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise ctx.fail(field, f"a {ctype.name} value must be a number, got {v!r}")
        f = float(v)
        if not math.isfinite(f):
            raise ctx.fail(field, f"a {ctype.name} value must be finite, got {v!r}")
        if ctype != ColumnType.FLOAT:
            return f
        try:
            return to_float32(f)
        except OverflowError:
            raise ctx.fail(field, f"{v!r} is outside the range of FLOAT (float32)") from None
    if ctype == ColumnType.NULL:
        raise ctx.fail(field, f"a NULL-type column can only hold null, got {v!r}")
    binary = bool(flags & ColumnFlag.BINARY)
    if isinstance(v, dict):
        if set(v) != {"base64"} or not isinstance(v["base64"], str):
            raise ctx.fail(field, 'bytes must be written as {"base64": "..."}')
        if not binary and ctype != ColumnType.GEOMETRY:
            raise ctx.fail(field, f"bytes given for a {ctype.name} column without the BINARY flag; give a string")
        try:
            return base64.b64decode(v["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise ctx.fail(field, "is not valid base64") from None
    if isinstance(v, str):
        if binary and (ctype in BLOB_TYPES or ctype in STRING_TYPES):
            raise ctx.fail(field, f'the {ctype.name} column has the BINARY flag: give {{"base64": ...}}')
        return v
    raise ctx.fail(field, f"a {ctype.name} value must be a string, got {v!r}")


def _columns(v: Any, ctx: _Ctx, field: str) -> Optional[tuple[Column, ...]]:
    if v is None:
        return None
    if not isinstance(v, list):
        raise ctx.fail(field, f"must be a list of columns or null, got {type(v).__name__}")
    out = []
    seen = set()
    for i, c in enumerate(v):
        f = f"{field}[{i}]"
        if not isinstance(c, dict):
            raise ctx.fail(f, "must be an object")
        unknown = set(c) - {"name", "type", "flags", "value", "mysql_type"}
        if unknown:
            raise ctx.fail(f, f"unknown key(s) {', '.join(sorted(unknown))}")
        name = _str(_req(c, "name", ctx, f + ".name"), ctx, f + ".name")
        if name in seen:
            raise ctx.fail(f + ".name", f"column {name!r} appears twice")
        seen.add(name)
        ctype = _column_type(_req(c, "type", ctx, f + ".type"), ctx, f + ".type")
        flags = c.get("flags", 0)
        if not isinstance(flags, int) or isinstance(flags, bool) or not 0 <= flags <= 0xFFFF:
            raise ctx.fail(f + ".flags", f"must be an integer bit set, got {flags!r}")
        mysql_type = c.get("mysql_type")
        if mysql_type is not None:
            _str(mysql_type, ctx, f + ".mysql_type")
        value = _value(c.get("value"), ctype, flags, ctx, f + ".value")
        out.append(build_column(name, ctype, ColumnFlag(flags), value, mysql_type))
    return tuple(out)


def event_from_dict(d: Any, line: Optional[int] = None) -> Event:
    """Validate one decoded JSON object and build the event; errors name line and field."""
    ctx = _Ctx(line)
    if not isinstance(d, dict):
        raise EventJSONError("an event must be a JSON object", line)
    kind = _req(d, "type", ctx, "type")
    if kind == "row":
        unknown = set(d) - {"type", "commit_ts", "schema", "table", "table_id", "columns", "pre_columns"}
        if unknown:
            raise ctx.fail(sorted(unknown)[0], "unknown field of a row event")
        columns = _columns(d.get("columns"), ctx, "columns")
        pre = _columns(d.get("pre_columns"), ctx, "pre_columns")
        if columns is None and pre is None:
            raise ctx.fail("columns", "a row event needs columns (insert/update) or pre_columns (delete)")
        table_id = d.get("table_id")
        if table_id is not None and (
            not isinstance(table_id, int) or isinstance(table_id, bool) or not I64_MIN <= table_id <= I64_MAX
        ):
            raise ctx.fail("table_id", f"must be a signed 64-bit integer or null, got {table_id!r}")
        return RowChangedEvent(
            _uint64(_req(d, "commit_ts", ctx, "commit_ts"), ctx, "commit_ts"),
            _str(_req(d, "schema", ctx, "schema"), ctx, "schema"),
            _str(_req(d, "table", ctx, "table"), ctx, "table"),
            columns,
            pre,
            table_id,
        )
    if kind == "ddl":
        unknown = set(d) - {"type", "commit_ts", "schema", "table", "ddl_type", "query"}
        if unknown:
            raise ctx.fail(sorted(unknown)[0], "unknown field of a DDL event")
        raw = _req(d, "ddl_type", ctx, "ddl_type")
        try:
            ddl_type = DDLType[raw.upper()] if isinstance(raw, str) else DDLType(raw)
        except (KeyError, ValueError):
            raise ctx.fail("ddl_type", f"unknown DDL type {raw!r}") from None
        return DDLEvent(
            _uint64(_req(d, "commit_ts", ctx, "commit_ts"), ctx, "commit_ts"),
            _str(d.get("schema", ""), ctx, "schema"),
            _str(d.get("table", ""), ctx, "table"),
            _str(_req(d, "query", ctx, "query"), ctx, "query"),
            ddl_type,
        )
    if kind == "resolved":
        unknown = set(d) - {"type", "ts"}
        if unknown:
            raise ctx.fail(sorted(unknown)[0], "unknown field of a resolved event")
        return ResolvedEvent(_uint64(_req(d, "ts", ctx, "ts"), ctx, "ts"))
    raise ctx.fail("type", f"must be 'row', 'ddl' or 'resolved', got {kind!r}")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def from_json(text: str, line: Optional[int] = None) -> Event:
    """Parse one line of canonical event JSON."""
    try:
        d = json.loads(text, parse_constant=_reject_constant)
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
