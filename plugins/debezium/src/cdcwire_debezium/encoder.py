"""The debezium encoder: one message per row change, DDL and (with the extension) watermark,
key and value each ``{"payload", "schema"}`` as TiCDC's ``dbzCodec`` writes them.

``ts_ms`` of the envelope is the wall clock when the message is written (TiCDC's
``nowFunc``); ``clock`` replaces it (tests, and the conformance kit's replays).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Iterator, Optional

import orjson

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    BoundedCache,
    Column,
    ColumnType,
    Columns,
    DDLEvent,
    EncodeError,
    Event,
    MessageTooLargeError,
    Payload,
    ResolvedEvent,
    RowChangedEvent,
)

from .column_values import WireValueError, datetime_fsp, encode_value
from .connect_schema import field_schema, row_value_schema, watermark_value_schema
from .ddl_messages import KEY_SCHEMA as DDL_KEY_SCHEMA
from .ddl_messages import change_kind, table_changes
from .ddl_messages import value_schema as ddl_value_schema
from .field_types import FieldType, FieldTypeError, field_type_of_column
from .names import sanitize_name, table_schema_prefix
from .options import DebeziumOptions

_U64_LIMIT = 1 << 64


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class DebeziumEncoder:
    """Encodes the events of one topic-partition."""

    def __init__(self, options: DebeziumOptions, clock: Optional[Callable[[], int]] = None) -> None:
        self.options = options
        self._clock = now_ms if clock is None else clock
        self._compress = options.large.compression.compress if options.large.compression.enabled else None
        self._types: BoundedCache[tuple, FieldType] = BoundedCache(4096)
        #: The key and value schema of a table's row shape, built once (see _schemas).
        #: Serialized once (orjson.Fragment): a row's schema is most of its message.
        self._schemas: BoundedCache[tuple, tuple[orjson.Fragment, orjson.Fragment]] = BoundedCache(1024)

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        for event in events:
            message = self.encode_event(event)
            if message is not None:
                yield Payload(*message, 1)

    def encode_event(self, event: Event) -> Optional[tuple[bytes, bytes]]:
        """``(key, value)`` of one event, compressed as configured; None for what has no message
        (a watermark without the extension, a DDL type TiCDC skips)."""
        if isinstance(event, RowChangedEvent):
            key, value = self._row(event)
            what = f"row of {event.schema}.{event.table} at commit ts {event.commit_ts}"
        elif isinstance(event, DDLEvent):
            message = self._ddl(event)
            if message is None:
                return None
            key, value = message
            what = f"DDL at commit ts {event.commit_ts}"
        elif isinstance(event, ResolvedEvent):
            if not self.options.tidb_extension:
                return None
            key, value = self._watermark(event)
            what = f"watermark {event.ts}"
        else:
            raise EncodeError(f"debezium cannot encode {type(event).__name__}")
        key_bytes, value_bytes = orjson.dumps(key), orjson.dumps(value)
        if self._compress is not None:
            key_bytes, value_bytes = self._compress(key_bytes), self._compress(value_bytes)
        size = len(key_bytes) + len(value_bytes) + MESSAGE_OVERHEAD
        if size > self.options.max_message_bytes:
            raise MessageTooLargeError(
                f"debezium message of the {what} is {size - MESSAGE_OVERHEAD} bytes + {MESSAGE_OVERHEAD}"
                f" overhead > max-message-bytes {self.options.max_message_bytes}"
            )
        return key_bytes, value_bytes

    # -- rows ------------------------------------------------------------------------------

    def _field_type(self, event: RowChangedEvent, column: Column) -> FieldType:
        k = (column.type, column.flags, column.mysql_type)
        ft = self._types.get(k)
        if ft is None:
            try:
                ft = self._types.remember(k, field_type_of_column(column))
            except FieldTypeError as exc:
                raise EncodeError(f"{event.schema}.{event.table} column {column.name!r}: {exc}") from None
        return ft

    def _values(self, event: RowChangedEvent, columns: Columns, types: list[FieldType]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for column, ft in zip(columns, types):
            value = column.value
            if value is None:
                out[column.name] = None
                continue
            try:
                out[column.name] = encode_value(ft, value)
            except (WireValueError, TypeError, AttributeError, ValueError) as exc:  # a wrong kind
                raise EncodeError(
                    f"{event.schema}.{event.table} column {column.name!r}: {exc}"
                    f" (commit ts {event.commit_ts})"
                ) from None
        return out

    def _source(self, schema: str, table: str, commit_ts: int) -> dict[str, Any]:
        cluster = self.options.cluster_id
        return {
            "version": "2.4.0.Final", "connector": "TiCDC", "name": cluster, "ts_ms": commit_ts >> 18,
            "snapshot": "false", "db": schema, "table": table, "server_id": 0, "gtid": None, "file": "",
            "pos": 0, "row": 0, "thread": 0, "query": None, "commit_ts": commit_ts, "cluster_id": cluster,
        }

    def _row(self, event: RowChangedEvent) -> tuple[dict[str, Any], dict[str, Any]]:
        ts = event.commit_ts
        if ts.__class__ is not int or not 0 <= ts < _U64_LIMIT:
            raise EncodeError(
                f"commit ts {ts!r} of a row of {event.schema}.{event.table} is not an unsigned 64-bit integer"
            )
        image = event.image
        types = [self._field_type(event, c) for c in image]
        payload: dict[str, Any] = {
            "source": self._source(event.schema, event.table, ts),
            "ts_ms": self._clock(),
            "transaction": None,
        }
        if event.is_insert:
            payload.update(op="c", before=None, after=self._values(event, event.columns, types))
        elif event.is_delete:
            payload.update(op="d", after=None, before=self._values(event, event.pre_columns, types))
        else:
            payload["op"] = "u"
            if self.options.output_old_value:
                pre_types = [self._field_type(event, c) for c in event.pre_columns]
                payload["before"] = self._values(event, event.pre_columns, pre_types)
            payload["after"] = self._values(event, event.columns, types)
        key_columns = [(c, ft) for c, ft in zip(image, types) if c.is_handle_key]
        key_payload = self._values(event, tuple(c for c, _ in key_columns), [ft for _, ft in key_columns])
        key: dict[str, Any] = {"payload": key_payload}
        value: dict[str, Any] = {"payload": payload}
        if not self.options.disable_schema:
            key["schema"], value["schema"] = self._schemas_of(event, image, types)
        return key, value

    def _schemas_of(
        self, event: RowChangedEvent, image: Columns, types: list[FieldType]
    ) -> tuple[orjson.Fragment, orjson.Fragment]:
        """The key and value schema of a row, serialized and cached by table and row shape
        (names, field types, the fsp each DATETIME shows): rows of one table share them."""
        fsps = tuple(self._fsp(ft, c) for c, ft in zip(image, types))
        columns = tuple((c.name, c.type, c.flags, c.mysql_type) for c in image)
        shape = (event.schema, event.table, columns, fsps)
        found = self._schemas.get(shape)
        if found is None:
            ext = self.options.tidb_extension
            prefix = table_schema_prefix(self.options.cluster_id, event.schema, event.table)
            fields = [field_schema(c.name, ft, ext, fsp) for c, ft, fsp in zip(image, types, fsps)]
            key_schema = {
                "type": "struct", "name": f"{prefix}.Key", "optional": False,
                "fields": [f for f, c in zip(fields, image) if c.is_handle_key],
            }
            found = self._schemas.remember(shape, (
                orjson.Fragment(orjson.dumps(key_schema)),
                orjson.Fragment(orjson.dumps(row_value_schema(prefix, fields, ext))),
            ))
        return found

    @staticmethod
    def _fsp(ft: FieldType, column: Column) -> int:
        """A DATETIME's fsp: from its type, else from its value's digits (0 for NULL)."""
        if ft.type != ColumnType.DATETIME:
            return 0
        if ft.fsp is not None or not isinstance(column.value, str):
            return ft.fsp or 0
        return datetime_fsp(ft, column.value)

    # -- DDL and watermarks ----------------------------------------------------------------

    def _ddl(self, ddl: DDLEvent) -> Optional[tuple[dict[str, Any], dict[str, Any]]]:
        ts = ddl.commit_ts
        if ts.__class__ is not int or not 0 <= ts < _U64_LIMIT:
            raise EncodeError(f"commit ts {ts!r} of DDL {ddl.query[:60]!r} is not an unsigned 64-bit integer")
        kind = change_kind(ddl.ddl_type)
        if kind is None:
            return None
        key: dict[str, Any] = {"payload": {"databaseName": ddl.schema}}
        value: dict[str, Any] = {"payload": {
            "source": self._source(ddl.schema, ddl.table, ts),
            "ts_ms": self._clock(),
            "databaseName": ddl.schema,
            "schemaName": None,
            "ddl": ddl.query,
            "tableChanges": table_changes(ddl.ddl_type, kind, ddl.schema, ddl.table, ddl.query, ddl.table_schema),
        }}
        if not self.options.disable_schema:
            key["schema"] = DDL_KEY_SCHEMA
            value["schema"] = ddl_value_schema(self.options.tidb_extension)
        return key, value

    def _watermark(self, resolved: ResolvedEvent) -> tuple[dict[str, Any], dict[str, Any]]:
        ts = resolved.ts
        if ts.__class__ is not int or not 0 <= ts < _U64_LIMIT:
            raise EncodeError(f"resolved ts {ts!r} is not an unsigned 64-bit integer")
        key: dict[str, Any] = {"payload": {}}
        value: dict[str, Any] = {"payload": {
            "source": self._source("", "", ts), "ts_ms": self._clock(), "transaction": None, "op": "m",
        }}
        if not self.options.disable_schema:
            cluster = sanitize_name(self.options.cluster_id)
            key["schema"] = {
                "type": "struct", "name": f"{cluster}.watermark.Key", "optional": False, "fields": [],
            }
            value["schema"] = watermark_value_schema(cluster, self.options.tidb_extension)
        return key, value
