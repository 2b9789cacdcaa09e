"""debezium's messages made by the Java tier (``io.cdcwire.debezium.DebeziumBatchEncoder``, a
``BatchEncoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python encoder (:mod:`.encoder`) stays the reference: debezium writes one message per row,
so Java closes each message on its own row (one event) and gives its key and value byte for byte,
or leaves the row to Python, which then writes exactly its own message. Java takes the inserts,
updates and deletes whose record checks certainly pass, whose every column has a value rule
below and whose message fits max-message-bytes, and with the TiDB extension the watermark of a
resolved event (op "m", :func:`watermark`); DDL, large-message compression and any value a rule
is not sure of are Python's.

Nothing Java needs is written twice: the texts it fills in come from the installed encoder's own
functions, serialized by orjson with placeholders (:func:`templates`), and each column's value
rule is probed from ``column_values.encode_value`` (:func:`field_table`): a type whose values the
probes do not find written by one of Java's rules has no entry, and its rows stay Python's.

Where a column's schema depends on its type text (DATETIME's fsp, FLOAT's scale, BIT's width,
ENUM/SET's elements), its entry carries a schema text per variant (:data:`VARIANTS`, probed the
same way); Java reads those few facts from a type text of the plain forms the record checks let
through, and leaves any other text to Python.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
from typing import Any, Optional

import orjson

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    Column,
    ColumnFlag,
    ColumnType,
    LargeMessageOptions,
    ResolvedEvent,
    SinkConfig,
)

from .column_values import encode_value
from .connect_schema import field_schema, row_value_schema
from .encoder import DebeziumEncoder
from .field_types import STRING_TYPES, FieldType, FieldTypeError, field_type_of_column
from .options import DebeziumOptions

#: Placeholders the Java encoder replaces (none is a text the encoder writes itself).
PREFIX, FIELDS, DB, TABLE, NAME = "@prefix@", "@fields@", "@db@", "@table@", "@name@"
#: A BIT width's and an ENUM/SET ``allowed`` parameter's places in their schema texts.
LENGTH, ALLOWED = "@length@", "@allowed@"
#: The first probe commit ts: its text and its ``ts >> 18`` text appear nowhere else in a source
#: block, unless the cluster id shows one (then the next candidate is taken: :func:`probes`).
PROBE_TS = (987_654_321_987 << 18) + 12_345
#: The first probe clock of the watermark, likewise.
PROBE_NOW = 1_234_567_890_123_457
#: The watermark's places: its commit ts, that ts's milliseconds (``ts >> 18``), the clock.
TS, MS, NOW = "@ts@", "@ms@", "@now@"
#: The flag bits a column's schema and value rule can depend on (probed in every combination).
_FLAGS = (int(ColumnFlag.BINARY), int(ColumnFlag.UNSIGNED), int(ColumnFlag.NULLABLE))
T = ColumnType
#: The types Java may take: those whose schema and value depend on the type code and flags alone,
#: then those whose schema or value also depends on a few facts of the type text (or, for a
#: DATETIME or TIMESTAMP without one, on its value's fraction digits).
_TYPES = (
    T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.YEAR, T.DOUBLE, T.DECIMAL, T.JSON,
    *sorted(STRING_TYPES), T.DATE, T.NEWDATE, T.TIME,
    T.DATETIME, T.TIMESTAMP, T.FLOAT, T.BIT, T.ENUM, T.SET,
)
#: A type text a column of the type needs to have a FieldType at all (ENUM/SET: its elements).
_BASE_TYPE_TEXT = {T.ENUM: "enum('a')", T.SET: "set('a')"}
_U64 = (1 << 64) - 1
#: An invalid date's value: null in a nullable column, 0 in a NOT NULL one (TiCDC's).
INVALID = object()


def _days(y: int, m: int, d: int) -> int:
    return dt.date(y, m, d).toordinal() - dt.date(1970, 1, 1).toordinal()


def _micros(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, us: int = 0) -> int:
    return (dt.datetime(y, mo, d, h, mi, s, us) - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


#: Java's value rules and the probes that pick one: (type text, canonical value, what the rule
#: writes), the column's FieldType read from that type text (None: none). "same": the value as it
#: is (an integer as a number, a text as a string); "u64": an unsigned 64-bit integer as the int64
#: of its bits; "base64": bytes as base64 text; "double": a float as it is, "decimal": a decimal
#: text as the nearest double, "float32": a float as the double of its shortest float32 text (each
#: written as orjson writes a float). "date": days since 1970 (a year below 70 as 20xx, below 100
#: as 19xx), "datetime": milliseconds since 1970 for an fsp up to 3 (the type text's, else the
#: value's fraction digits), microseconds above, "timestamp": ISO text in UTC cut to that fsp,
#: before 1970-01-01 00:00:01 (or invalid) the epoch, "time": signed microseconds; "bit": BIT(1)
#: as a boolean, wider as base64 of its little-endian bytes; "enum": the element of a 1-based
#: index, "set": the members of a mask, joined by commas (out of range: "").
_RULES: dict[str, list[tuple[Optional[str], Any, Any]]] = {
    "same": [(None, v, v) for v in (0, 7, -7, 1 << 62, _U64, "a\"é\n", "")],
    "u64": [(None, 0, 0), (None, 7, 7), (None, 1 << 63, -(1 << 63)), (None, _U64, -1)],
    "base64": [(None, b"\x00\xff a", _b64(b"\x00\xff a")), (None, b"", "")],
    "decimal": [(None, "0.1", 0.1), (None, "-12345678901234567890.25", -12345678901234567890.25),
                (None, "-0", -0.0)],
    "double": [(None, 0.1, 0.1), (None, -2.5e300, -2.5e300), (None, 5e-324, 5e-324)],
    "float32": [(None, 0.10000000149011612, 0.1), ("float", 3.4028234663852886e38, 3.4028235e38),
                ("float(7,3)", -1.5, -1.5), (None, 1.401298464324817e-45, 1e-45), (None, 16777216.0, 16777216.0)],
    "date": [(None, "2024-02-29", _days(2024, 2, 29)), ("date", "1970-01-01", 0),
             (None, "0069-12-31", _days(2069, 12, 31)), (None, "0070-01-01", 0),
             (None, "0099-06-30", _days(1999, 6, 30)), (None, "0100-03-01", _days(100, 3, 1)),
             (None, "9999-12-31", _days(9999, 12, 31)), (None, "0000-01-01", _days(2000, 1, 1)),
             (None, "0000-00-00", INVALID), (None, "2023-02-29", INVALID), (None, "2024-00-10", INVALID)],
    "time": [(None, "00:00:00", 0), (None, "838:59:59", (838 * 3600 + 59 * 60 + 59) * 10**6),
             ("time(3)", "-12:34:56.5", -(12 * 3600 + 34 * 60 + 56) * 10**6 - 500_000),
             (None, "-00:00:00.000001", -1), (None, "-00:00:00", 0)],
    "datetime": [(None, "2024-01-02 03:04:05", _micros(2024, 1, 2, 3, 4, 5) // 1000),
                 (None, "2024-01-02 03:04:05.123", _micros(2024, 1, 2, 3, 4, 5, 123_000) // 1000),
                 (None, "2024-01-02 03:04:05.1234", _micros(2024, 1, 2, 3, 4, 5, 123_400)),
                 ("datetime", "2024-01-02 03:04:05.123456", _micros(2024, 1, 2, 3, 4, 5, 123_456) // 1000),
                 ("datetime(6)", "2024-01-02 03:04:05", _micros(2024, 1, 2, 3, 4, 5)),
                 ("datetime(3)", "1969-12-31 23:59:59.9995", -1),
                 (None, "0069-01-01 00:00:00", _micros(2069, 1, 1) // 1000),
                 (None, "0000-00-00 00:00:00", INVALID), (None, "2023-02-29 00:00:00", INVALID)],
    "timestamp": [(None, "2024-01-02 03:04:05", "2024-01-02T03:04:05Z"),
                  (None, "2024-01-02 03:04:05.120", "2024-01-02T03:04:05.120Z"),
                  ("timestamp(2)", "2024-01-02 03:04:05.129", "2024-01-02T03:04:05.12Z"),
                  ("timestamp(6)", "2024-01-02 03:04:05", "2024-01-02T03:04:05.000000Z"),
                  ("timestamp", "2024-01-02 03:04:05.5", "2024-01-02T03:04:05Z"),
                  (None, "1970-01-01 00:00:00.999999", "1970-01-01T00:00:00Z"),
                  (None, "1970-01-01 00:00:01", "1970-01-01T00:00:01Z"),
                  (None, "0069-01-01 00:00:00", "1970-01-01T00:00:00Z"),
                  (None, "0000-00-00 00:00:00", "1970-01-01T00:00:00Z")],
    "bit": [("bit(1)", 1, True), ("bit(1)", 0, False), ("bit", 1, True), ("bit(12)", 0xABC, _b64(b"\xbc\x0a")),
            ("bit(9)", 0x1FF, _b64(b"\xff\x01")), (None, _U64, _b64(b"\xff" * 8)),
            ("bit(64)", 1 << 63, _b64(bytes(7) + b"\x80"))],
    "enum": [("enum('a','b,c','')", 1, "a"), ("enum('a','b,c','')", 2, "b,c"), ("enum('a','b,c','')", 3, ""),
             ("enum('a','b,c','')", 0, ""), ("enum('a','b,c','')", 4, "")],
    "set": [("set('a','b','c')", 0, ""), ("set('a','b','c')", 5, "a,c"), ("set('a','b','c')", 7, "a,b,c"),
            ("set('a','b','c')", 8, ""), ("set('a,b','c')", 1, "a,b")],
}

#: The schema variants of the types whose schema depends on more than the type code and flags:
#: variant name -> (type text, DATETIME fsp) of the columns that have it; each variant's text
#: must be the same for all of them. The default variant is the entry's "schema".
VARIANTS: dict[ColumnType, dict[str, list[tuple[Optional[str], int]]]] = {
    T.DATETIME: {"schema": [("datetime", f) for f in range(4)], "micro": [("datetime", f) for f in range(4, 7)]},
    T.FLOAT: {"schema": [(None, 0), ("float", 0), ("float(10)", 0)], "scaled": [("float(7,3)", 0), ("float(10,0)", 0)]},
    T.BIT: {"schema": [("bit(1)", 0), ("bit", 0)], "bits": [(f"bit({n})", 0) for n in (2, 12, 37, 64)]},
    T.ENUM: {"allowed": [("enum('a','b')", 0), ("enum('x,y','z')", 0)]},
    T.SET: {"allowed": [("set('a','b')", 0), ("set('x,y','z')", 0)]},
}
#: What Java puts in a variant's places for each column of its probes above.
_PLACES = {
    "bits": lambda ft: {LENGTH: str(ft.bit_length)},
    "allowed": lambda ft: {ALLOWED: ",".join(
        e.replace(",", "\\,") if ft.type == T.ENUM else e for e in ft.elements or ())},
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot encode messages of this configuration, or None when it can."""
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "debezium's large-message compression is encoded in Python only"
    cluster = DebeziumOptions.from_config(config).cluster_id
    if "@" in cluster:
        return "a debezium cluster id with '@' is encoded in Python only (the Java encoder's texts mark places with it)"
    if probes(DebeziumOptions.from_config(config)) is None:
        return "the debezium cluster id shows every probe number the Java encoder's texts are made with"
    return None


