"""The canal-json decoder: strict JSON in, events out.

Every field the reader needs is checked for presence and JSON type; a failure is
a DecodeError naming the field and the byte offset of its key in the value.
Column types come from ``mysqlType``, values from their text. A table's
``mysqlType``, ``sqlType`` and ``pkNames`` are checked in full when they first
appear (or change) and kept as a :class:`TableReading`; later messages of the
table are only compared with them, and their values parsed in one loop over a
ready list of parsers.

Large messages, as the reference's decoder (tiflow
``pkg/sink/codec/canal/canal_json_decoder.go``) reads them: every value is first
decompressed with ``large-message-handle-compression``; a ``_tidb.claimCheckLocation``
pointer is resolved by the location's file name in the consumer's own
``claim-check-storage-uri`` (never by following it), and the stored message, decompressed,
is decoded in its place; a ``_tidb.onlyHandleKey`` row is read with the handle-key mark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

import orjson

from cdcwire.plugin_api import (
    BoundedCache,
    ClaimCheckStore,
    Column,
    ColumnFlag,
    ColumnType,
    DDLEvent,
    DecodeError,
    DecompressionFailed,
    Event,
    EventBatch,
    ImageShape,
    Message,
    ObjectMissing,
    ResolvedEvent,
    RowChangedEvent,
    StorageError,
    TableSchema,
    build_column,
    build_row_event,
    derive_table_schema,
    type_text_problem,
)

from .column_types import Parser, shape_of
from .ddl_kinds import DDL_WORDS, ddl_type_from
from .encoder import WATERMARK
from .options import CanalOptions

_KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
_HANDLE = ColumnFlag.HANDLE_KEY
_U64_LIMIT = 1 << 64
_ES_LIMIT = 1 << 46  # es << 18 must stay an unsigned 64-bit ts
#: The reference's widths (tiflow's ``JSONMessage``): ``id`` and ``ts`` are Go int64s, each
#: ``sqlType`` an int32; a number past them is refused there, and here alike.
_INT64 = 64
_INT32 = 32
_INT32_HALF = 1 << 31
_INT64_HALF = 1 << 63
_REQUIRED = ("id", "database", "table", "pkNames", "isDdl", "type", "es", "ts", "sql",
             "sqlType", "mysqlType", "old", "data")
_REQUIRED_SET = frozenset(_REQUIRED)
_PLAN_CACHE_LIMIT = 4096
_INT_ONLY = frozenset({int})
_ROW_KINDS = frozenset({"INSERT", "UPDATE", "DELETE"})
#: What a parser raises on bad text, or on a JSON value that is not a string at all.
_BAD_TEXT = (TypeError, ValueError, AttributeError)


@dataclass(frozen=True, slots=True)
class ColumnReading:
    """How to rebuild one column of a table schema from its value text."""

    type: ColumnType
    flags: ColumnFlag
    parse: Optional[Parser]
    mysql_type: Optional[str]


@dataclass(frozen=True, slots=True)
class TableReading:
    """How to rebuild the columns of one checked (mysqlType, sqlType, pkNames, key-only) combination.

    ``columns`` serves images in any order or with columns left out (an update's
    ``old`` with only-output-updated-columns); the position-wise tuples serve the
    usual image, which names the columns of ``mysqlType`` in its order.
    ``parsers`` holds ``str.__str__`` for text columns: it returns a ``str`` as it
    is and, like every value parser, raises for any other JSON value, so one call
    per value both checks and converts it.
    """

    columns: dict[str, ColumnReading]
    names: list[str]
    types: tuple[ColumnType, ...]
    flags: tuple[ColumnFlag, ...]
    parsers: tuple[Parser, ...]
    mysql_types: tuple[Optional[str], ...]
    shape: ImageShape  # the usual image's columns without values, for the columnar path
    table_schema: Optional[TableSchema] = None  # what mysqlType, sqlType and pkNames say of the table

    @classmethod
    def of(cls, columns: dict[str, ColumnReading], table_schema: Optional[TableSchema] = None) -> TableReading:
        readings = columns.values()
        names = list(columns)
        types = tuple(r.type for r in readings)
        flags = tuple(r.flags for r in readings)
        mysql_types = tuple(r.mysql_type for r in readings)
        return cls(
            columns=columns,
            names=names,
            types=types,
            flags=flags,
            parsers=tuple(str.__str__ if r.parse is None else r.parse for r in readings),  # type: ignore[misc]
            mysql_types=mysql_types,
            shape=ImageShape.of(names, types, flags, mysql_types),
            table_schema=table_schema,
        )


@dataclass(frozen=True, slots=True)
class _CheckedTable:
    """The per-table parts of a table's last message that passed the full check, and their reading."""

    mysql_types: dict[str, str]
    pk_names: Optional[list[str]]
    reading: TableReading


