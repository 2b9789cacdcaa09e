"""The debezium decoder: events back from key and value, as TiCDC's ``decoder.go`` reads them.

``op`` c/u/d is a row, ``m`` a watermark, no ``op`` a DDL. A row is rebuilt from the value's
schema (the ``after`` struct: ``tidb_type``, ``optional``, the logical name and parameters)
and its handle key from the key's payload, so rows need ``debezium-disable-schema=false`` and
``enable-tidb-extension=true``; a row message without them is refused naming the parameter.
Each row carries the table schema its Connect schema says (``RowChangedEvent.table_schema``:
types, nullability, the key as the handle key; no defaults, which rows do not carry).
An update without ``before`` (``debezium-output-old-value=false``) reads back as an insert,
as TiCDC's decoder reads it. A DDL carries the table schema of its change's ``table`` (:mod:`.table_block`).
A DDL's type is read from its statement
(:func:`cdcwire.plugin_api.statement_ddl_type`), falling back to the change kind.
"""

from __future__ import annotations

from typing import Any, Optional

import orjson

from cdcwire.plugin_api import (
    BoundedCache,
    Column,
    ColumnFlag,
    DDLEvent,
    DDLType,
    DecodeError,
    DecompressionFailed,
    Event,
    Message,
    ResolvedEvent,
    RowChangedEvent,
    TableSchema,
    build_column,
    derive_table_schema,
    statement_ddl_type,
)

from .column_values import WireValueError, decode_value
from .field_types import FieldType, FieldTypeError, field_type_of_schema, schema_field_key
from .table_block import TableBlockError, table_of_block

#: What a column reads back as, worked out once per schema field: its FieldType, type code,
#: flags (as a value column, as a key column) and type text.
ReadColumn = tuple[FieldType, Any, ColumnFlag, ColumnFlag, Optional[str]]


def _read_column(ft: FieldType) -> ReadColumn:
    return ft, ft.read_type, ft.flags, ft.flags | _KEY_FLAGS, ft.mysql_type
from .options import DebeziumOptions

_U64_LIMIT = 1 << 64
_KEY_FLAGS = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
_NEEDS = (
    "decoding debezium rows needs debezium-disable-schema=false and enable-tidb-extension=true"
    " on the sink that wrote them"
)
_FALLBACK_DDL = {"CREATE": DDLType.CREATE_TABLE, "ALTER": DDLType.MODIFY_COLUMN, "DROP": DDLType.DROP_TABLE}


def ddl_type_of(query: str, kind: Optional[str]) -> DDLType:
    """The DDL type a reader gives back: from the statement, else from the change kind."""
    found = statement_ddl_type(query)
    if found is not None:
        return found
    return _FALLBACK_DDL.get(kind or "", DDLType.CREATE_TABLE if kind is None else DDLType.MODIFY_COLUMN)


def _object(doc: Any, name: str, part: str) -> dict[str, Any]:
    value = doc.get(name) if isinstance(doc, dict) else None
    if not isinstance(value, dict):
        raise DecodeError(f"debezium {part} has no object {name!r}", part=part)
    return value