def probes(options: DebeziumOptions) -> Optional[tuple[int, int]]:
    """A probe commit ts and clock whose texts (the ts, ``ts >> 18``, the clock) are not in the
    cluster id, the one text of the source block and the watermark the user gives, nor in one
    another: Java finds its places by them. None when every candidate shows in the cluster id."""
    for k in range(64):
        ts, now = ((987_654_321_987 + 7 * k) << 18) + 12_345, PROBE_NOW + 7 * k
        texts = (str(ts), str(ts >> 18), str(now))
        if not any(t in options.cluster_id or any(t in u for u in texts if u != t) for t in texts):
            return ts, now
    return None


def _probe_type(t: ColumnType, flags: int, type_text: Optional[str]) -> FieldType:
    return field_type_of_column(Column(NAME, t, ColumnFlag(flags), None, type_text or _BASE_TYPE_TEXT.get(t)))


def _rule(t: ColumnType, flags: int) -> Optional[str]:
    """The one Java rule whose every probe encode_value writes alike, or None."""
    for name, probes in _RULES.items():
        try:
            for type_text, v, out in probes:
                ft = _probe_type(t, flags, type_text)
                if out is INVALID:
                    out = None if ft.optional else 0
                w = encode_value(ft, v)
                if type(w) is not type(out) or w != out:
                    break
            else:
                return name
        except (TypeError, ValueError, AttributeError, ArithmeticError, IndexError):
            continue
    return None


