"""A storage-sink layout written from events, laid out as TiCDC lays it out, so cdcwire can make
test data for TiCDC's consumers and transcode any topic into the layout.

Per table, each DDL starts a table version at its commit ts (a table's rows before any DDL
get a version at their first commit ts); the version's schema file takes its columns from
the version's first row (the event model carries no table schema), and a database DDL is a
database-level schema file. Rows go to ``<schema>/<table>/<version>[/<partition>][/<date>]/``
(the partition directory is the row's ``table_id`` when ``enable-partition-separator``; the
date is the commit ts's UTC day, month or year), one data file per directory,
``CDC<index>`` with ``file-index-digit`` digits. What TiCDC's writer does in order, this does
too: schema files, then each data file before its index file, and the root checkpoint last
(the newest resolved ts, else the newest commit ts), so a write that fails part way leaves a
layout a reader reads up to its old checkpoint.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timezone
from typing import Callable, Iterable, Optional

from ...events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent
from ...type_codes import ColumnFlag as F, ColumnType as T
from ...type_text import TypeText, parse_type_text
from .csv_encoding import CsvEncoder
from .location import StorageLocation
from .paths import METADATA, DataDir
from .replay import csv_options
from .schema_files import SchemaFile, TableCol

#: Encodes one row event as a canal-json line (the caller's, from the codec registry).
LineEncoder = Callable[[RowChangedEvent], bytes]

_NAMES = {T.TINYINT: "TINYINT", T.SMALLINT: "SMALLINT", T.MEDIUMINT: "MEDIUMINT", T.INT: "INT", T.BIGINT: "BIGINT",
          T.FLOAT: "FLOAT", T.DOUBLE: "DOUBLE", T.DECIMAL: "DECIMAL", T.NULL: "NULL", T.TIMESTAMP: "TIMESTAMP",
          T.DATE: "DATE", T.NEWDATE: "DATE", T.TIME: "TIME", T.DATETIME: "DATETIME", T.YEAR: "YEAR", T.BIT: "BIT",
          T.JSON: "JSON", T.ENUM: "ENUM", T.SET: "SET", T.VAR_STRING: "VAR_STRING", T.GEOMETRY: "GEOMETRY"}
_STRINGS = {T.CHAR: ("CHAR", "BINARY"), T.VARCHAR: ("VARCHAR", "VARBINARY"), T.TINYBLOB: ("TINYTEXT", "TINYBLOB"),
            T.BLOB: ("TEXT", "BLOB"), T.MEDIUMBLOB: ("MEDIUMTEXT", "MEDIUMBLOB"), T.LONGBLOB: ("LONGTEXT", "LONGBLOB")}
_NUMBERS = frozenset({T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.FLOAT, T.DOUBLE, T.DECIMAL})
_DATE_FORMS = {"none": None, "year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}


def table_col(column: Column) -> TableCol:
    """The schema file's column for a cdcwire column (its MySQL type text gives sizes and elements)."""
    if column.type in _STRINGS:
        name = _STRINGS[column.type][1 if column.flags & F.BINARY else 0]
    else:
        name = _NAMES[column.type]
    if column.flags & F.UNSIGNED and column.type in _NUMBERS:
        name += " UNSIGNED"
    parsed = parse_type_text(column.mysql_type) if column.mysql_type else None
    text = parsed if isinstance(parsed, TypeText) else None
    precision = scale = ""
    if text is not None and text.length is not None:
        if column.type in (T.TIME, T.DATETIME, T.TIMESTAMP):
            scale = str(text.length)
        else:
            precision = str(text.length)
            if column.type in (T.DECIMAL, T.FLOAT, T.DOUBLE) and text.scale is not None:
                scale = str(text.scale)
    return TableCol(
        name=column.name, type=name, precision=precision, scale=scale,
        nullable="" if column.flags & F.NULLABLE else "false",
        is_pk="true" if column.flags & F.PRIMARY_KEY else "",
        elems=text.elements if text is not None and column.type in (T.ENUM, T.SET) else None,
    )


