"""The simple decoder, stateful as TiCDC's: table schemas by ``(schema, table, version)``
from DDL and BOOTSTRAP messages; a row whose schema has not arrived yet is parked and given
back, in arrival order, by the message that brings its schema.

So a reader that starts in the middle of a stream (TiCDC docs, "scenario 2") gets its rows
once a BOOTSTRAP of their table arrives. A BOOTSTRAP is no event of its own: ``decode``
returns the rows it releases (often none). A DDL gives its DDL event, with the rows it
releases: those of the schema before it ahead of the DDL, those of its new schema after.

Rows a stream never gives the schema of stay parked; past ``PARKED_LIMIT`` rows the decoder
refuses with a DecodeError saying which table's schema is missing, so a reader that can
never type them stops instead of holding them all. At the end of a bounded read the core
calls ``finish``, which refuses rows still parked the same way (naming the first one's
message), so they are never dropped silently.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from cdcwire.plugin_api import (
    BoundedCache,
    ClaimCheckStore,
    Column,
    DDLEvent,
    DecodeError,
    DecompressionFailed,
    Event,
    FinishingDecoder,
    HeldRowsRefused,
    Message,
    ObjectMissing,
    ResolvedEvent,
    RowChangedEvent,
    StorageError,
    TableSchema as EventTableSchema,
    build_column,
    build_row_event,
)

from .ddl_kinds import DDL_KINDS, ddl_type_of
from .encoder import format_of
from .options import SimpleOptions
from .table_schema import (
    ReadColumn,
    SchemaError,
    TableSchema,
    event_schema_of,
    read_columns,
    table_schema_from_wire,
)

_U64_LIMIT = 1 << 64
#: The most rows held waiting for their schema.
PARKED_LIMIT = 100_000
_ROW_TYPES = ("INSERT", "UPDATE", "DELETE")

#: A column as a reader rebuilds it, with the function that reads its values.
Reader = tuple[ReadColumn, Callable[[Any], Any]]
#: What the decoder keeps of a table schema: as read, its column readers, and the event model's
#: schema its rows and DDL carry (rows of one version share the one object).
Known = tuple[TableSchema, tuple[Reader, ...], Optional[EventTableSchema]]


class SimpleDecoder(FinishingDecoder):
    """Decodes the simple messages of one reader; table schemas and parked rows are its state."""

    def __init__(self, options: SimpleOptions) -> None:
        self.options = options
        self._format = format_of(options)
        self._tables: BoundedCache[tuple[str, str, int], Known] = (
            BoundedCache(65536)
        )
        self._parked: dict[tuple[str, str, int], list[tuple[dict[str, Any], Message]]] = {}
        self._refused: list[tuple[Message, DecodeError]] = []  # released rows of this message that failed
        self._parked_count = 0
        self._first_parked: dict[tuple[str, str, int], str] = {}  # where each table's first parked row was
        self._store: Optional[ClaimCheckStore] = None  # opened at the first claim-checked row

    @property
    def parked(self) -> int:
        """How many rows wait for their table schema."""
        return self._parked_count

    # -- the message object --------------------------------------------------------------

    def _message(self, message: Message) -> dict[str, Any]:
        if message.value is None:
            raise DecodeError("simple message has no value", part="value")
        return self._object(message.value, "value")

    def _object(self, data: bytes, part: str) -> dict[str, Any]:
        """The message object of a value (the message's, or one fetched from claim-check storage)."""
        compression = self.options.large.compression
        if compression.enabled:
            try:
                data = compression.decompress(data)
            except DecompressionFailed as exc:
                raise DecodeError(
                    f"simple {part} does not decompress with {compression.name}: {exc}", part="value"
                ) from None
        try:
            obj = self._format.loads(data)
        except (ValueError, EOFError, IndexError, TypeError, KeyError, OverflowError) as exc:
            raise DecodeError(
                f"simple {part} is not a {self._format.name} message: {str(exc)[:120]}", part="value"
            ) from None
        if not isinstance(obj, dict):
            raise DecodeError(f"simple {part} is not a {self._format.name} message object", part="value")
        return obj

    def decode(self, message: Message) -> list[Event]:
        """The message's events; rows it releases that do not decode are refused each at its own
        message (:class:`HeldRowsRefused`), the others given."""
        self._refused = []
        events = self._decode(message)
        if self._refused:
            refused, self._refused = self._refused, []
            raise HeldRowsRefused(events, refused)
        return events

    def _decode(self, message: Message) -> list[Event]:
        obj = self._message(message)
        if "claimCheckLocation" in obj:
            obj = self._claim_checked(obj["claimCheckLocation"])
        kind = obj.get("type")
        if kind is not None and not isinstance(kind, str):
            raise DecodeError(f"simple type must be a string, got {str(kind)[:40]!r}", part="value")
        if "data" in obj or "old" in obj or kind in _ROW_TYPES:
            return self._row_or_park(obj, message)
        commit_ts = obj.get("commitTs")
        if commit_ts.__class__ is not int or not 0 <= commit_ts < _U64_LIMIT:
            raise DecodeError(f"simple commitTs {str(commit_ts)[:40]!r} is not an unsigned 64-bit integer",
                              part="value")
        if kind == "WATERMARK":
            return [ResolvedEvent(commit_ts)]
        if kind == "BOOTSTRAP":
            schema = self._schema(obj, "tableSchema")
            if schema is None:
                raise DecodeError("simple BOOTSTRAP has no tableSchema", part="value")
            return self._learn(schema)
        if kind in DDL_KINDS:
            return self._ddl(obj, kind, commit_ts)
        raise DecodeError(
            f"simple type {str(kind)[:40]!r} is none of INSERT, UPDATE, DELETE, WATERMARK, BOOTSTRAP"
            f" or a DDL type ({', '.join(sorted(DDL_KINDS))})", part="value",
        )

    def _claim_checked(self, location: Any) -> dict[str, Any]:
        """The row message a claim-check pointer stands for, fetched by the location's file name
        from the reader's own claim-check storage (never by following the location)."""
        if not isinstance(location, str) or not location:
            raise DecodeError("simple claimCheckLocation must be a non-empty string", part="value")
        shown = repr(location if len(location) <= 300 else location[:297] + "...")
        if self._store is None:
            self._store = self.options.large.store()
        if self._store is None:
            raise DecodeError(
                f"simple row is claim-checked (stored whole at {shown})", part="value",
                hint="give the reader claim-check-storage-uri (the writer's storage, and claim-check-raw-value"
                     " as the writer set it) to read it",
            )
        try:
            _, value = self._store.fetch(location)
        except ObjectMissing as exc:
            raise DecodeError(f"simple claim-checked row at {shown} is missing from the storage: {exc}",
                              part="value") from None
        except (StorageError, ValueError) as exc:
            raise DecodeError(f"simple claim-checked row at {shown} cannot be read: {exc}", part="value") from None
        if value is None:
            raise DecodeError(f"simple claim-checked row at {shown} holds no value", part="value")
        stored = self._object(value, f"value stored at {shown}")
        if stored.get("type") not in _ROW_TYPES or "claimCheckLocation" in stored:
            raise DecodeError(
                f"simple message stored at {shown} is not a row (a pointer must stand for a row message)",
                part="value",
            )
        return stored

    # -- schemas -------------------------------------------------------------------------

    def _schema(self, obj: dict[str, Any], field: str) -> Optional[TableSchema]:
        raw = obj.get(field)
        if raw is None:
            return None
        try:
            return table_schema_from_wire(raw, field)
        except SchemaError as exc:
            raise DecodeError(f"simple {exc}", part="value") from None

    def _learn(self, schema: TableSchema) -> list[Event]:
        """Keep a table schema (a schema with no columns never replaces one with columns: the
        encoder writes a DDL's schema with the columns it knows, maybe none) and give back the
        rows that waited for it."""
        if not schema.table:
            return []
        key = schema.key
        known = self._tables.get(key)
        if known is not None and not schema.columns and known[0].columns:
            return []
        readers = tuple((c, self._format.reader(c.type, c.flags)) for c in read_columns(schema))
        known = self._tables.remember(key, (schema, readers, event_schema_of(schema)))
        if not schema.columns or key not in self._parked:
            return []
        waiting = self._parked.pop(key)
        del self._first_parked[key]
        self._parked_count -= len(waiting)
        out: list[Event] = []
        for obj, parked_at in waiting:  # each decided on its own: one bad row loses no other
            try:
                out.append(self._row(obj, known))
            except DecodeError as exc:
                self._refused.append((parked_at, exc))
        return out

    def _ddl(self, obj: dict[str, Any], kind: str, commit_ts: int) -> list[Event]:
        sql = obj.get("sql", "")
        if not isinstance(sql, str):
            raise DecodeError("simple DDL sql must be a string", part="value")
        after = self._schema(obj, "tableSchema")
        before = self._schema(obj, "preTableSchema")
        named = after or before
        event = DDLEvent(commit_ts, named.schema if named else "", named.table if named else "", sql,
                         ddl_type_of(sql, kind), after and event_schema_of(after), before and event_schema_of(before))
        out: list[Event] = self._learn(before) if before is not None else []
        out.append(event)
        if after is not None:
            out.extend(self._learn(after))
        return out

    # -- rows ----------------------------------------------------------------------------

    def finish(self) -> list[Event]:
        """The end of a bounded read: rows still parked never got their table schema, so they
        are refused (a DecodeError naming the first such table, its rows and where the first one
        was), not dropped. A decoder that parks nothing gives nothing."""
        if not self._parked_count:
            return []
        key = next(iter(self._parked))
        db, table, version = key
        others = f" (and {self._parked_count - len(self._parked[key])} of other tables)" \
            if len(self._parked) > 1 else ""
        raise DecodeError(
            f"simple: the read ended with {len(self._parked[key])} rows of {db}.{table} schema version"
            f" {version}{others} never typed: no DDL or BOOTSTRAP message of that table came (the first"
            f" row at {self._first_parked[key]})",
            hint="read from an offset before a BOOTSTRAP of that table, or have the producer send bootstraps"
                 " more often (send-bootstrap-in-msg-count, send-bootstrap-interval-in-sec)",
        )

    def _row_or_park(self, obj: dict[str, Any], message: Message) -> list[Event]:
        db, table, version = obj.get("database"), obj.get("table"), obj.get("schemaVersion", 0)
        if not isinstance(db, str) or not isinstance(table, str):
            raise DecodeError("simple row message needs string database and table", part="value")
        if version.__class__ is not int or not 0 <= version < _U64_LIMIT:
            raise DecodeError(f"simple schemaVersion {str(version)[:40]!r} is not an unsigned 64-bit integer",
                              part="value")
        key = (db, table, version)
        known = self._tables.get(key)
        if known is not None and known[0].columns:
            return [self._row(obj, known)]
        self._check_row_fields(obj)
        if self._parked_count >= PARKED_LIMIT:
            raise DecodeError(
                f"simple: {self._parked_count} rows wait for table schemas no message has brought (this one:"
                f" {db}.{table} version {version})", part="value",
                hint="read the topic from a point before the tables' DDL, or have the writer send BOOTSTRAP"
                     " messages (send-bootstrap-interval-in-sec and send-bootstrap-in-msg-count > 0)",
            )
        if key not in self._parked:
            self._first_parked[key] = message.location()
        self._parked.setdefault(key, []).append((obj, message))
        self._parked_count += 1
        return []

    @staticmethod
    def _check_row_fields(obj: dict[str, Any]) -> None:
        """What can be checked of a row before its schema is known: it fails now, not when released."""
        kind = obj.get("type")
        if kind not in _ROW_TYPES:
            raise DecodeError(f"simple row type {str(kind)[:40]!r} is not INSERT, UPDATE or DELETE", part="value")
        ts = obj.get("commitTs")
        if ts.__class__ is not int or not 0 <= ts < _U64_LIMIT:
            raise DecodeError(f"simple commitTs {str(ts)[:40]!r} is not an unsigned 64-bit integer", part="value")
        need = {"INSERT": ("data",), "UPDATE": ("data", "old"), "DELETE": ("old",)}[kind]
        for field in need:
            if not isinstance(obj.get(field), dict):
                raise DecodeError(f"simple {kind} needs an object {field!r}", part="value")

    def _row(self, obj: dict[str, Any], known: Known) -> RowChangedEvent:
        self._check_row_fields(obj)
        readers = known[1]
        kind = obj["type"]
        table_id = obj.get("tableID") or None
        if table_id is not None and (table_id.__class__ is not int or not 0 < table_id < 1 << 63):
            raise DecodeError(f"simple tableID {str(table_id)[:40]!r} is not a positive integer", part="value")
        data = self._image(obj["data"], readers, "data", None) if kind != "DELETE" else None
        old = self._image(obj["old"], readers, "old", obj["data"] if kind == "UPDATE" else None) \
            if kind != "INSERT" else None
        return build_row_event(
            obj["commitTs"], obj["database"], obj["table"], data, old, table_id, obj.get("handleKeyOnly") is True,
            known[2],
        )

    @staticmethod
    def _image(
        values: dict[str, Any], readers: tuple[Reader, ...], which: str, fill: Optional[dict[str, Any]]
    ) -> tuple[Column, ...]:
        """The columns of ``values`` in the schema's order; an UPDATE's ``old`` takes a column it
        lacks from ``data`` (TiCDC: payloads that carry only the updated columns)."""
        unknown = values.keys() - {c.name for c, _ in readers}
        if unknown:
            raise DecodeError(
                f"simple {which} has columns its table schema has not: {sorted(unknown)[:5]}", part="value"
            )
        cols = []
        for col, read in readers:
            if col.name in values:
                raw = values[col.name]
            elif fill is not None and col.name in fill:
                raw = fill[col.name]
            else:
                continue  # a virtual generated column, or one a column selector left out
            if raw is None:
                value = None
            else:
                try:
                    value = read(raw)
                except ValueError as exc:
                    raise DecodeError(f"simple {which}.{col.name}: {exc}", part="value") from None
            cols.append(build_column(col.name, col.type, col.flags, value, col.mysql_type))
        if not cols:
            raise DecodeError(f"simple {which} has no column of its table schema", part="value")
        return tuple(cols)