def _schema_text(ft: FieldType, tidb_extension: bool, fsp: int) -> Optional[str]:
    """A column's field schema as text up to its name (which Java adds with the closing brace)."""
    text = orjson.dumps(field_schema(NAME, ft, tidb_extension, fsp)).decode()
    tail = f'"field":"{NAME}"}}'
    return text[: -len(tail)] if text.endswith(tail) else None


def _variants(t: ColumnType, flags: int, tidb_extension: bool) -> Optional[dict[str, str]]:
    """The schema texts of a type whose schema depends on its type text, by variant; None when a
    variant's columns do not share one text (with its places filled in)."""
    out = {}
    for variant, columns in VARIANTS[t].items():
        places = _PLACES.get(variant, lambda ft: {})
        texts = set()
        for type_text, fsp in columns:
            ft = _probe_type(t, flags, type_text)
            text = _schema_text(ft, tidb_extension, fsp)
            if text is None:
                return None
            for mark, filled in places(ft).items():  # each a JSON string in its place
                text = text.replace(orjson.dumps(filled).decode(), f'"{mark}"')
            texts.add(text)
        if len(texts) != 1:
            return None
        out[variant] = texts.pop()
    return out


def field_table(tidb_extension: bool) -> dict[str, list[Optional[dict[str, Any]]]]:
    """For each type name Java may take: per flags combination (the bits of ``flags``, in order)
    its value rule and its Connect field schema as text, up to the field's name (which Java adds
    with the closing brace), or for a type of :data:`VARIANTS` its text per variant; None where
    the encoder has no rule Java shares."""
    table = {}
    for t in _TYPES:
        entries: list[Optional[dict[str, Any]]] = []
        for combo in range(1 << len(_FLAGS)):
            flags = sum(bit for i, bit in enumerate(_FLAGS) if combo >> i & 1)
            try:
                ft = _probe_type(t, flags, None)
            except FieldTypeError:
                entries.append(None)
                continue
            rule = _rule(t, flags)
            schemas = _variants(t, flags, tidb_extension) if t in VARIANTS else {
                "schema": _schema_text(ft, tidb_extension, 0)}
            entries.append(None if rule is None or schemas is None or None in schemas.values()
                           else {"rule": rule, **schemas})
        table[t.name] = entries
    return table