def _reject_constant(name: str) -> Any:
    raise ValueError(f"JSON does not allow {name}")


_JSON = json.JSONDecoder(parse_constant=_reject_constant)


class _Fields:
    """Checked access to the top-level fields of one message; errors point into ``raw``, the
    text that ``part`` names (the value, the decompressed value, or a claim-checked one)."""

    __slots__ = ("doc", "raw", "part")

    def __init__(self, doc: dict[str, Any], raw: bytes, part: str = "value") -> None:
        self.doc = doc
        self.raw = raw
        self.part = part

    def fail(self, field: str, reason: str) -> DecodeError:
        head = field.split("[", 1)[0].split(".", 1)[0]
        at = self.raw.find(b'"' + head.encode("utf-8", "replace") + b'"')
        return DecodeError(f"canal-json field {field!r} {reason}", at if at >= 0 else None, self.part)

    def get(self, name: str, kind: type | tuple[type, ...], what: str) -> Any:
        value = self.doc[name]
        if not isinstance(value, kind) or (value.__class__ is bool and kind is int):
            raise self.fail(name, f"must be {what}, got {_json_kind(value)}")
        return value

    def uint(self, name: str, value: Any, limit: int = _U64_LIMIT) -> int:
        if value.__class__ is not int or not 0 <= value < limit:
            shown = _short(self.as_written(name.split("."), value))
            raise self.fail(name, f"must be an unsigned integer below 2^{limit.bit_length() - 1}, got {shown}")
        return value

    def signed(self, name: str, value: Any, bits: int, path: Optional[list[str]] = None) -> int:
        """``value`` when it is an integer of ``bits`` bits (two's complement), else the error
        naming the field and the number as the message writes it."""
        half = 1 << (bits - 1)
        if value.__class__ is not int or not -half <= value < half:
            number = value.__class__ in (int, float)
            shown = _short(self.as_written(path or name.split("."), value)) if number else _json_kind(value)
            raise self.fail(name, f"must be an integer from -2^{bits - 1} to 2^{bits - 1}-1, got {shown}")
        return value

    def as_written(self, path: list[str], value: Any) -> Any:
        """The value at ``path`` as the message's text writes it, for an error: orjson reads an
        integer past 64 bits as a float (18446744073709551616 as 1.8446744073709552e+19), the
        standard library keeps it whole. Only errors pay for the second parse."""
        if value.__class__ is not float:
            return value
        try:
            found: Any = _JSON.decode(self.raw.decode("utf-8"))
            for key in path:
                found = found[key]
        except (ValueError, KeyError, TypeError, IndexError, RecursionError):
            return value
        return found