def write_layout(location: StorageLocation, events: Iterable[Event], encode_line: Optional[LineEncoder] = None) -> int:
    """Write ``events`` as a layout under the location; returns how many row events were written."""
    storage = location.storage
    ddls: dict[tuple[str, str], list[DDLEvent]] = defaultdict(list)
    rows: dict[tuple[str, str], list[RowChangedEvent]] = defaultdict(list)
    checkpoint = resolved = -1
    for event in events:
        if isinstance(event, ResolvedEvent):
            resolved = max(resolved, event.ts)
        elif isinstance(event, DDLEvent):
            ddls[(event.schema, event.table)].append(event)
        else:
            rows[(event.schema, event.table)].append(event)
        checkpoint = max(checkpoint, event.commit_ts)
    files: dict[DataDir, list[RowChangedEvent]] = defaultdict(list)
    schema_files: list[tuple[str, SchemaFile]] = []
    for (schema, table), ddl_list in ddls.items():
        if not table:
            for ddl in ddl_list:
                sf = SchemaFile(schema, "", ddl.commit_ts, ddl.query, int(ddl.ddl_type), None, 0)
                schema_files.append((f"{schema}/meta/{sf.file_name()}", sf))
    for key in sorted(set(rows) | {k for k in ddls if k[1]}):
        schema, table = key
        versions = sorted({d.commit_ts for d in ddls.get(key, ())})
        table_rows = rows.get(key, [])
        if table_rows and (not versions or table_rows[0].commit_ts < versions[0]):
            versions.insert(0, min(r.commit_ts for r in table_rows))
        by_version: dict[int, list[RowChangedEvent]] = defaultdict(list)
        for row in table_rows:
            by_version[max((v for v in versions if v <= row.commit_ts), default=versions[0])].append(row)
        queries = {d.commit_ts: d for d in ddls.get(key, ())}
        columns: tuple[TableCol, ...] = ()
        for version in versions:
            if by_version.get(version):
                columns = tuple(table_col(c) for c in by_version[version][0].image)
            ddl = queries.get(version)
            sf = SchemaFile(schema, table, version, ddl.query if ddl else "", int(ddl.ddl_type) if ddl else 0,
                            columns, len(columns))
            schema_files.append((f"{schema}/{table}/meta/{sf.file_name()}", sf))
            for row in by_version.get(version, ()):
                files[_data_dir(location, row, version)].append(row)
    for path, sf in schema_files:
        storage.put(path, sf.marshal())
    written = 0
    for directory in sorted(files, key=DataDir.sort_key):
        name = f"CDC{1:0{location['file-index-digit']}d}{location.extension}"
        storage.put(f"{directory.path()}/{name}", _data(location, files[directory], encode_line))
        storage.put(f"{directory.path()}/meta/CDC.index", (name + "\n").encode())
        written += len(files[directory])
    storage.put(METADATA, json.dumps({"checkpoint-ts": max(resolved, checkpoint, 0)}).encode())
    return written


def _data_dir(location: StorageLocation, row: RowChangedEvent, version: int) -> DataDir:
    form = _DATE_FORMS[location["date-separator"]]
    date = datetime.fromtimestamp((row.commit_ts >> 18) / 1000, timezone.utc).strftime(form) if form else ""
    partition = row.table_id if location["enable-partition-separator"] else None
    return DataDir(version, row.schema, row.table, partition, date)


def _data(location: StorageLocation, rows: list[RowChangedEvent], encode_line: Optional[LineEncoder]) -> bytes:
    if location.protocol == "csv":
        options = csv_options(location)
        encoder = CsvEncoder(options, location["binary-encoding-method"])
        head = encoder.header(c.name for c in rows[0].image) if options.header else ""
        return (head + "".join(encoder.encode(r) for r in rows)).encode("utf-8")
    assert encode_line is not None, "canal-json needs the canal-json encoder"
    terminator = location["terminator"].encode()
    return b"".join(encode_line(r) + terminator for r in rows)