def templates(options: DebeziumOptions) -> dict[str, str]:
    """The texts Java fills in, made by the encoder's own functions: the source block (``@db@``,
    ``@table@`` and the probe ts), the key schema and the envelope schema (``@prefix@``, ``"@fields@"``)."""
    probe_ts = probes(options)[0]  # type: ignore[index]  # refusal() said there is one
    source = DebeziumEncoder(options)._source(DB, TABLE, probe_ts)
    key_schema = {"type": "struct", "name": f"{PREFIX}.Key", "optional": False, "fields": FIELDS}
    return {
        "source": orjson.dumps(source).decode(),
        "key_schema": orjson.dumps(key_schema).decode(),
        "value_schema": orjson.dumps(
            row_value_schema(PREFIX, FIELDS, options.tidb_extension)  # type: ignore[arg-type]
        ).decode(),
    }


def watermark(options: DebeziumOptions) -> Optional[dict[str, str]]:
    """The watermark message (op "m") as the encoder writes it, key and value, for the probe ts at
    the probe clock, with those numbers as ``@ts@``, ``@ms@`` and ``@now@``; None without the TiDB
    extension (the encoder writes no message for a resolved event then: Python's, which writes
    none) or where a probe's text is not found exactly where Java fills it in (a cluster id that
    holds one). Why Java writes it: a resolved event left to Python ends Java's run of staged
    messages in every partition, each run a file made durable of its own."""
    if not options.tidb_extension:
        return None
    plain = dataclasses.replace(options, max_message_bytes=1 << 62, large=LargeMessageOptions())
    probe_ts, probe_now = probes(options)  # type: ignore[misc]  # refusal() said there are
    message = DebeziumEncoder(plain, clock=lambda: probe_now).encode_event(ResolvedEvent(probe_ts))
    if message is None:
        return None
    key, value = (part.decode() for part in message)
    places = {str(probe_ts): TS, str(probe_ts >> 18): MS, str(probe_now): NOW}
    if any(probe in key or value.count(probe) != 1 for probe in places):
        return None
    for probe, mark in places.items():
        value = value.replace(probe, mark)
    return {"key": key, "value": value}


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java encoder is made with (the core adds the record checks' tables)."""
    options = DebeziumOptions.from_config(config)
    probe_ts = probes(options)[0]  # type: ignore[index]  # refusal() said there is one
    return {
        "fields": field_table(options.tidb_extension),
        "flag_bits": list(_FLAGS),
        "templates": templates(options),
        "watermark": watermark(options),
        "probe_ts": str(probe_ts),
        "probe_ms": str(probe_ts >> 18),
        "placeholders": {"prefix": PREFIX, "fields": f'"{FIELDS}"', "db": f'"{DB}"', "table": f'"{TABLE}"',
                         "length": f'"{LENGTH}"', "allowed": f'"{ALLOWED}"', "ts": TS, "ms": MS, "now": NOW},
        "cluster": options.cluster_id,
        "disable_schema": options.disable_schema,
        "output_old_value": options.output_old_value,
        "max_message_bytes": options.max_message_bytes,
        "overhead": MESSAGE_OVERHEAD,
    }