class CanalJSONDecoder:
    """Decodes canal-json messages.

    ``exact_commit_ts`` is True only when the sink has ``enable-tidb-extension``:
    then a ``_tidb`` block must carry ``commitTs``. A message without it gets
    ``commit_ts = es << 18`` (the commit's physical milliseconds, logical part zero),
    which orders events but is not the TSO: every message of a sink without the
    extension, and a message with no ``_tidb`` block at all on one with it (as a
    changefeed that ran without the extension wrote it), which is read, not refused.
    Messages as older TiCDC releases wrote them (``"old":[null]`` on inserts, ``old``
    repeating ``data`` on deletes) read as the reference reads them.
    """

    def __init__(self, options: CanalOptions) -> None:
        self.options = options
        self.exact_commit_ts = options.tidb_extension
        self._tables: BoundedCache[tuple[str, str, bool], _CheckedTable] = BoundedCache(_PLAN_CACHE_LIMIT)
        self._compression = options.large.compression
        self._store: Optional[ClaimCheckStore] = None  # opened at the first claim-checked message

    def decode_into(self, message: Message, batch: EventBatch) -> int:
        """The columnar twin of :meth:`decode`: a row message whose images name ``mysqlType``'s
        columns in order is appended as shapes and values (decompressed first, a claim-checked
        one once fetched); any other message (a key-only row among them) is decoded as
        events and appended."""
        header = self._header(message)
        fields, tidb, es, is_ddl, kind = header
        if not is_ddl and kind in _ROW_KINDS:
            row = self._row_values(fields, kind, tidb, self._commit_ts(fields, tidb, es))
            if row is not None:
                batch.append_row(*row)
                return 1
        events = self._events(*header)
        for event in events:
            batch.append(event)
        return len(events)

    def decode(self, message: Message) -> list[Event]:
        return self._events(*self._header(message))

    def _header(self, message: Message) -> tuple[_Fields, Optional[dict[str, Any]], int, bool, str]:
        """The checked top-level fields every message has: (fields, _tidb, es, isDdl, type); of
        the stored message when the message is a claim-check pointer."""
        raw = message.value
        if raw is None:
            raise DecodeError("canal-json message has no value", 0, "value")
        part = "value"
        if self._compression.enabled:
            raw, part = self._decompressed(raw, "value"), "decompressed value"
        header = self._checked_header(raw, part, bare_pointer_ok=True)
        tidb = header[1]
        if tidb is not None and "claimCheckLocation" in tidb:
            return self._claim_checked(header[0], tidb)
        return header

    def _checked_header(
        self, raw: bytes, part: str, bare_pointer_ok: bool = False
    ) -> tuple[_Fields, Optional[dict[str, Any]], int, bool, str]:
        fields = _Fields(_parse(raw, part), raw, part)
        doc = fields.doc
        if not doc.keys() >= _REQUIRED_SET:
            if bare_pointer_ok and _is_bare_pointer(doc):
                return fields, doc["_tidb"], 0, False, ""
            raise _missing(doc, part)
        for name in ("id", "ts"):
            value = doc[name]
            if value.__class__ is not int or not -_INT64_HALF <= value < _INT64_HALF:
                fields.signed(name, value, _INT64)  # raises the error
        es = fields.uint("es", doc["es"], _ES_LIMIT)
        is_ddl = fields.get("isDdl", bool, "true or false")
        kind = doc["type"]  # exact-class check first: a JSON string is a str (get() raises the error)
        if kind.__class__ is not str:
            fields.get("type", str, "a string")
        tidb = doc.get("_tidb")
        if tidb is not None and not isinstance(tidb, dict):
            raise fields.fail("_tidb", f"must be an object, got {_json_kind(tidb)}")
        return fields, tidb, es, is_ddl, kind

    def _decompressed(self, data: bytes, part: str) -> bytes:
        try:
            return self._compression.decompress(data)
        except DecompressionFailed as exc:
            raise DecodeError(f"canal-json {part} cannot be decompressed: {exc}", None, "value") from None

    # -- claim check ----------------------------------------------------------------------

    def _claim_checked(
        self, pointer: _Fields, tidb: dict[str, Any]
    ) -> tuple[_Fields, Optional[dict[str, Any]], int, bool, str]:
        """The header of the message a claim-check pointer stands for: fetched by the location's
        file name from the consumer's storage, decompressed, checked as any message, and
        checked to be the row the pointer names."""
        location = tidb["claimCheckLocation"]
        if location.__class__ is not str or not location:
            raise pointer.fail(
                "_tidb.claimCheckLocation", f"must be a non-empty string, got {_short(location)}"
            )
        shown = repr(location if len(location) <= 300 else location[:297] + "...")
        store = self._claim_check_store()
        if store is None:
            raise pointer.fail(
                "_tidb.claimCheckLocation",
                f"is set: the message is claim-checked (stored whole at {shown}); give the reader"
                " claim-check-storage-uri (the writer's storage, with claim-check-raw-value as the writer"
                " set it) to read it",
            )
        try:
            _, value = store.fetch(location)
        except ObjectMissing as exc:
            raise DecodeError(
                f"canal-json claim-checked message at {shown} is missing from the storage: {exc}",
                None, "value",
            ) from None
        except (StorageError, ValueError) as exc:  # ValueError: an object the store does not write
            raise DecodeError(
                f"canal-json claim-checked message at {shown} cannot be read: {exc}", None, "value"
            ) from None
        part = f"value stored at {shown}"
        if value is None:
            raise DecodeError(f"canal-json claim-checked message at {shown} holds no value", None, "value")
        if self._compression.enabled:
            value = self._decompressed(value, part)
        header = self._checked_header(value, part)
        stored, stored_tidb, _, is_ddl, kind = header
        if is_ddl or kind not in _ROW_KINDS:
            raise stored.fail(
                "type", f"of a claim-checked message must be INSERT, UPDATE or DELETE, got {_short(kind)}"
            )
        if stored_tidb is not None and "claimCheckLocation" in stored_tidb:
            raise stored.fail(
                "_tidb.claimCheckLocation", "is set in a claim-checked message: a pointer to a pointer"
            )
        pointed = pointer.doc
        if _is_bare_pointer(pointed):
            return header  # the pointer names no row to compare with
        not_it = "the stored message is not the one the pointer stands for"
        for name in ("database", "table", "type"):
            if stored.doc[name] != pointed[name]:
                said = f"{_short(stored.doc[name])}, but the pointer at {shown} says {_short(pointed[name])}"
                raise stored.fail(name, f"is {said}: {not_it}")
        if stored_tidb is None or stored_tidb.get("commitTs") != tidb.get("commitTs"):
            got = None if stored_tidb is None else stored_tidb.get("commitTs")
            said = f"{_short(got)}, but the pointer at {shown} says {_short(tidb.get('commitTs'))}"
            raise stored.fail("_tidb.commitTs", f"is {said}: {not_it}")
        return header

    def _claim_check_store(self) -> Optional[ClaimCheckStore]:
        if self._store is None:
            self._store = self.options.large.store()
        return self._store

    def _events(
        self, fields: _Fields, tidb: Optional[dict[str, Any]], es: int, is_ddl: bool, kind: str
    ) -> list[Event]:
        if is_ddl:
            return [self._ddl(fields, kind, self._commit_ts(fields, tidb, es))]
        if kind == WATERMARK:
            if tidb is None or "watermarkTs" not in tidb:
                raise fields.fail("_tidb", "of a TIDB_WATERMARK message must hold watermarkTs")
            return [ResolvedEvent(fields.uint("_tidb.watermarkTs", tidb["watermarkTs"]))]
        return [self._row(fields, kind, tidb, self._commit_ts(fields, tidb, es))]

    # -- timestamps -----------------------------------------------------------------------

    def _commit_ts(self, fields: _Fields, tidb: Optional[dict[str, Any]], es: int) -> int:
        if tidb is not None and "commitTs" in tidb:
            return fields.uint("_tidb.commitTs", tidb["commitTs"])
        if tidb is not None and self.options.tidb_extension:
            raise fields.fail("_tidb", "must hold commitTs: the sink has enable-tidb-extension=true")
        return es << 18  # no _tidb at all: a message written without the extension, read as such

    # -- DDL ------------------------------------------------------------------------------

    def _ddl(self, fields: _Fields, word: str, commit_ts: int) -> DDLEvent:
        if word not in DDL_WORDS:
            raise fields.fail("type", f"of a DDL message must be one of {', '.join(sorted(DDL_WORDS))}, got {_short(word)}")
        for name in ("data", "old"):
            if fields.doc[name] is not None:
                raise fields.fail(name, "must be null in a DDL message")
        query = fields.get("sql", str, "a string")
        return DDLEvent(
            commit_ts,
            fields.get("database", str, "a string"),
            fields.get("table", str, "a string"),
            query,
            ddl_type_from(word, query),
        )

    # -- rows -----------------------------------------------------------------------------

    def _row(self, fields: _Fields, kind: str, tidb: Optional[dict[str, Any]], commit_ts: int) -> RowChangedEvent:
        if kind not in ("INSERT", "UPDATE", "DELETE"):
            raise fields.fail("type", f"must be INSERT, UPDATE, DELETE or TIDB_WATERMARK, got {_short(kind)}")
        doc = fields.doc
        schema, table = doc["database"], doc["table"]
        if schema.__class__ is not str:
            fields.get("database", str, "a string")
        if table.__class__ is not str:
            fields.get("table", str, "a string")
        marked = False  # _tidb.onlyHandleKey: the row was cut to its handle key (too large whole)
        if tidb is not None and "onlyHandleKey" in tidb:
            marked = _bool(fields, tidb["onlyHandleKey"])
        only_key = marked or (kind == "DELETE" and self.options.delete_handle_key_only)
        reading = self._reading_for(fields, schema, table, only_key)
        data_image = _image(fields, "data")
        data = self._columns(fields, "data", data_image, reading)
        if kind == "UPDATE":
            old_image = _image(fields, "old")
            old_names = list(old_image)
            if old_names == reading.names and old_names == list(data_image):
                old = self._columns_like(fields, "old", old_image, reading, data_image, data)
            else:
                old = self._columns(fields, "old", old_image, reading)
                if old_names != list(data_image):  # else: the same columns in the same order
                    lacking = [name for name in old_names if name not in data_image]
                    if lacking:
                        raise fields.fail(
                            "data", f"lacks column {lacking[0]!r} that old has: an update's new image"
                            " holds every column of its old one"
                        )
                    old = _fill_unchanged(old, data)
            return build_row_event(commit_ts, schema, table, data, old, None, marked, reading.table_schema)
        old = doc["old"]
        if old is not None and not _old_written_by_older_ticdc(kind, old, doc["data"]):
            raise fields.fail("old", f"must be null in an {kind} message, got {_json_kind(old)}")
        if kind == "INSERT":
            return build_row_event(commit_ts, schema, table, data, None, None, marked, reading.table_schema)
        return build_row_event(commit_ts, schema, table, None, data, None, marked, reading.table_schema)

    def _row_values(
        self, fields: _Fields, kind: str, tidb: Optional[dict[str, Any]], commit_ts: int
    ) -> Optional[tuple[Any, ...]]:
        """:meth:`append_row`'s arguments for a row message as :meth:`_row` reads it, when its
        images name the reading's columns in order and every text reads; else None (the Event
        path then reads it, or words what is wrong with it)."""
        doc = fields.doc
        schema, table = doc["database"], doc["table"]
        if schema.__class__ is not str or table.__class__ is not str or (tidb is not None and "onlyHandleKey" in tidb):
            return None
        reading = self._reading_for(fields, schema, table, kind == "DELETE" and self.options.delete_handle_key_only)
        data = _image(fields, "data")
        if list(data) != reading.names:
            return None
        try:
            values = [None if t is None else parse(t) for parse, t in zip(reading.parsers, data.values())]
            if kind == "UPDATE":
                old = _image(fields, "old")
                if list(old) != reading.names:
                    return None
                old_values = [
                    None if t is None else parse(t) for parse, t in zip(reading.parsers, old.values())
                ]
                return "update", commit_ts, schema, table, (reading.shape, values), (reading.shape, old_values)
        except _BAD_TEXT:
            return None
        if doc["old"] is not None:
            return None
        if kind == "INSERT":
            return "insert", commit_ts, schema, table, (reading.shape, values), None
        return "delete", commit_ts, schema, table, None, (reading.shape, values)

    def _reading_for(self, fields: _Fields, schema: str, table: str, only_key: bool) -> TableReading:
        """The table's reading; its ``mysqlType``, ``sqlType`` and ``pkNames`` are checked in full
        only when they differ from the ones last checked for this table.

        The comparison is by value, so nothing the full check would reject gets through: the
        remembered ``mysqlType`` holds only strings and ``pkNames`` only strings, which equal
        nothing but the same strings; ``sqlType`` values vary per row (unsigned promotion), so
        they are checked here each time (exact ints of 32 bits: ``true`` and ``4.0`` equal 1 and 4).
        """
        doc = fields.doc
        mysql_types, sql_types, pk_names = doc["mysqlType"], doc["sqlType"], doc["pkNames"]
        key = (schema, table, only_key)
        known = self._tables.get(key)
        if (
            known is not None
            and mysql_types == known.mysql_types
            and pk_names == known.pk_names
            and sql_types.__class__ is dict
            and sql_types.keys() == mysql_types.keys()
            and _INT_ONLY.issuperset(map(type, sql_types.values()))
            and (not sql_types or (-_INT32_HALF <= min(sql_types.values()) and max(sql_types.values()) < _INT32_HALF))
        ):
            return known.reading
        readings = self._build_readings(fields, mysql_types, sql_types, pk_names, only_key)
        reading = TableReading.of(readings, None if only_key else _table_schema(schema, table, mysql_types, readings))
        if mysql_types.__class__ is dict:  # a null mysqlType (no columns) is checked every time
            self._tables.remember(key, _CheckedTable(mysql_types, pk_names, reading))
        return reading

    def _build_readings(
        self, fields: _Fields, mysql_types: Any, sql_types: Any, pk_names: Any, only_key: bool
    ) -> dict[str, ColumnReading]:
        """Check ``mysqlType``, ``sqlType`` and ``pkNames`` in full; raises naming the first bad entry."""
        if mysql_types is None:
            mysql_types = {}
        elif not isinstance(mysql_types, dict):
            raise fields.fail("mysqlType", f"must be an object, got {_json_kind(mysql_types)}")
        if sql_types is None:
            sql_types = {}
        elif not isinstance(sql_types, dict):
            raise fields.fail("sqlType", f"must be an object, got {_json_kind(sql_types)}")
        if sql_types.keys() != mysql_types.keys():
            raise fields.fail("sqlType", "must name the same columns as mysqlType")
        for name, code in sql_types.items():
            fields.signed(f"sqlType.{name}", code, _INT32, ["sqlType", name])
        if pk_names is None:
            pk_names = ()
        elif not isinstance(pk_names, list) or not all(isinstance(n, str) for n in pk_names):
            raise fields.fail("pkNames", "must be a list of column names or null")
        keep_text = self.options.content_compatible
        readings: dict[str, ColumnReading] = {}
        for name, text in mysql_types.items():
            if not isinstance(text, str):
                raise fields.fail(f"mysqlType.{name}", f"must be a string, got {_json_kind(text)}")
            try:
                shape = shape_of(text)
            except ValueError as exc:
                raise fields.fail(f"mysqlType.{name}", str(exc)) from None
            problem = type_text_problem(text)
            if problem is not None:
                raise fields.fail(f"mysqlType.{name}", problem)
            flags = shape.flags
            if name in pk_names:
                flags |= _KEY
            if only_key:
                flags |= _HANDLE
            readings[name] = ColumnReading(shape.type, flags, shape.parse, text if keep_text else None)
        return readings

    def _columns(
        self, fields: _Fields, field: str, image: dict[str, Any], reading: TableReading
    ) -> tuple[Column, ...]:
        """The columns of an image. The usual one names ``mysqlType``'s columns in its order:
        its values are parsed in one comprehension and its columns built in one ``map``."""
        if list(image) != reading.names:
            return self._some_columns(fields, field, image, reading)
        try:
            values = [None if t is None else parse(t) for parse, t in zip(reading.parsers, image.values())]
        except _BAD_TEXT:
            raise self._column_error(fields, field, image, reading.columns) from None
        return tuple(
            map(build_column, reading.names, reading.types, reading.flags, values, reading.mysql_types)
        )

    def _columns_like(
        self,
        fields: _Fields,
        field: str,
        image: dict[str, Any],
        reading: TableReading,
        like_image: dict[str, Any],
        like: tuple[Column, ...],
    ) -> tuple[Column, ...]:
        """An update's old image, both images naming ``mysqlType``'s columns in its order.

        A column whose text equals the new image's is that image's Column (the same text
        reads as the same value; a text the new image read without error is valid): most
        updates change a few columns, and comparing a text costs far less than reading it.
        """
        try:
            return tuple([
                same if text == like_text else build_column(
                    name, type_, flags, None if text is None else parse(text), mysql_type
                )
                for same, text, like_text, name, type_, flags, parse, mysql_type in zip(
                    like, image.values(), like_image.values(), reading.names, reading.types, reading.flags,
                    reading.parsers, reading.mysql_types,
                )
            ])
        except _BAD_TEXT:
            raise self._column_error(fields, field, image, reading.columns) from None

    def _some_columns(
        self, fields: _Fields, field: str, image: dict[str, Any], reading: TableReading
    ) -> tuple[Column, ...]:
        """An image whose columns differ from ``mysqlType``'s: left out, reordered or unknown."""
        readings = reading.columns
        out = []
        try:
            for name, text in image.items():
                r = readings[name]
                if text is not None:
                    if text.__class__ is not str:
                        raise TypeError
                    if r.parse is not None:
                        text = r.parse(text)
                out.append(build_column(name, r.type, r.flags, text, r.mysql_type))
        except (KeyError, TypeError, ValueError):
            raise self._column_error(fields, field, image, readings) from None
        return tuple(out)

    @staticmethod
    def _column_error(
        fields: _Fields, field: str, image: dict[str, Any], readings: dict[str, ColumnReading]
    ) -> DecodeError:
        """Find the column that failed the fast loop and say what is wrong with it."""
        for name, text in image.items():
            where = f"{field}[0].{name}"
            reading = readings.get(name)
            if reading is None:
                return fields.fail(where, "has no mysqlType entry")
            if text is None:
                continue
            if text.__class__ is not str:
                return fields.fail(where, f"must be a string or null, got {_json_kind(text)}")
            if reading.parse is not None:
                try:
                    reading.parse(text)
                except ValueError as exc:
                    return fields.fail(where, f"is not a {reading.type.name} value: {exc}")
        return fields.fail(field, "could not be read")


