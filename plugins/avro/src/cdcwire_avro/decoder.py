"""The avro decoder: Confluent-framed key and value back to row events.

Writer schemas are fetched from the registry by id, once each. What comes back
(see :mod:`cdcwire_avro.carried`): a delete has ``pre_columns`` = the key
columns; a value without the TiDB extension is an insert of the new image
(Avro cannot tell insert from update, and carries no commit ts: 0); with the
extension, ``_tidb_op`` "u" gives an update whose ``pre_columns`` are the key
columns, and the commit ts is ``_tidb_commit_ts``.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any, Optional

import fastavro

from cdcwire.plugin_api import (
    Column,
    ColumnFlag,
    DecodeError,
    Event,
    Message,
    RowChangedEvent,
    TableSchema,
    build_column,
    derive_table_schema,
)

from . import wire
from .column_types import Convert, column_kind_of
from .names import schema_from_namespace
from .record_schemas import EXTENSION_NAMES
from .schema_registry_client import SchemaNotFoundError, SchemaRegistryClient


@dataclass(frozen=True, slots=True)
class FieldRead:
    """How one decoded field becomes a column."""

    name: str
    type: int
    flags: ColumnFlag
    mysql_type: Optional[str]
    from_avro: Convert


@dataclass(frozen=True, slots=True)
class WriterSchema:
    """A registered record schema, ready to read: parsed form, table name and field reads."""

    schema_id: int
    parsed: Any
    schema: str
    table: str
    fields: tuple[FieldRead, ...]
    extension: bool


class AvroDecoder:
    def __init__(self, client: SchemaRegistryClient) -> None:
        self.client = client
        self._schemas: dict[int, WriterSchema] = {}
        self._value_fields: dict[tuple[int, int], tuple[FieldRead, ...]] = {}
        self._tables: dict[tuple[int, int], TableSchema] = {}

    def decode(self, message: Message) -> list[Event]:
        if message.key is None:
            raise DecodeError("avro message has no key: every row change carries its handle key", None, "key")
        key_schema, key_record = self._read(message.key, "key")
        key_columns = _columns(key_schema.fields, key_record, ColumnFlag.HANDLE_KEY)
        if message.value is None:
            return [RowChangedEvent(0, key_schema.schema, key_schema.table, None, key_columns)]
        value_schema, value_record = self._read(message.value, "value")
        fields = self._fields_with_key(key_schema, value_schema)
        columns = _columns(fields, value_record, ColumnFlag(0), "value")
        table = self._table_schema(key_schema, value_schema, fields)
        if not value_schema.extension:
            return [RowChangedEvent(0, value_schema.schema, value_schema.table, columns, None, table_schema=table)]
        op = value_record.get("_tidb_op")
        commit_ts = value_record.get("_tidb_commit_ts")
        if op not in ("c", "u") or not isinstance(commit_ts, int):
            raise DecodeError(f"_tidb_op must be 'c' or 'u', got {op!r}", wire.HEADER_SIZE, "value")
        pre = key_columns if op == "u" else None
        return [RowChangedEvent(commit_ts, value_schema.schema, value_schema.table, columns, pre, table_schema=table)]

    def _table_schema(self, key: WriterSchema, value: WriterSchema, fields: tuple[FieldRead, ...]) -> TableSchema:
        """The table schema the value's record schema says (each field's type, flags and type
        text, the key's fields as the handle key), one object per key and value schema."""
        pair = (key.schema_id, value.schema_id)
        found = self._tables.get(pair)
        if found is None:
            columns = tuple(Column(f.name, f.type, f.flags, None, f.mysql_type) for f in fields)  # type: ignore[arg-type]
            found = self._tables[pair] = derive_table_schema(value.schema, value.table, columns)
        return found

    def _read(self, data: bytes, part: str) -> tuple[WriterSchema, dict]:
        schema_id, body = wire.split(data, part)
        writer = self._schemas.get(schema_id) or self._load(schema_id, part)
        stream = io.BytesIO(body)
        try:
            record = fastavro.schemaless_reader(stream, writer.parsed, None)
        except Exception as exc:  # truncated or corrupt Avro: fastavro raises many kinds
            raise DecodeError(
                f"Avro body does not match schema id {schema_id} ({type(exc).__name__}: {exc})",
                wire.HEADER_SIZE + stream.tell(), part,
            ) from None
        if stream.tell() != len(body):
            raise DecodeError(
                f"{len(body) - stream.tell()} bytes follow the Avro record of schema id {schema_id}",
                wire.HEADER_SIZE + stream.tell(), part,
            )
        if not isinstance(record, dict):
            raise DecodeError(f"schema id {schema_id} is not a record schema", 1, part)
        return writer, record

    def _load(self, schema_id: int, part: str) -> WriterSchema:
        try:
            text = self.client.schema_text(schema_id)
        except SchemaNotFoundError:
            raise DecodeError(
                f"schema id {schema_id} is unknown to the schema registry {self.client.address.base_url}", 1, part
            ) from None
        try:
            writer = _writer_schema(schema_id, text)
        except (ValueError, KeyError, TypeError, fastavro.schema.SchemaParseException) as exc:
            raise DecodeError(f"schema id {schema_id} is not an avro-protocol record schema: {exc}", 1, part) from None
        self._schemas[schema_id] = writer
        return writer

    def _fields_with_key(self, key: WriterSchema, value: WriterSchema) -> tuple[FieldRead, ...]:
        """The value's field reads, with HANDLE_KEY on the fields the key holds."""
        pair = (key.schema_id, value.schema_id)
        fields = self._value_fields.get(pair)
        if fields is None:
            names = {f.name for f in key.fields}
            fields = self._value_fields[pair] = tuple(
                FieldRead(f.name, f.type, f.flags | ColumnFlag.HANDLE_KEY, f.mysql_type, f.from_avro)
                if f.name in names else f
                for f in value.fields
            )
        return fields


