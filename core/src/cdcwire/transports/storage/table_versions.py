"""Where a written event goes in a storage-sink layout: its table version, its data directory,
and each version's schema file. Both writers (``cdcwire.write_storage`` in one process and
``cdcwire.spark.write`` on executors) take these rules from here.

Per table, each DDL starts a table version at its commit ts, as TiCDC starts one only on a
DDL; a table's rows before any DDL go to the newest version the layout already has for the
table (a write that appends continues it, as TiCDC's writer takes the latest schema file it
finds), else to a new version at their first commit ts; a row belongs to the newest version at
or below its commit ts. Of several DDLs of one table at one commit ts, the last in input order names the
version. Each version's schema file takes its columns from the table schema its DDL carries
(plugin API 1.7: types, widths and defaults, as TiCDC writes them from the table info), else
from the version's first row (by commit ts, then input order), which carries no defaults; a
version with neither keeps the columns of the version before it. A database DDL is a database-level schema file.

What needs the whole input is small: the DDLs, and each table's first row commit ts. A writer
gathers those first (Spark: one aggregate), makes a :class:`TablePlan`, and then places every
row on its own (Spark: on the executors), since a row's version and date rise with its
commit ts.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Iterable, Mapping, Optional, Union

from ...foundation.errors import CdcwireError
from ...model.events import Column, DDLEvent, RowChangedEvent
from ...model.table_schema import ColumnSchema
from ...values.type_codes import ColumnFlag as F, ColumnType as T
from ...values.type_text import TypeText, parse_type_text
from .location import StorageLocation
from .paths import DataDir, SchemaPath, check_segment, parse_path
from .schema_files import SchemaFile, TableCol

TableKey = tuple[str, str]
#: A table version: schema, table, version.
VersionKey = tuple[str, str, int]

_NAMES = {T.TINYINT: "TINYINT", T.SMALLINT: "SMALLINT", T.MEDIUMINT: "MEDIUMINT", T.INT: "INT", T.BIGINT: "BIGINT",
          T.FLOAT: "FLOAT", T.DOUBLE: "DOUBLE", T.DECIMAL: "DECIMAL", T.NULL: "NULL", T.TIMESTAMP: "TIMESTAMP",
          T.DATE: "DATE", T.NEWDATE: "DATE", T.TIME: "TIME", T.DATETIME: "DATETIME", T.YEAR: "YEAR", T.BIT: "BIT",
          T.JSON: "JSON", T.ENUM: "ENUM", T.SET: "SET", T.VAR_STRING: "VAR_STRING", T.GEOMETRY: "GEOMETRY"}
_STRINGS = {T.CHAR: ("CHAR", "BINARY"), T.VARCHAR: ("VARCHAR", "VARBINARY"), T.TINYBLOB: ("TINYTEXT", "TINYBLOB"),
            T.BLOB: ("TEXT", "BLOB"), T.MEDIUMBLOB: ("MEDIUMTEXT", "MEDIUMBLOB"), T.LONGBLOB: ("LONGTEXT", "LONGBLOB")}
_NUMBERS = frozenset({T.TINYINT, T.SMALLINT, T.MEDIUMINT, T.INT, T.BIGINT, T.FLOAT, T.DOUBLE, T.DECIMAL})
_DATE_FORMS = {"none": None, "year": "%Y", "month": "%Y-%m", "day": "%Y-%m-%d"}


#: TiDB's display width of a column whose type text gives none (``GetDefaultFieldLengthAndDecimal``,
#: and for unsigned integers the width TiDB gives them), which TiCDC's schema files write.
_DEFAULT_WIDTH = {T.TINYINT: (4, 3), T.SMALLINT: (6, 5), T.MEDIUMINT: (9, 8), T.INT: (11, 10), T.BIGINT: (20, 20),
                  T.FLOAT: (12, 12), T.DOUBLE: (22, 22), T.DECIMAL: (10, 10), T.BIT: (1, 1), T.YEAR: (4, 4),
                  T.TINYBLOB: (255, 255), T.BLOB: (65535, 65535), T.MEDIUMBLOB: (16777215, 16777215),
                  T.LONGBLOB: (4294967295, 4294967295)}


def table_col(column: Union[Column, ColumnSchema]) -> TableCol:
    """The schema file's column for a cdcwire column, as TiCDC's ``TableCol.FromTiColumnInfo``
    writes it: the MySQL type text gives sizes and elements, TiDB's default width stands in
    where it gives none (a plain ``float`` is 12, a ``double`` 22, a ``decimal`` 10 with scale
    0), and a table schema's column gives its default."""
    if column.type in _STRINGS:
        name = _STRINGS[column.type][1 if column.flags & F.BINARY else 0]
    else:
        name = _NAMES[column.type]
    if column.flags & F.UNSIGNED and column.type in _NUMBERS:
        name += " UNSIGNED"
    parsed = parse_type_text(column.mysql_type) if column.mysql_type else None
    text = parsed if isinstance(parsed, TypeText) else None
    precision = scale = ""
    length = text.length if text is not None else None
    if column.type in (T.TIME, T.DATETIME, T.TIMESTAMP):
        scale = str(length) if length else ""
    elif length is not None or column.type in _DEFAULT_WIDTH:
        widths = _DEFAULT_WIDTH.get(column.type, (0, 0))
        precision = str(length if length is not None else widths[1 if column.flags & F.UNSIGNED else 0])
        if column.type in (T.FLOAT, T.DOUBLE) and text is not None and text.scale:
            scale = str(text.scale)
        elif column.type == T.DECIMAL:
            scale = str(text.scale or 0) if text is not None else "0"
    return TableCol(
        name=column.name, type=name, precision=precision, scale=scale,
        nullable="" if column.flags & F.NULLABLE else "false",
        is_pk="true" if column.flags & F.PRIMARY_KEY else "",
        elems=text.elements if text is not None and column.type in (T.ENUM, T.SET) else None,
        default=column.default if isinstance(column, ColumnSchema) else None,
    )