def _table_schema(
    schema: str, table: str, mysql_types: Any, readings: dict[str, ColumnReading]
) -> Optional[TableSchema]:
    """The table schema a message's ``mysqlType`` and ``pkNames`` say: each column's type and
    flags as read, its ``mysqlType`` as its type text, the primary key as the one index. None
    for a message without columns."""
    if not readings:
        return None
    columns = tuple(Column(n, r.type, r.flags, None, mysql_types[n]) for n, r in readings.items())
    return derive_table_schema(schema, table, columns)


def _image(fields: _Fields, field: str) -> dict[str, Any]:
    """The one object of ``data`` or ``old``."""
    images = fields.doc[field]
    if not isinstance(images, list) or len(images) != 1 or not isinstance(images[0], dict):
        raise fields.fail(field, f"must be a list of one object, got {_short_json(images)}")
    return images[0]


def _fill_unchanged(old: tuple[Column, ...], new: tuple[Column, ...]) -> tuple[Column, ...]:
    """The whole old image, in the new one's order: columns the message left out (unchanged) are
    taken from the new one (the caller refused an old image naming a column the new one lacks)."""
    if len(old) == len(new) and all(o.name == n.name for o, n in zip(old, new)):
        return old
    by_name = {c.name: c for c in old}
    return tuple([by_name.get(c.name, c) for c in new])


