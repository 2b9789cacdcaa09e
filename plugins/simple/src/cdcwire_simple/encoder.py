"""The simple encoder: one message per row, DDL and watermark, no Kafka key, and BOOTSTRAP
messages carrying a table's schema.

A row refers to its table schema by ``schemaVersion``; a reader types the row with the
schema of that version, from a DDL or BOOTSTRAP message. The encoder keeps, per table, the
schema its events carried (``table_schema``, from a reader that knew it) or, where they carry
none, the one derived from the table's rows (:mod:`.table_schema`), and when it was last sent:

- a row whose columns match the table's schema uses its version; a DDL gives the table a
  new version (its commit ts, TiDB's table UpdateTS) with the columns known so far;
- a row of columns not seen before (the table's first, or a new shape after a DDL) gets a
  new version, its commit ts (or one past the table's last version, so a version never
  names two schemas), and a BOOTSTRAP is sent before it;
- to every partition, as TiCDC's bootstrap worker: the dispatcher gives each partition of the
  table's topic (partition 0 only with ``send-bootstrap-to-all-partition=false``) the
  announcement of the table's first row (:class:`TableAnnouncement`, ``announce_tables`` in
  the codec's policy); an encoder that has not described the table so sends its BOOTSTRAP
  then, and the row's own encoder sends none again before the row;
- re-sending, as TiCDC's bootstrap worker: after ``send-bootstrap-in-msg-count`` rows of the
  table or ``send-bootstrap-interval-in-sec`` seconds since the last, before the next row
  (both > 0; with ``send-bootstrap-to-all-partition=false`` only partition 0 re-sends).

``buildTs`` is the wall clock when a message is built; ``clock`` replaces it (tests).
A BOOTSTRAP carries no event: its payload counts 0.

A row over ``max-message-bytes`` (after compression, which applies to every message) is,
as TiCDC's encoder does: refused with ``large-message-handle-option=none``; sent with its
handle-key columns only and ``handleKeyOnly`` under ``handle-key-only``; stored whole in the
claim-check storage under ``claim-check`` and sent as its handle-key columns with
``handleKeyOnly`` and ``claimCheckLocation`` (the pointer waits until the object is stored).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Optional

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    ClaimCheckStore,
    Column,
    ColumnFlag,
    Columns,
    ColumnType,
    DDLEvent,
    EncodeError,
    Event,
    MessageTooLargeError,
    Payload,
    PointerPayload,
    ResolvedEvent,
    RowChangedEvent,
    TableAnnouncement,
    in_order_once_stored,
)

from .ddl_kinds import ddl_kind
from .json_format import JsonFormat
from .options import SimpleOptions
from .table_schema import TableSchema, row_columns, table_schema_of, wire_schema

_U64_LIMIT = 1 << 64


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def format_of(options: SimpleOptions) -> Any:
    """The message format of ``encoding-format``."""
    if options.encoding_format == "avro":
        from .avro_format import AvroFormat  # fastavro: only for sinks that ask for avro

        return AvroFormat(options.time_zone)
    return JsonFormat(options.time_zone)


@dataclass(slots=True)
class _Table:
    """What the encoder knows of one table."""

    schema: TableSchema
    shape: Optional[tuple]  # the columns the schema was derived from; None: none known
    sent_ms: Optional[int] = None  # when its schema was last sent (a BOOTSTRAP or a DDL)
    rows_since: int = 0


def _shape(columns: Columns) -> tuple:
    return tuple((c.name, c.type, c.flags, c.mysql_type) for c in columns)


class SimpleEncoder:
    """Encodes the events of one topic-partition."""

    def __init__(
        self, options: SimpleOptions, partition: int = 0, clock: Optional[Callable[[], int]] = None
    ) -> None:
        self.options = options
        self._clock = now_ms if clock is None else clock
        self._format = format_of(options)
        self._compress = options.large.compression.compress if options.large.compression.enabled else None
        self._resends = options.resends_bootstrap and (options.bootstrap_to_all_partitions or partition == 0)
        self._tables: dict[tuple[str, str], _Table] = {}
        self._store: Optional[ClaimCheckStore] = None  # opened at the first row to claim-check
        self._upload: Any = None  # the upload of the object of the pointer being made

    # -- the table schemas ----------------------------------------------------------------

    def know(self, schema: TableSchema) -> None:
        """Take ``schema`` as its table's current schema, as if a DDL had given it: rows whose
        columns derive to it carry its version. Nothing is sent."""
        self._tables[(schema.schema, schema.table)] = _Table(schema, None, self._clock())

    def _schema_for(self, row: RowChangedEvent, counting: bool = True) -> tuple[TableSchema, bool]:
        """The table schema of a row, and whether a BOOTSTRAP must go before it. ``counting``
        False (an announcement, not a row): a schema already described needs none again."""
        key = (row.schema, row.table)
        table = self._tables.get(key)
        image = row_columns(row.columns, row.pre_columns)
        shape = _shape(image)
        if table is not None and table.shape is None and table.schema.columns:
            derived = self._derived(row, image, table.schema.version)
            if (derived.columns, derived.indexes) == (table.schema.columns, table.schema.indexes):
                table.shape = shape  # a schema given by know() or a DDL, first met by a row
        if table is not None and table.shape == shape:
            if not counting:
                return table.schema, False
            table.rows_since += 1
            due = self._resends and (
                table.rows_since >= self.options.bootstrap_msg_count
                or table.sent_ms is None
                or self._clock() - table.sent_ms >= self.options.bootstrap_interval_s * 1000
            )
            return table.schema, due
        version = row.commit_ts if table is None else max(row.commit_ts, table.schema.version + 1)
        schema = self._derived(row, image, version)
        self._tables[key] = _Table(schema, shape)
        return schema, True

    def adopt_handed_state(self, state: str) -> None:
        """Continue where the Java encoder stopped (plugin API 1.18): take each table's state as
        ``SimpleBatchEncoder.handOver`` gives it (version, the shape its schema was derived from,
        when it was last sent, rows since), in place of this encoder's. The schema is derived from
        the shape as a row of those columns derives it here, so it is the one Java wrote."""
        tables: dict[tuple[str, str], _Table] = {}
        for t in json.loads(state):
            if t["shape"] is None:  # a DDL's table no row has given: no columns known
                schema, shape = TableSchema(t["schema"], t["table"], t["table_id"], t["version"]), None
            else:
                columns = tuple(Column(name, ColumnType[ctype], ColumnFlag(flags), None, mysql_type)
                                for name, ctype, flags, mysql_type in t["shape"])
                schema = table_schema_of(t["schema"], t["table"], t["table_id"], t["version"], columns)
                shape = _shape(columns)
            tables[(t["schema"], t["table"])] = _Table(schema, shape, t["sent_ms"], t["rows_since"])
        self._tables = tables

    @staticmethod
    def _derived(row: RowChangedEvent, image: Columns, version: int) -> TableSchema:
        """The row's schema: the one it carries (with its own version when it has one), else
        derived from its columns."""
        if row.table_schema is not None:
            return wire_schema(row.table_schema, row.table_schema.version or version)
        return table_schema_of(row.schema, row.table, row.table_id or 0, version, image)

    # -- encoding ------------------------------------------------------------------------

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        payloads = (p for event in events for p in self._event_payloads(event))
        return in_order_once_stored(payloads) if self.options.large.claim_check else payloads

    def encode_event(self, event: Event) -> Iterator[Payload]:
        """The messages of one event: a row's may start with a BOOTSTRAP."""
        return self.encode([event])

    def _event_payloads(self, event: Event) -> Iterator[Payload]:
        if isinstance(event, RowChangedEvent):
            self._check_ts(event.commit_ts, f"of a row of {event.schema}.{event.table}")
            schema, bootstrap = self._schema_for(event)
            if bootstrap:
                yield Payload(None, self._value(self._bootstrap(schema), f"BOOTSTRAP of {schema.schema}.{schema.table}"), 0)
                self._sent(schema)
            value = self._row_value(event, schema)
            stored, self._upload = self._upload, None
            yield Payload(None, value, 1) if stored is None else PointerPayload(None, value, 1, stored)
        elif isinstance(event, TableAnnouncement):
            row = event.row
            self._check_ts(row.commit_ts, f"of a row of {row.schema}.{row.table}")
            schema, bootstrap = self._schema_for(row, counting=False)
            if bootstrap:
                yield Payload(None, self._value(self._bootstrap(schema), f"BOOTSTRAP of {schema.schema}.{schema.table}"), 0)
                self._sent(schema)
        elif isinstance(event, DDLEvent):
            self._check_ts(event.commit_ts, f"of DDL {event.query[:60]!r}")
            yield Payload(None, self._value(self._ddl(event), f"DDL at commit ts {event.commit_ts}"), 1)
        elif isinstance(event, ResolvedEvent):
            self._check_ts(event.ts, "of a watermark")
            message = {"version": 1, "type": "WATERMARK", "commitTs": event.ts, "buildTs": self._clock()}
            yield Payload(None, self._value(message, f"watermark {event.ts}"), 1)
        else:
            raise EncodeError(f"simple cannot encode {type(event).__name__}")

    @staticmethod
    def _check_ts(ts: Any, what: str) -> None:
        if ts.__class__ is not int or not 0 <= ts < _U64_LIMIT:
            raise EncodeError(f"commit ts {ts!r} {what} is not an unsigned 64-bit integer")

    def _sent(self, schema: TableSchema) -> None:
        table = self._tables.get((schema.schema, schema.table))
        if table is not None:
            table.sent_ms = self._clock()
            table.rows_since = 0

    def _bytes(self, message: dict[str, Any]) -> bytes:
        """The message's bytes, compressed as configured (TiCDC compresses every value)."""
        value = self._format.dumps(message)
        return value if self._compress is None else self._compress(value)

    def _fits(self, value: bytes) -> bool:
        return len(value) + MESSAGE_OVERHEAD <= self.options.max_message_bytes

    def _too_large(self, value: bytes, what: str, how: str = "") -> MessageTooLargeError:
        return MessageTooLargeError(
            f"simple message of the {what} is {len(value)} bytes + {MESSAGE_OVERHEAD} overhead >"
            f" max-message-bytes {self.options.max_message_bytes}{how}"
        )

    def _value(self, message: dict[str, Any], what: str) -> bytes:
        """The message's bytes, checked against max-message-bytes."""
        value = self._bytes(message)
        if not self._fits(value):
            raise self._too_large(value, what)
        return value

    # -- messages ------------------------------------------------------------------------

    def _bootstrap(self, schema: TableSchema) -> dict[str, Any]:
        return {"version": 1, "type": "BOOTSTRAP", "commitTs": 0, "buildTs": self._clock(),
                "tableSchema": schema.wire()}

    def _ddl(self, ddl: DDLEvent) -> dict[str, Any]:
        kind = ddl_kind(ddl.ddl_type)
        message: dict[str, Any] = {"version": 1, "type": kind}
        if ddl.query:
            message["sql"] = ddl.query
        message["commitTs"] = ddl.commit_ts
        message["buildTs"] = self._clock()
        if not ddl.schema and not ddl.table:
            return message
        key = (ddl.schema, ddl.table)
        before = self._tables.get(key)
        if ddl.table_schema is not None:  # the table after the DDL, as the event's reader knew it
            after = wire_schema(ddl.table_schema, ddl.table_schema.version or ddl.commit_ts)
        elif before is None or kind == "CREATE":  # a created table's columns: unknown until its first row
            after = TableSchema(ddl.schema, ddl.table, 0, ddl.commit_ts)
        else:
            old = before.schema
            after = TableSchema(ddl.schema, ddl.table, old.table_id, ddl.commit_ts, old.columns, old.indexes)
        message["tableSchema"] = after.wire()
        if ddl.pre_table_schema is not None and kind != "CREATE":
            pre = wire_schema(ddl.pre_table_schema)
            message["preTableSchema"] = pre.wire()
            if (pre.schema, pre.table) != key:
                self._overwritten(pre)
        elif before is not None and kind != "CREATE":
            message["preTableSchema"] = before.schema.wire()
        if ddl.table:
            carried = ddl.table_schema is not None  # rows are matched to it afresh
            shape = before.shape if before is not None and after.columns and not carried else None
            self._tables[key] = _Table(after, shape, self._clock() if after.columns else None)
        return message

    def _overwritten(self, written: TableSchema) -> None:
        """A DDL's preTableSchema names another table (a RENAME's old name): the reader keeps
        it under that table's name and version, in place of what it had. Where that is the
        version this encoder writes that table's rows with, but another schema, the reader's
        copy is no longer the one those rows were matched to: forget the table, so its next
        row goes after a BOOTSTRAP of its own schema again (else its columns read back with
        the DDL's: a DATETIME with charset binary and BINARY read back as one without)."""
        key = (written.schema, written.table)
        table = self._tables.get(key)
        if table is not None and table.schema.version == written.version and table.schema != written:
            del self._tables[key]

    def _row_value(self, row: RowChangedEvent, schema: TableSchema) -> bytes:
        """A row's message; over max-message-bytes, cut to its handle key as the option says
        (under claim-check, after starting to store the whole message)."""
        what = f"{row.kind} on {row.schema}.{row.table} at commit ts {row.commit_ts}"
        value = self._bytes(self._row_message(row, schema))
        if self._fits(value):
            return value
        large = self.options.large
        if not (large.handle_key_only or large.claim_check):
            raise self._too_large(value, what, "; set large-message-handle-option=handle-key-only (send its"
                                  " key only) or claim-check (store it in claim-check-storage-uri)")
        keys = {c.name for c in row.image if c.is_handle_key}
        if not keys:
            raise self._too_large(value, what, f"; {row.schema}.{row.table} has no handle key to send instead")
        location = self._claim_check(value, what) if large.claim_check else None
        pointer = self._bytes(self._row_message(row, schema, keys, location))
        if not self._fits(pointer):
            raise self._too_large(pointer, what, " even with only its handle-key columns")
        return pointer

    def read_back_key_only(self, row: RowChangedEvent) -> bool:
        """Whether a reader gets ``row`` back as its handle-key columns only: a row that arrived
        so, or one too large whole under handle-key-only. Nothing is stored."""
        if row.handle_key_only:
            return True
        if not self.options.large.handle_key_only:
            return False
        schema = self._derived(row, row_columns(row.columns, row.pre_columns), row.commit_ts)
        return not self._fits(self._bytes(self._row_message(row, schema)))

    def _claim_check_store(self) -> ClaimCheckStore:
        if self._store is None:
            self._store = self.options.large.store()
            if self._store is None:  # a config that skipped validate (LargeMessageOptions.check refuses it)
                raise EncodeError("simple: large-message-handle-option=claim-check needs claim-check-storage-uri")
        return self._store

    def _claim_check(self, value: bytes, what: str) -> str:
        """Start storing the whole message (no key: simple has none); the location its pointer carries."""
        location, self._upload = self._claim_check_store().store_in_background(None, value, f"simple: the {what}")
        return location

    def _row_message(
        self, row: RowChangedEvent, schema: TableSchema, keys: Optional[set[str]] = None,
        location: Optional[str] = None,
    ) -> dict[str, Any]:
        """The message object of a row; with ``keys``, only those columns and ``handleKeyOnly``."""
        message: dict[str, Any] = {"version": 1, "database": row.schema, "table": row.table}
        if row.table_id:
            message["tableID"] = row.table_id
        message["type"] = row.kind.upper()
        message["commitTs"] = row.commit_ts
        message["buildTs"] = self._clock()
        if schema.version:
            message["schemaVersion"] = schema.version
        if location is not None:
            message["claimCheckLocation"] = location
        if row.handle_key_only or keys is not None:
            message["handleKeyOnly"] = True
        for field, columns in (("data", row.columns), ("old", row.pre_columns)):
            if columns is not None:
                if keys is not None:
                    columns = tuple(c for c in columns if c.name in keys)
                message[field] = self._values(row, columns)
        return message

    def _values(self, row: RowChangedEvent, columns: Columns) -> dict[str, Any]:
        out: dict[str, Any] = {}
        value_of = self._format.value
        for column in sorted(columns, key=_name):
            value = column.value
            if value is None:
                out[column.name] = None
                continue
            try:
                out[column.name] = value_of(column.type, column.flags, value)
            except (TypeError, ValueError, AttributeError) as exc:
                raise EncodeError(
                    f"{row.schema}.{row.table} column {column.name!r}: {exc} (commit ts {row.commit_ts})"
                ) from None
        return out


def _name(column: Column) -> str:
    return column.name
