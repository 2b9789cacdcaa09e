"""simple's Avro encoding (``encoding-format=avro``): TiCDC's fixed schema ``message.json``
(shipped as package data, unchanged from pingcap/ticdc ``b813e76f``), no registry and no
magic byte. The schema's top level is a union of its twelve named types; every message is
its ``Message`` branch (so starts with byte ``0x16``), a ``type`` and a ``payload`` union of
Watermark, Bootstrap, DDL and DML.

The encoder and decoder work on the JSON message object; this module turns it into the
Avro records and back. What Avro changes:

- column values are the union ``[null, long, float, double, string, bytes, Timestamp,
  UnsignedBigint]``: integers, YEAR, ENUM, SET and BIT as ``long`` (BIT also read from a
  string of digits, as TiCDC once wrote it), BIGINT UNSIGNED as ``UnsignedBigint`` holding
  the 64-bit pattern as a signed long, FLOAT ``float``, DOUBLE ``double``, binary ``bytes``;
- commit ts and versions are longs: values past 2^63 travel as their two's complement;
- a column's ``unsigned``/``zerofill`` are written only for numeric types, ``decimal`` only
  for DECIMAL and TIMESTAMP, ``elements`` only for ENUM and SET (so a DATETIME's fsp is lost).
"""

from __future__ import annotations

import io
import json
from importlib import resources
from typing import Any, Callable

import fastavro

from cdcwire.plugin_api import ColumnType, ValueKind, to_float32, value_kind

from .json_values import WireValueError, float32_of

T = ColumnType
NS = "com.pingcap.simple.avro."
_MASK = (1 << 64) - 1
_SIGN = 1 << 63
_NUMERIC = {T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.FLOAT, T.DOUBLE, T.BIT, T.YEAR}
_NUMERIC_NAMES = {"tinyint", "smallint", "mediumint", "int", "bigint", "float", "double", "bit", "year"}
_ROW_TYPES = ("INSERT", "UPDATE", "DELETE")


def _load_schema() -> Any:
    text = resources.files(__package__).joinpath("message.json").read_text(encoding="utf-8")
    return fastavro.parse_schema(json.loads(text))


SCHEMA = _load_schema()


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= _SIGN else v


def _unsigned(v: Any, what: str) -> int:
    if v.__class__ is not int:
        raise ValueError(f"{what} is not a long")
    return v & _MASK


class AvroFormat:
    """``encoding-format=avro``."""

    name = "avro"

    def __init__(self, time_zone: str) -> None:
        self.time_zone = time_zone

    # -- values --------------------------------------------------------------------------

    def value(self, ctype: ColumnType, flags: int, value: Any) -> Any:
        """The Avro union value of a non-NULL column value (tuple notation picks the branch)."""
        if ctype == T.TIMESTAMP:
            if not isinstance(value, str):
                raise TypeError(f"expected text, got {type(value).__name__}")
            return (NS + "Timestamp", {"location": self.time_zone, "value": value})
        kind = value_kind(ctype, flags)
        if kind is ValueKind.SIGNED or kind is ValueKind.UNSIGNED:
            if value.__class__ is not int:
                raise TypeError(f"expected an int, got {type(value).__name__}")
            if ctype == T.BIGINT and kind is ValueKind.UNSIGNED:
                return (NS + "UnsignedBigint", {"value": _signed(value)})
            return ("long", _signed(value))
        if kind is ValueKind.FLOAT32:
            return ("float", float(value))
        if kind is ValueKind.FLOAT64:
            return ("double", float(value))
        if kind is ValueKind.BYTES:
            return ("bytes", value.encode() if isinstance(value, str) else bytes(value))
        if not isinstance(value, str):
            raise TypeError(f"expected text, got {type(value).__name__}")
        return ("string", value)

    @staticmethod
    def reader(ctype: ColumnType, flags: int) -> Callable[[Any], Any]:
        if ctype == T.TIMESTAMP:
            return _timestamp
        kind = value_kind(ctype, flags)
        if ctype == T.BIT:
            return _bit
        if ctype == T.BIGINT and kind is ValueKind.UNSIGNED:
            return _unsigned_bigint
        if kind is ValueKind.SIGNED:
            return _long
        if kind is ValueKind.UNSIGNED:
            return _unsigned_long
        if kind is ValueKind.FLOAT32:
            return lambda raw: float32_of(_float(raw))
        if kind is ValueKind.FLOAT64:
            return _float
        if kind is ValueKind.BYTES:
            return _bytes
        if kind is ValueKind.NULL:
            return _null
        return _string

    @staticmethod
    def round_trip(value: Any) -> Any:
        """A value as it reads back (the carrier's model): the union's value without its branch."""
        branch, inner = value
        return _signed(inner) if branch == "long" else to_float32(inner) if branch == "float" else inner

    # -- messages ------------------------------------------------------------------------

    def dumps(self, message: dict[str, Any]) -> bytes:
        kind = message["type"]
        if kind == "WATERMARK":
            payload: Any = ("Watermark", {"version": 1, "commitTs": _signed(message["commitTs"]),
                                          "buildTs": message["buildTs"]})
            outer = "WATERMARK"
        elif kind == "BOOTSTRAP":
            payload = ("Bootstrap", {"version": 1, "buildTs": message["buildTs"],
                                     "tableSchema": _table_schema(message["tableSchema"])})
            outer = "BOOTSTRAP"
        elif kind in _ROW_TYPES:
            payload = ("DML", {
                "version": 1, "database": message["database"], "table": message["table"],
                "tableID": message.get("tableID", 0), "type": kind, "commitTs": _signed(message["commitTs"]),
                "buildTs": message["buildTs"], "schemaVersion": _signed(message.get("schemaVersion", 0)),
                "claimCheckLocation": message.get("claimCheckLocation"),
                "handleKeyOnly": message.get("handleKeyOnly"), "checksum": None,
                "data": message.get("data"), "old": message.get("old"),
            })
            outer = "DML"
        else:
            payload = ("DDL", {
                "version": 1, "type": kind, "sql": message.get("sql", ""), "commitTs": _signed(message["commitTs"]),
                "buildTs": message["buildTs"],
                "tableSchema": _optional_table_schema(message.get("tableSchema")),
                "preTableSchema": _optional_table_schema(message.get("preTableSchema")),
            })
            outer = "DDL"
        out = io.BytesIO()
        fastavro.schemaless_writer(out, SCHEMA, (NS + "Message", {"type": outer, "payload": (NS + payload[0], payload[1])}))
        return out.getvalue()

    def loads(self, data: bytes) -> dict[str, Any]:
        """The JSON message object of an Avro message; ValueError saying what is wrong."""
        if not data or data[0] != 0x16:
            raise ValueError(
                f"starts with byte {data[:1].hex() or 'none'}, not 0x16 (the Message branch of TiCDC's schema)"
            )
        buf = io.BytesIO(data)
        try:
            record = fastavro.schemaless_reader(buf, SCHEMA, return_record_name=True)
        except (EOFError, IndexError, KeyError, TypeError, OverflowError, MemoryError, ValueError) as exc:
            raise ValueError(f"does not read with TiCDC's simple Avro schema ({type(exc).__name__}: {exc})"[:200]) \
                from None
        if buf.tell() != len(data):
            raise ValueError(f"has {len(data) - buf.tell()} bytes after its message")
        name, message = record
        if name != NS + "Message":
            raise ValueError(f"is a {name.removeprefix(NS)}, not a Message")
        _, payload = message["payload"]
        out = {k: v for k, v in payload.items() if v is not None}
        out["commitTs"] = _unsigned(payload.get("commitTs", 0), "commitTs")
        if message["type"] in ("WATERMARK", "BOOTSTRAP"):
            out["type"] = message["type"]
        if "schemaVersion" in out:
            out["schemaVersion"] = _unsigned(out["schemaVersion"], "schemaVersion")
        for field in ("tableSchema", "preTableSchema"):
            if field in out:
                out[field] = _read_table_schema(out[field][1] if isinstance(out[field], tuple) else out[field])
        for field in ("data", "old"):
            if field in out:
                out[field] = {k: v[1] if isinstance(v, tuple) else v for k, v in out[field].items()}
        return out