def _is_bare_pointer(doc: dict[str, Any]) -> bool:
    """A claim-check pointer as TiCDC 7.x wrote it (``NewClaimCheckMessage``): ``_tidb`` with the
    location and no other field. Current releases send the row's handle-key columns beside it."""
    tidb = doc.get("_tidb")
    return len(doc) == 1 and tidb.__class__ is dict and "claimCheckLocation" in tidb


def _missing(doc: dict[str, Any], part: str) -> DecodeError:
    """The error for the first required field (in the reference order) the message lacks."""
    name = next(name for name in _REQUIRED if name not in doc)
    return DecodeError(f"canal-json field {name!r} is missing", None, part)


def _bool(fields: _Fields, value: Any) -> bool:
    if value.__class__ is not bool:
        raise fields.fail("_tidb.onlyHandleKey", f"must be true or false, got {_json_kind(value)}")
    return value


def _parse(raw: bytes, part: str) -> dict[str, Any]:
    """The message's JSON object. orjson parses (about three times the standard library's
    speed); what it refuses is parsed again by the standard library, which names what is
    wrong and at which byte, or reads the few texts orjson is stricter about (an escaped
    lone surrogate, refused later as text UTF-8 cannot carry)."""
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        doc = _parse_with_stdlib(raw, part)
    if doc.__class__ is not dict:
        raise DecodeError(f"canal-json {part} must be a JSON object, got {_json_kind(doc)}", 0, part)
    return doc


def _parse_with_stdlib(raw: bytes, part: str) -> Any:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(f"canal-json {part} is not UTF-8 ({exc.reason})", exc.start, part) from None
    try:
        if text.startswith("\ufeff"):  # what json.loads checks before its decoder runs
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        doc = _JSON.decode(text)
    except json.JSONDecodeError as exc:
        offset = len(text[: exc.pos].encode("utf-8"))
        raise DecodeError(f"canal-json {part} is not valid JSON: {exc.msg}", offset, part) from None
    except ValueError as exc:  # NaN / Infinity literals
        raise DecodeError(f"canal-json {part} is not valid JSON: {exc}", None, part) from None
    except RecursionError:
        raise DecodeError(f"canal-json {part} nests too deeply", None, part) from None
    return doc


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _short_json(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {len(value)}" + ("" if not value else f" whose first is {_json_kind(value[0])}")
    return _json_kind(value)


def _old_written_by_older_ticdc(kind: str, old: Any, data: Any) -> bool:
    """Older TiCDC releases (the spec's examples) wrote ``"old":[null]`` on inserts and deletes
    and ``old`` equal to ``data`` on deletes; those messages read as the reference reads them."""
    return old == [None] or (kind == "DELETE" and old == data)