class DebeziumDecoder:
    """Decodes debezium messages; field types are cached by their schema text."""

    def __init__(self, options: DebeziumOptions) -> None:
        self.options = options
        self._types: BoundedCache[tuple, ReadColumn] = BoundedCache(4096)
        self._tables: BoundedCache[tuple, TableSchema] = BoundedCache(4096)

    def _json(self, data: Optional[bytes], part: str) -> Any:
        if data is None:
            raise DecodeError(f"debezium message has no {part}", part=part)
        compression = self.options.large.compression
        if compression.enabled:
            try:
                data = compression.decompress(data)
            except DecompressionFailed as exc:
                raise DecodeError(
                    f"debezium {part} does not decompress with {compression.name}: {exc}", part=part
                ) from None
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            raise DecodeError(f"debezium {part} is not JSON: {exc}", part=part) from None

    def decode(self, message: Message) -> list[Event]:
        value = self._json(message.value, "value")
        payload = _object(value, "payload", "value")
        source = _object(payload, "source", "value")
        commit_ts = source.get("commit_ts")
        if commit_ts.__class__ is not int or not 0 <= commit_ts < _U64_LIMIT:
            raise DecodeError(
                f"debezium source.commit_ts {commit_ts!r} is not an unsigned 64-bit integer", part="value"
            )
        db, table = source.get("db"), source.get("table")
        if not isinstance(db, str) or not isinstance(table, str):
            raise DecodeError("debezium source.db and source.table must be strings", part="value")
        op = payload.get("op")
        if op is None:
            return [self._ddl(payload, commit_ts, db, table)]
        if op == "m":
            return [ResolvedEvent(commit_ts)]
        if op not in ("c", "u", "d"):
            raise DecodeError(f"debezium op {op!r} is not c, u, d or m", part="value")
        return [self._row(message, value, payload, op, commit_ts, db, table)]

    def _ddl(self, payload: dict[str, Any], commit_ts: int, db: str, table: str) -> DDLEvent:
        query = payload.get("ddl")
        if not isinstance(query, str):
            raise DecodeError("debezium message has no op and no ddl: neither a row nor a DDL", part="value")
        changes = payload.get("tableChanges")
        changes = [] if changes is None else changes
        if not isinstance(changes, list) or not all(isinstance(c, dict) for c in changes):
            raise DecodeError("debezium payload.tableChanges must be an array of objects", part="value")
        kind = changes[0].get("type") if changes else None
        if kind is not None and not isinstance(kind, str):
            raise DecodeError("debezium payload.tableChanges[0].type must be a string", part="value")
        try:
            after = table_of_block(changes[0].get("table"), db, table) if kind is not None else None
        except TableBlockError as exc:
            raise DecodeError(f"debezium {exc}", part="value") from None
        return DDLEvent(commit_ts, db, table, query, ddl_type_of(query, kind), after)

    def _fields(self, value: dict[str, Any]) -> list[tuple[str, ReadColumn]]:
        schema = value.get("schema")
        if not isinstance(schema, dict):
            raise DecodeError("debezium row message has no schema part", part="value", hint=_NEEDS)
        fields = schema.get("fields")
        after = fields[1] if isinstance(fields, list) and len(fields) > 1 else None
        columns = after.get("fields") if isinstance(after, dict) and after.get("field") == "after" else None
        if not isinstance(columns, list):
            raise DecodeError("debezium value schema has no 'after' struct as its second field", part="value")
        out = []
        for field in columns:
            name = field.get("field") if isinstance(field, dict) else None
            if not isinstance(name, str):
                raise DecodeError("debezium value schema has a column field without a name", part="value")
            if "tidb_type" not in field:
                raise DecodeError(
                    f"debezium schema of column {name!r} has no tidb_type", part="value", hint=_NEEDS
                )
            try:
                k = schema_field_key(field)
                read = self._types.get(k)
                if read is None:
                    read = self._types.remember(k, _read_column(field_type_of_schema(field)))
            except FieldTypeError as exc:
                raise DecodeError(f"debezium schema of column {name!r}: {exc}", part="value") from None
            out.append((name, read))
        return out

    def _image(
        self, image: Any, fields: list[tuple[str, ReadColumn]], keys: set[str], which: str
    ) -> tuple[Column, ...]:
        if not isinstance(image, dict):
            raise DecodeError(f"debezium payload.{which} is not an object", part="value")
        if len(image) != len(fields):
            raise DecodeError(
                f"debezium payload.{which} has {len(image)} columns, its schema {len(fields)}", part="value"
            )
        cols = []
        for name, (ft, read_type, flags, key_flags, mysql_type) in fields:
            if name not in image:
                raise DecodeError(f"debezium payload.{which} has no column {name!r}", part="value")
            raw = image[name]
            if raw is None:
                value = None
            else:
                try:
                    value = decode_value(ft, raw)
                except WireValueError as exc:
                    raise DecodeError(f"debezium payload.{which}.{name}: {exc}", part="value") from None
            column_flags = key_flags if name in keys else flags
            cols.append(build_column(name, read_type, column_flags, value, mysql_type))
        return tuple(cols)

    def _row(
        self, message: Message, value: dict[str, Any], payload: dict[str, Any], op: str,
        commit_ts: int, db: str, table: str,
    ) -> RowChangedEvent:
        fields = self._fields(value)
        key = self._json(message.key, "key")
        key_payload = _object(key, "payload", "key")
        keys = set(key_payload)
        unknown = keys - {name for name, _ in fields}
        if unknown:
            raise DecodeError(f"debezium key names columns the value has not: {sorted(unknown)}", part="key")
        before, after = payload.get("before"), payload.get("after")
        if op == "c" or (op == "u" and before is None):
            new, old = self._image(after, fields, keys, "after"), None
        elif op == "d":
            new, old = None, self._image(before, fields, keys, "before")
        else:
            new, old = self._image(after, fields, keys, "after"), self._image(before, fields, keys, "before")
        schema = self._table_schema(db, table, new if new is not None else old)  # type: ignore[arg-type]
        return RowChangedEvent(commit_ts, db, table, new, old, table_schema=schema)

    def _table_schema(self, db: str, table: str, columns: tuple[Column, ...]) -> TableSchema:
        """The table schema the value's Connect schema says (types, nullability, the key as the
        handle key), one object per table and schema: rows of one shape share it."""
        shape = (db, table, tuple((c.name, c.type, c.flags, c.mysql_type) for c in columns))
        found = self._tables.get(shape)
        if found is None:
            found = self._tables.remember(shape, derive_table_schema(db, table, columns))
        return found
