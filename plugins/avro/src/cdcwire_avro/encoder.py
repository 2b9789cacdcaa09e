"""The avro encoder: one Kafka message per row change, key and value Confluent-framed.

Insert and update carry the new image in the value; a delete is a tombstone
(key only, value None); DDL and resolved events produce nothing. Schemas are
registered on the first row of each table version, never per row; a failed
registration raises before anything of that row is yielded.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional

import fastavro
from fastavro.validation import validate

from cdcwire.plugin_api import (
    MESSAGE_OVERHEAD,
    EncodeError,
    Event,
    MessageTooLargeError,
    Payload,
    RowChangedEvent,
)

from . import wire
from .names import key_subject, value_subject
from .options import AvroOptions
from .record_schemas import RecordSchema, TableShape, record_schema, table_shape
from .schema_registry_client import SchemaRegistryClient, SchemaRegistryError


@dataclass(slots=True)
class Registered:
    """A record schema with the header of its registered id."""

    schema: RecordSchema
    header: bytes


@dataclass(slots=True)
class TableVersion:
    """The schemas of one table version: the key at once, the value on its first insert/update."""

    key: Registered
    value: Optional[Registered] = None


class AvroEncoder:
    def __init__(
        self, options: AvroOptions, topic: str, max_message_bytes: int, client: SchemaRegistryClient
    ) -> None:
        self.options = options
        self.topic = topic
        self.max_message_bytes = max_message_bytes
        self.client = client
        self._versions: dict[TableShape, TableVersion] = {}

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        for event in events:
            if isinstance(event, RowChangedEvent):
                yield self.encode_row(event)

    def encode_row(self, row: RowChangedEvent) -> Payload:
        image = row.columns if row.columns is not None else row.pre_columns
        shape = table_shape(row.schema, row.table, image)  # type: ignore[arg-type]
        version = self._versions.get(shape)
        if version is None:
            version = self._versions[shape] = TableVersion(self._register_key(row))
        key = self._write(version.key, version.key.schema.record(image))  # type: ignore[arg-type]
        value = None
        if row.columns is not None:
            if version.value is None:
                version.value = self._register_value(row)
            record = version.value.schema.record(row.columns)
            if self.options.tidb_extension:
                record["_tidb_op"] = "c" if row.pre_columns is None else "u"
                record["_tidb_commit_ts"] = row.commit_ts
                record["_tidb_commit_physical_time"] = row.commit_ts >> 18
            value = self._write(version.value, record)
        size = len(key) + len(value or b"") + MESSAGE_OVERHEAD
        if size > self.max_message_bytes:
            raise MessageTooLargeError(
                f"{row.kind} of {row.schema}.{row.table} at commit ts {row.commit_ts} takes {size} bytes"
                f" with overhead, more than max-message-bytes={self.max_message_bytes}"
            )
        return Payload(key, value, 1)

    def _write(self, registered: Registered, record: dict) -> bytes:
        buffer = io.BytesIO()
        buffer.write(registered.header)
        try:
            fastavro.schemaless_writer(buffer, registered.schema.parsed, record)
        except Exception as exc:  # fastavro raises many kinds; say which field is wrong
            raise EncodeError(f"{registered.schema.table}: {_bad_field(registered.schema, record) or exc}") from None
        return buffer.getvalue()

    def _register_key(self, row: RowChangedEvent) -> Registered:
        image = row.image
        keys = [i for i, c in enumerate(image) if c.is_handle_key]
        if not keys:
            raise EncodeError(
                f"table {row.schema}.{row.table} has no handle-key column: the avro protocol needs a"
                " primary key or a NOT NULL unique index for the message key"
            )
        schema = record_schema(row.schema, row.table, image, keys, self.options, extension=False)
        return self._register(row, key_subject(self.topic), schema)

    def _register_value(self, row: RowChangedEvent) -> Registered:
        columns = row.columns or ()
        schema = record_schema(
            row.schema, row.table, columns, range(len(columns)), self.options, self.options.tidb_extension
        )
        return self._register(row, value_subject(self.topic), schema)

    def _register(self, row: RowChangedEvent, subject: str, schema: RecordSchema) -> Registered:
        try:
            schema_id = self.client.register(subject, schema.text)
        except SchemaRegistryError as exc:
            raise SchemaRegistryError(
                f"table {row.schema}.{row.table}: cannot register its schema under subject {subject!r}: {exc}",
                exc.status, subject,
            ) from None
        return Registered(schema, wire.header(schema_id))


def _bad_field(schema: RecordSchema, record: dict) -> Optional[str]:
    """The first field whose value the schema refuses, as a readable reason."""
    for field in schema.parsed["fields"]:
        name = field["name"]
        if name in record and not validate(record[name], field["type"], raise_errors=False):
            return f"field {name!r}: value {record[name]!r} does not fit Avro type {_type_text(field['type'])}"
    return None


def _type_text(avro_type: object) -> str:
    if isinstance(avro_type, list):
        return " or ".join(_type_text(t) for t in avro_type)
    if isinstance(avro_type, dict):
        return str(avro_type.get("type"))
    return str(avro_type)