def _writer_schema(schema_id: int, text: str) -> WriterSchema:
    top = json.loads(text)
    if not isinstance(top, dict) or top.get("type") != "record":
        raise ValueError("not a record")
    reads = []
    extension = False
    for field in top["fields"]:
        name = field["name"]
        if name in EXTENSION_NAMES:
            extension = True
            continue
        avro_type = field["type"]
        nullable = isinstance(avro_type, list)
        if nullable:
            branches = [t for t in avro_type if t != "null"]
            if len(branches) != 1 or len(avro_type) != 2:
                raise ValueError(f"field {name!r}: only [\"null\", T] unions are written by the avro protocol")
            avro_type = branches[0]
        try:
            kind = column_kind_of(avro_type)
        except ValueError as exc:
            raise ValueError(f"field {name!r}: {exc}") from None
        flags = kind.flags | ColumnFlag.NULLABLE if nullable else kind.flags
        reads.append(FieldRead(name, kind.type, flags, kind.mysql_type, kind.avro.from_avro))
    namespace = str(top.get("namespace", ""))
    return WriterSchema(
        schema_id, fastavro.parse_schema(top), schema_from_namespace(namespace), str(top["name"]),
        tuple(reads), extension,
    )


def _columns(
    fields: tuple[FieldRead, ...], record: dict, extra: ColumnFlag, part: str = "key"
) -> tuple[Column, ...]:
    out = []
    for f in fields:
        value = record.get(f.name)
        if value is not None and f.from_avro is not None:
            try:
                value = f.from_avro(value)
            except (ValueError, TypeError) as exc:
                raise DecodeError(f"field {f.name!r}: {exc}", wire.HEADER_SIZE, part) from None
        out.append(build_column(f.name, f.type, f.flags | extra, value, f.mysql_type))  # type: ignore[arg-type]
    return tuple(out)