class UnplannedTableError(CdcwireError):
    """A row of a table the write did not plan: the input gave other rows when the table versions
    were planned than when its rows were written."""


@dataclass(frozen=True)
class TablePlan:
    """The table versions of one write and the DDL that starts each (small: a few per table)."""

    versions: Mapping[TableKey, tuple[int, ...]]
    ddls: Mapping[TableKey, Mapping[int, DDLEvent]]
    database_ddls: tuple[DDLEvent, ...] = field(default=())
    #: The versions the layout had before the write (their schema files are in place).
    existing: frozenset[VersionKey] = field(default=frozenset())

    @classmethod
    def of(cls, ddls: Iterable[DDLEvent], first_row_ts: Mapping[TableKey, int],
           existing: Mapping[TableKey, Iterable[int]] = {}) -> "TablePlan":
        """The plan of a write from its DDLs (in input order) and each table's first row commit ts.
        A schema or table name that cannot be a directory is refused here, before anything is
        written: both writers make their plan first."""
        table_ddls: dict[TableKey, dict[int, DDLEvent]] = {}
        database: list[DDLEvent] = []
        for ddl in ddls:
            if ddl.table:
                table_ddls.setdefault((ddl.schema, ddl.table), {})[ddl.commit_ts] = ddl
            else:
                database.append(ddl)
        for ddl in database:
            check_segment("schema", ddl.schema, f"the database DDL at {ddl.commit_ts} ({ddl.query[:60]!r})")
        versions: dict[TableKey, tuple[int, ...]] = {}
        had: set[VersionKey] = set()
        for key in sorted(set(first_row_ts) | set(table_ddls)):
            check_segment("schema", key[0], f"table {key[0]}.{key[1]}")
            check_segment("table", key[1], f"table {key[0]}.{key[1]}")
            before = set(existing.get(key, ()))
            had.update((*key, v) for v in before)
            found = sorted(set(table_ddls.get(key, ())) | before)
            first = first_row_ts.get(key)
            if first is not None and (not found or first < found[0]):
                found.insert(0, first)
            versions[key] = tuple(found)
        return cls(versions, table_ddls, tuple(database), frozenset(had))

    def version_of(self, schema: str, table: str, commit_ts: int) -> int:
        """The version a row at ``commit_ts`` belongs to: the newest at or below it."""
        versions = self.versions.get((schema, table))
        if not versions:
            raise UnplannedTableError(
                f"a row of {schema}.{table} at {commit_ts}, a table the write did not plan: the input gave"
                " other rows when its tables were planned (read it once, e.g. df.cache(), or from a bounded source)"
            )
        return versions[max(bisect.bisect_right(versions, commit_ts) - 1, 0)]

    def data_dir(self, location: StorageLocation, row: RowChangedEvent) -> DataDir:
        """The directory of ``row``: its table version, partition (``table_id``, with
        ``enable-partition-separator``) and the UTC date of its commit ts (``date-separator``)."""
        form = _DATE_FORMS[location["date-separator"]]
        date = datetime.fromtimestamp((row.commit_ts >> 18) / 1000, timezone.utc).strftime(form) if form else ""
        partition = row.table_id if location["enable-partition-separator"] else None
        version = self.version_of(row.schema, row.table, row.commit_ts)
        return DataDir(version, row.schema, row.table, partition, date)

    def schema_files(
        self, first_images: Mapping[VersionKey, tuple[Column, ...]]
    ) -> list[tuple[str, SchemaFile]]:
        """Every schema file of the write, with its path: the database-level ones, then each
        table's versions in order. ``first_images``: each version's first row image (see
        :func:`~cdcwire.transports.storage.data_files.first_images`)."""
        files: list[tuple[str, SchemaFile]] = []
        for ddl in self.database_ddls:
            sf = SchemaFile(ddl.schema, "", ddl.commit_ts, ddl.query, int(ddl.ddl_type), None, 0)
            files.append((f"{ddl.schema}/meta/{sf.file_name()}", sf))
        for (schema, table), versions in self.versions.items():
            columns: tuple[TableCol, ...] = ()
            for version in versions:
                ddl: Optional[DDLEvent] = self.ddls.get((schema, table), {}).get(version)
                image = first_images.get((schema, table, version))
                if ddl is not None and ddl.table_schema is not None and ddl.table_schema.columns:
                    columns = tuple(table_col(c) for c in ddl.table_schema.columns)
                elif image is not None:
                    columns = tuple(table_col(c) for c in image)
                if (schema, table, version) in self.existing:
                    continue  # its schema file is in place; this write adds rows to it
                query, ddl_type = (ddl.query, int(ddl.ddl_type)) if ddl else ("", 0)
                sf = SchemaFile(schema, table, version, query, ddl_type, columns, len(columns))
                files.append((f"{schema}/{table}/meta/{sf.file_name()}", sf))
        return files


def existing_versions(location: StorageLocation) -> dict[TableKey, tuple[int, ...]]:
    """The table versions a layout already has: its table schema files (one listing)."""
    found: dict[TableKey, set[int]] = {}
    for name in location.storage.names():
        named = parse_path(name, location["date-separator"], False)
        if isinstance(named, SchemaPath) and named.table and named.table_id is None:
            found.setdefault((named.schema, named.table), set()).add(named.version)
    return {key: tuple(sorted(versions)) for key, versions in found.items()}
