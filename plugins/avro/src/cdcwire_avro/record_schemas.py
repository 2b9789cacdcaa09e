"""Key and value record schemas of one table version, and how a row image fills them.

Built once per table shape (names, types, flags, MySQL type texts of its
columns) and cached by the encoder: per row, filling a record is a loop over
precomputed (field name, column index, conversion) triples.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional, Sequence

import fastavro

from cdcwire.plugin_api import Column, EncodeError

from .column_types import AvroType, Convert, avro_type_of
from .names import record_namespace, sanitize_name
from .options import AvroOptions

#: Value fields the TiDB extension appends, in order. The defaults are in the reference's
#: schema since v7.1 (keys in Go's map order): without them the registered text, and so the
#: schema id, differs from TiCDC's, and switching the extension on for a subject that has
#: versions without it is not BACKWARD compatible (a new field needs a default).
EXTENSION_FIELDS: tuple[dict, ...] = (
    {"default": "", "name": "_tidb_op", "type": "string"},
    {"default": 0, "name": "_tidb_commit_ts", "type": "long"},
    {"default": 0, "name": "_tidb_commit_physical_time", "type": "long"},
)
EXTENSION_NAMES = frozenset(f["name"] for f in EXTENSION_FIELDS)

#: What identifies a table version for the caches: schema, table and each column's shape.
TableShape = tuple[str, str, tuple[tuple[str, int, int, Optional[str]], ...]]


def table_shape(schema: str, table: str, columns: Sequence[Column]) -> TableShape:
    return schema, table, tuple((c.name, c.type, c.flags, c.mysql_type) for c in columns)


@dataclass(frozen=True, slots=True)
class FieldFill:
    """One field of a record: its Avro name, the column it reads and the value conversion."""

    name: str
    index: int
    to_avro: Convert


@dataclass(frozen=True, slots=True)
class RecordSchema:
    """A record schema ready to write: its JSON text (what is registered), parsed form and fills."""

    text: str
    parsed: Any
    fills: tuple[FieldFill, ...]
    table: str

    def record(self, columns: Sequence[Column]) -> dict[str, Any]:
        """The Avro record of a row image (extension fields not included)."""
        record: dict[str, Any] = {}
        fill = None
        try:
            for fill in self.fills:
                value = columns[fill.index].value
                if value is not None and fill.to_avro is not None:
                    value = fill.to_avro(value)
                record[fill.name] = value
        except (ValueError, TypeError, OverflowError, AttributeError) as exc:
            column = columns[fill.index].name if fill is not None else "?"
            raise EncodeError(f"{self.table} column {column!r}: cannot encode its value: {exc}") from None
        return record


def field_json(name: str, avro_type: AvroType, nullable: bool) -> dict:
    if nullable:
        return {"default": None, "name": name, "type": ["null", avro_type.schema]}
    return {"name": name, "type": avro_type.schema}


def record_schema(
    schema: str,
    table: str,
    columns: Sequence[Column],
    indexes: Sequence[int],
    options: AvroOptions,
    extension: bool,
) -> RecordSchema:
    """The record of ``columns[i] for i in indexes``, plus the extension fields when asked."""
    where = f"table {schema}.{table}"
    name = sanitize_name(table)
    if not name:
        raise EncodeError(f"{where}: an empty table name cannot name an Avro record")
    fields: list[dict] = []
    fills: list[FieldFill] = []
    seen: dict[str, str] = {}
    for i in indexes:
        column = columns[i]
        field_name = sanitize_name(column.name)
        if not field_name:
            raise EncodeError(f"{where}: a column with an empty name cannot be an Avro field")
        if field_name in seen or (extension and field_name in EXTENSION_NAMES):
            other = seen.get(field_name, "the TiDB extension")
            raise EncodeError(
                f"{where}: columns {other!r} and {column.name!r} both become Avro field {field_name!r}"
            )
        seen[field_name] = column.name
        avro_type = avro_type_of(column, options)
        fields.append(field_json(field_name, avro_type, column.is_nullable))
        fills.append(FieldFill(field_name, i, avro_type.to_avro))
    if extension:
        fields.extend(EXTENSION_FIELDS)
    top = {
        "type": "record",
        "name": name,
        "namespace": record_namespace(options.namespace, schema),
        "fields": fields,
    }
    text = json.dumps(top, separators=(",", ":"), ensure_ascii=False)
    return RecordSchema(text, fastavro.parse_schema(json.loads(text)), tuple(fills), f"{schema}.{table}")
