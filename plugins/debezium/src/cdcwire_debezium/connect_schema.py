"""The Kafka Connect ``schema`` parts TiCDC's debezium writes (``writeDebeziumFieldSchema``,
``writeSourceSchema`` and the envelope of ``EncodeValue``/``EncodeCheckpointEvent``), as
Python dicts in TiCDC's field order.

Column defaults (a field's ``default``) need the table's DDL, which cdcwire's events do not
carry: no field has one.
"""

from __future__ import annotations

from typing import Any

from cdcwire.plugin_api import ColumnType

from .field_types import STRING_TYPES, FieldType

_PLAIN_INTS = {ColumnType.TINYINT: "int16", ColumnType.MEDIUMINT: "int32", ColumnType.BIGINT: "int64"}
_LOGICAL = {
    ColumnType.DATE: ("int32", "io.debezium.time.Date"),
    ColumnType.NEWDATE: ("int32", "io.debezium.time.Date"),
    ColumnType.TIMESTAMP: ("string", "io.debezium.time.ZonedTimestamp"),
    ColumnType.TIME: ("int64", "io.debezium.time.MicroTime"),
    ColumnType.JSON: ("string", "io.debezium.data.Json"),
    ColumnType.YEAR: ("int32", "io.debezium.time.Year"),
}


def field_schema(name: str, ft: FieldType, tidb_extension: bool, fsp: int) -> dict[str, Any]:
    """One column's Connect schema; ``fsp`` is the DATETIME fsp that picks its logical type."""
    out: dict[str, Any] = {"tidb_type": ft.tidb_type} if tidb_extension else {}
    t, optional = ft.type, ft.optional
    if t == ColumnType.BIT:
        if ft.bit_length == 1:
            out.update(type="boolean", optional=optional, field=name)
        else:
            out.update(type="bytes", optional=optional, name="io.debezium.data.Bits", version=1,
                       parameters={"length": str(ft.bit_length)}, field=name)
    elif t in STRING_TYPES:
        out.update(type="string", optional=optional, field=name)
    elif t in (ColumnType.ENUM, ColumnType.SET):
        elements = ft.elements or ()
        if t == ColumnType.ENUM:
            logical, allowed = "io.debezium.data.Enum", ",".join(e.replace(",", "\\,") for e in elements)
        else:
            logical, allowed = "io.debezium.data.EnumSet", ",".join(elements)
        out.update(type="string", optional=optional, name=logical, version=1,
                   parameters={"allowed": allowed}, field=name)
    elif t == ColumnType.DATETIME:
        logical = "io.debezium.time.Timestamp" if fsp <= 3 else "io.debezium.time.MicroTimestamp"
        out.update(type="int64", optional=optional, name=logical, version=1, field=name)
    elif t in _LOGICAL:
        kind, logical = _LOGICAL[t]
        out.update(type=kind, optional=optional, name=logical, version=1, field=name)
    elif t == ColumnType.SMALLINT:
        out.update(type="int32" if ft.unsigned else "int16", optional=optional, field=name)
    elif t == ColumnType.INT:
        out.update(type="int64" if ft.unsigned else "int32", optional=optional, field=name)
    elif t in _PLAIN_INTS:
        out.update(type=_PLAIN_INTS[t], optional=optional, field=name)
    elif t == ColumnType.FLOAT:
        out.update(type="double" if ft.float_scaled else "float", optional=optional, field=name)
    else:  # DOUBLE, DECIMAL (a double in TiCDC's JSON)
        out.update(type="double", optional=optional, field=name)
    return out


def _f(kind: str, optional: bool, name: str) -> dict[str, Any]:
    return {"type": kind, "optional": optional, "field": name}


def source_schema(tidb_extension: bool) -> dict[str, Any]:
    """``io.debezium.connector.mysql.Source``; commit_ts and cluster_id declared with the extension."""
    fields = [
        _f("string", False, "version"), _f("string", False, "connector"), _f("string", False, "name"),
        _f("int64", False, "ts_ms"),
        {"type": "string", "optional": True, "name": "io.debezium.data.Enum", "version": 1,
         "parameters": {"allowed": "true,last,false,incremental"}, "default": "false", "field": "snapshot"},
        _f("string", False, "db"), _f("string", True, "sequence"), _f("string", True, "table"),
        _f("int64", False, "server_id"), _f("string", True, "gtid"), _f("string", False, "file"),
        _f("int64", False, "pos"), _f("int32", False, "row"), _f("int64", True, "thread"),
        _f("string", True, "query"),
    ]
    if tidb_extension:
        fields += [_f("int64", False, "commit_ts"), _f("string", False, "cluster_id")]
    return {"type": "struct", "fields": fields, "optional": False,
            "name": "io.debezium.connector.mysql.Source", "field": "source"}


TRANSACTION_SCHEMA: dict[str, Any] = {
    "type": "struct",
    "fields": [_f("string", False, "id"), _f("int64", False, "total_order"),
               _f("int64", False, "data_collection_order")],
    "optional": True, "name": "event.block", "version": 1, "field": "transaction",
}


def row_value_schema(prefix: str, fields: list[dict[str, Any]], tidb_extension: bool) -> dict[str, Any]:
    """The Envelope schema of a row message: before and after share ``fields``."""
    value_name = f"{prefix}.Value"
    return {
        "type": "struct", "optional": False, "name": f"{prefix}.Envelope", "version": 1,
        "fields": [
            {"type": "struct", "optional": True, "name": value_name, "field": "before", "fields": fields},
            {"type": "struct", "optional": True, "name": value_name, "field": "after", "fields": fields},
            source_schema(tidb_extension),
            _f("string", False, "op"),
            _f("int64", True, "ts_ms"),
            TRANSACTION_SCHEMA,
        ],
    }


def watermark_value_schema(cluster_prefix: str, tidb_extension: bool) -> dict[str, Any]:
    return {
        "type": "struct", "optional": False, "name": f"{cluster_prefix}.watermark.Envelope", "version": 1,
        "fields": [source_schema(tidb_extension), _f("string", False, "op"), _f("int64", True, "ts_ms"),
                   TRANSACTION_SCHEMA],
    }