# -- table schemas -------------------------------------------------------------------------


def _optional_table_schema(wire: Any) -> Any:
    return None if wire is None else (NS + "TableSchema", _table_schema(wire))


def _table_schema(wire: dict[str, Any]) -> dict[str, Any]:
    columns = []
    for col in wire["columns"]:
        dt = col["dataType"]
        name = dt["mysqlType"]
        data_type: dict[str, Any] = {"mysqlType": name, "charset": dt["charset"], "collate": dt["collate"],
                                     "length": dt.get("length", 0)}
        if name in _NUMERIC_NAMES or name == "decimal":
            data_type["unsigned"] = bool(dt.get("unsigned"))
            data_type["zerofill"] = bool(dt.get("zerofill"))
        if name in ("enum", "set"):
            data_type["elements"] = list(dt.get("elements") or ())
        if name in ("decimal", "timestamp"):
            data_type["decimal"] = dt.get("decimal", 0)
        default = col.get("default")
        columns.append({"name": col["name"], "dataType": data_type, "nullable": col["nullable"],
                        "default": None if default is None else str(default)})
    return {"database": wire["schema"], "table": wire["table"], "tableID": wire["tableID"],
            "version": _signed(wire["version"]), "columns": columns, "indexes": wire["indexes"]}


def _read_table_schema(record: dict[str, Any]) -> dict[str, Any]:
    out = dict(record)
    out["version"] = _unsigned(record["version"], "tableSchema.version")
    return out


# -- value readers -------------------------------------------------------------------------


def _long(raw: Any) -> int:
    if raw.__class__ is not int:
        raise WireValueError(f"must be a long, got {type(raw).__name__}")
    return raw


def _unsigned_long(raw: Any) -> int:
    return _long(raw) & _MASK


def _bit(raw: Any) -> int:
    """BIT: a long (TiCDC's docs, tiflow) or a string of decimal digits (older ticdc)."""
    if isinstance(raw, str):
        if not raw.isascii() or not raw.isdigit() or len(raw) > 20 or int(raw) > _MASK:
            raise WireValueError(f"a BIT must be a long or decimal digits, got {raw[:40]!r}")
        return int(raw)
    return _unsigned_long(raw)


def _unsigned_bigint(raw: Any) -> int:
    if not isinstance(raw, dict) or raw.get("value").__class__ is not int:
        raise WireValueError("a BIGINT UNSIGNED must be an UnsignedBigint record")
    return raw["value"] & _MASK


def _float(raw: Any) -> float:
    if raw.__class__ is not float:
        raise WireValueError(f"must be a float or double, got {type(raw).__name__}")
    return raw


def _bytes(raw: Any) -> bytes:
    if not isinstance(raw, bytes):
        raise WireValueError(f"must be bytes, got {type(raw).__name__}")
    return raw


def _string(raw: Any) -> str:
    if not isinstance(raw, str):
        raise WireValueError(f"must be a string, got {type(raw).__name__}")
    return raw


def _timestamp(raw: Any) -> str:
    if not isinstance(raw, dict) or not isinstance(raw.get("value"), str) or "location" not in raw:
        raise WireValueError("a TIMESTAMP must be a Timestamp record")
    return raw["value"]


def _null(raw: Any) -> None:
    raise WireValueError("a column of the NULL type holds only null")
