"""Schema files (``meta/schema_<version>_<checksum>.json``): one per table version, the table's
columns and the DDL that made the version; checked against the checksum in their name.

TiCDC's ``SchemaFile``: ``Table``, ``Schema``, ``Version`` (1), ``TableVersion``, ``Query``,
``Type`` (TiDB's action type), ``TableColumns`` (each attribute a string: ``ColumnName``,
``ColumnType``, ``ColumnPrecision``, ``ColumnScale``, ``ColumnNullable``, ``ColumnIsPk``,
``ColumnElems``, ``ColumnDefault``, ``ColumnId``) and ``TableColumnsTotal``. The checksum is
the CRC32 (IEEE) of Go's indented JSON of ``{Table, Schema, Version: 0, TableColumns sorted
by name, TableColumnsTotal}``: a file edited or cut short after it was named fails it.
TiCDC's documentation shows ``ColumnLength`` and a string ``TableColumnsTotal``; both are read.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any, Optional

from ...model.validation import I64_MAX, U64_MAX
from .go_json import marshal_indent
from .places import LayoutError, Place

#: TableCol's keys in Go's field order (what the checksum's JSON holds, omitempty each).
_COLUMN_KEYS = ("ColumnId", "ColumnName", "ColumnType", "ColumnDefault", "ColumnPrecision", "ColumnScale",
                "ColumnNullable", "ColumnIsPk", "ColumnElems")


@dataclass(frozen=True, slots=True)
class TableCol:
    """One column as a schema file declares it (attribute texts as written; "" when absent)."""

    name: str
    type: str
    precision: str = ""
    scale: str = ""
    nullable: str = ""
    is_pk: str = ""
    elems: Optional[tuple[str, ...]] = None
    default: Any = None
    column_id: str = ""

    def go_fields(self) -> dict[str, Any]:
        """The column as Go marshals ``TableCol`` (empty attributes left out)."""
        values = {"ColumnId": self.column_id, "ColumnName": self.name, "ColumnType": self.type,
                  "ColumnDefault": self.default, "ColumnPrecision": self.precision, "ColumnScale": self.scale,
                  "ColumnNullable": self.nullable, "ColumnIsPk": self.is_pk,
                  "ColumnElems": list(self.elems) if self.elems else None}
        return {k: values[k] for k in _COLUMN_KEYS
                if k in ("ColumnName", "ColumnType") or values[k] not in (None, "", [])}


@dataclass(frozen=True, slots=True)
class SchemaFile:
    """A schema file's content. ``columns`` None: the file has ``"TableColumns": null``
    (a database-level file), which Go marshals differently from an empty list."""

    schema: str
    table: str
    table_version: int
    query: str
    ddl_type: int
    columns: Optional[tuple[TableCol, ...]]
    total_columns: int
    version: int = 1

    def checksum(self, null_columns: bool = False) -> int:
        """TiCDC's ``SchemaFile.Checksum``: CRC32 of the Go-indented JSON of the checked fields.

        The columns are a sorted copy, which TiCDC's tests show as ``[]`` for a database-level
        file (3233644819 for ``schema1`` at 100); ``null_columns``: the ``null`` a Go whose
        clone of a nil slice stays nil writes instead (the reader accepts either)."""
        columns = self.columns or ()
        cols = None if null_columns else [c.go_fields() for c in sorted(columns, key=lambda c: c.name.encode())]
        payload = {"Table": self.table, "Schema": self.schema, "Version": 0, "TableColumns": cols,
                   "TableColumnsTotal": self.total_columns}
        return zlib.crc32(marshal_indent(payload).encode("utf-8"))

    def marshal(self) -> bytes:
        """The file's bytes as TiCDC writes them (Go's ``MarshalIndent``, 4 spaces)."""
        cols = None if self.columns is None else [c.go_fields() for c in self.columns]
        doc = {"Table": self.table, "Schema": self.schema, "Version": self.version,
               "TableVersion": self.table_version, "Query": self.query, "Type": self.ddl_type,
               "TableColumns": cols, "TableColumnsTotal": self.total_columns}
        return marshal_indent(doc).encode("utf-8")

    def file_name(self) -> str:
        return f"schema_{self.table_version}_{self.checksum():010d}.json"


def parse_schema_file(data: bytes, place: Place, checksum: Optional[int] = None) -> SchemaFile:
    """The schema file of ``data``, checked against ``checksum`` (the one in its name), or a
    LayoutError naming the file and what is wrong."""
    try:
        doc = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LayoutError(place, f"schema file is not JSON ({exc}); the file is damaged") from None
    if not isinstance(doc, dict):
        raise LayoutError(place, "schema file is not a JSON object")
    try:
        columns = doc.get("TableColumns")
        parsed = SchemaFile(
            schema=_text(doc, "Schema"), table=_text(doc, "Table"),
            table_version=_number(doc, "TableVersion", 0), query=_text(doc, "Query"),
            ddl_type=_number(doc, "Type", 0),
            columns=None if columns is None else tuple(_column(c, i) for i, c in enumerate(_list(columns))),
            total_columns=_number(doc, "TableColumnsTotal", 0), version=_number(doc, "Version", 1),
        )
    except ValueError as exc:
        raise LayoutError(place, f"schema file {exc}") from None
    if checksum is not None and checksum not in (parsed.checksum(), parsed.checksum(null_columns=True)):
        raise LayoutError(
            place,
            f"schema file checksum is {parsed.checksum():010d}, its name says {checksum:010d}: the file was changed"
            " or cut short after TiCDC wrote it",
        )
    return parsed


def _text(doc: dict, key: str) -> str:
    value = doc.get(key, "")
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} must be a string, got {type(value).__name__}")
    return value


def _number(doc: dict, key: str, default: int) -> int:
    """A number field, within what Go reads into TiCDC's field (``TableVersion`` a uint64, the
    others an int, 64 bits here)."""
    value = doc.get(key, default)
    if isinstance(value, str) and value.isdigit():  # the documentation's examples: "TableColumnsTotal": "5"
        value = int(value)
    limit = U64_MAX if key == "TableVersion" else I64_MAX
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= limit:
        raise ValueError(f"field {key!r} must be an integer 0..{limit}, got {value!r}")
    return value


def _list(value: Any) -> list:
    if not isinstance(value, list):
        raise ValueError(f"field 'TableColumns' must be a list, got {type(value).__name__}")
    return value


def _column(doc: Any, i: int) -> TableCol:
    if not isinstance(doc, dict):
        raise ValueError(f"column {i} must be an object")
    for key in ("ColumnName", "ColumnType"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise ValueError(f"column {i} needs a string {key!r}")

    def attr(key: str) -> str:
        value = doc.get(key, "")
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise ValueError(f"column {doc['ColumnName']!r}: {key!r} must be a string")
        return value

    elems = doc.get("ColumnElems")
    if elems is not None and (not isinstance(elems, list) or not all(isinstance(e, str) for e in elems)):
        raise ValueError(f"column {doc['ColumnName']!r}: 'ColumnElems' must be a list of strings")
    return TableCol(
        name=doc["ColumnName"], type=doc["ColumnType"],
        precision=attr("ColumnPrecision") or attr("ColumnLength"), scale=attr("ColumnScale"),
        nullable=attr("ColumnNullable"), is_pk=attr("ColumnIsPk"),
        elems=tuple(elems) if elems is not None else None, default=doc.get("ColumnDefault"),
        column_id=attr("ColumnId"),
    )
