"""What each path of a storage-sink layout names, as TiCDC's ``pkg/cloudstorage`` builds it::

    metadata                                             the root checkpoint
    <schema>/meta/schema_<ver>_<crc>.json                a database-level schema file (its DDL)
    <schema>/<table>/meta/schema_<ver>_<crc>.json        a table version's schema file
    <schema>/<table>/<ver>[/<partition>][/<date>]/CDC<idx>.<ext>            data
    <schema>/<table>/<ver>[/<partition>][/<date>]/meta/CDC.index            the directory's last file
    (use-table-id-as-path: <tableID>/<ver>[/<date>]/... and <tableID>/meta/schema_...)

Table-across-nodes mode names files ``CDC_<dispatcher>_<idx>`` and ``meta/CDC_<dispatcher>.index``.
Paths that are none of these (a ``.tmp`` of a write, a stray file) are left alone, as the
reference consumer leaves them.

Schema and table names are path segments as they are: TiCDC joins them into paths unescaped
(``path.Join``, which even resolves a ``..``), and its consumer splits paths at ``/``. A name
that cannot be one segment (empty, ``.``, ``..``, or holding a ``/`` or a NUL) would put files
outside the table's directory, or outside the root, where no reader finds them: a writer
refuses it before it writes anything (:func:`check_segment`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Union

from ...foundation.errors import CdcwireError
from ...model.validation import I64_MAX, U64_MAX
from .places import LayoutError, Place

METADATA = "metadata"
SCHEMA_FILE = re.compile(r"schema_(\d+)_(\d{10})\.json")
INDEX_FILE = re.compile(r"CDC(?:_([^/]+))?\.index")
_DATA_FILE = re.compile(r"CDC(?:_(?P<dispatcher>[^/]+)_)?(?P<index>\d+)(?P<ext>\.csv|\.json)")
_DATE = {"none": None, "year": re.compile(r"\d{4}"), "month": re.compile(r"\d{4}-\d{2}"),
         "day": re.compile(r"\d{4}-\d{2}-\d{2}")}


class LayoutNameError(CdcwireError):
    """A schema or table name that cannot be a directory of a layout (see the module's text)."""


def segment_problem(name: str) -> Optional[str]:
    """Why ``name`` cannot be one path segment of a layout, None if it can."""
    if name in ("", ".", ".."):
        return "is empty" if not name else f"is {name!r}"
    if "/" in name:
        return "holds a '/'"
    if "\0" in name:
        return "holds a NUL character"
    return None


def check_segment(kind: str, name: str, where: str) -> None:
    """Refuse (one line) a schema or table name that cannot be a directory of the layout."""
    problem = segment_problem(name)
    if problem is not None:
        raise LayoutNameError(
            f"{kind} name {name!r} of {where} {problem}: a storage-sink layout writes each schema and table"
            " name as one directory, unescaped as TiCDC writes it, so the files would land outside the table's"
            " directory and never be read; nothing was written (leave the table out or rename it)"
        )


@dataclass(frozen=True, slots=True, order=True)
class DataDir:
    """One data directory: a table version, and its partition and date when the layout has them.
    ``table_id`` is set in use-table-id-as-path layouts, where ``schema``/``table`` are unknown
    until the schema file says them."""

    version: int
    schema: str
    table: str
    partition: Optional[int] = None
    date: str = ""
    table_id: Optional[int] = None

    def path(self) -> str:
        head = [str(self.table_id)] if self.table_id is not None else [self.schema, self.table]
        rest = [str(self.version)] + ([str(self.partition)] if self.partition is not None else [])
        return "/".join(head + rest + ([self.date] if self.date else []))

    def sort_key(self) -> tuple:
        """TiCDC's ``CompareDMLPathKey``: table version first, then partition, date, table."""
        return (self.version, self.partition if self.partition is not None else 0, self.date,
                self.table_id is not None, self.table_id or 0, self.schema, self.table)


@dataclass(frozen=True, slots=True)
class SchemaPath:
    """A schema file's path: its table (``table`` "" for a database-level file), version and checksum."""

    schema: str
    table: str
    version: int
    checksum: int
    table_id: Optional[int] = None


@dataclass(frozen=True, slots=True)
class IndexPath:
    directory: DataDir
    dispatcher: str = ""


@dataclass(frozen=True, slots=True)
class DataPath:
    directory: DataDir
    index: int
    extension: str
    dispatcher: str = ""


Named = Union[SchemaPath, IndexPath, DataPath, None]


def data_file_index(name: str) -> Optional[tuple[str, int, str]]:
    """``(dispatcher, index, extension)`` of a data file name (``CDC000001.csv``), None if it is not one."""
    m = _DATA_FILE.fullmatch(name)
    if m is None:
        return None
    return m.group("dispatcher") or "", int(m.group("index")), m.group("ext")


def parse_path(path: str, date_separator: str, table_id_paths: bool) -> Named:
    """What ``path`` (relative to the root) names, or None for anything else (the root metadata
    included: the caller looks for it by name). A number in it outside what TiCDC writes there
    (a version or file index past 2^64-1, a partition or table id past 2^63-1) is a LayoutError
    naming the path: the events would carry it, and no event can."""
    named = _named(path, date_separator, table_id_paths)
    problem = _number_problem(named)
    if problem is not None:
        raise LayoutError(Place(path), f"{problem}: not a path TiCDC writes")
    return named


def _number_problem(named: Named) -> Optional[str]:
    if isinstance(named, SchemaPath):
        numbers = [("table version", named.version, U64_MAX), ("table id", named.table_id, I64_MAX)]
    elif isinstance(named, (IndexPath, DataPath)):
        d = named.directory
        numbers = [("table version", d.version, U64_MAX), ("table id", d.table_id, I64_MAX),
                   ("partition", d.partition, I64_MAX)]
        if isinstance(named, DataPath):
            numbers.append(("file index", named.index, U64_MAX))
    else:
        return None
    for what, value, limit in numbers:
        if value is not None and value > limit:
            return f"{what} {value} is past {limit}"
    return None


def _named(path: str, date_separator: str, table_id_paths: bool) -> Named:
    parts = path.split("/")
    name = parts[-1]
    if len(parts) >= 3 and parts[-2] == "meta":
        m = SCHEMA_FILE.fullmatch(name)
        if m is not None:
            return _schema_path(parts[:-2], int(m.group(1)), int(m.group(2)), table_id_paths)
        m = INDEX_FILE.fullmatch(name)
        if m is not None:
            directory = _data_dir(parts[:-2], date_separator, table_id_paths)
            return None if directory is None else IndexPath(directory, m.group(1) or "")
        return None
    found = data_file_index(name)
    if found is None:
        return None
    directory = _data_dir(parts[:-1], date_separator, table_id_paths)
    if directory is None:
        return None
    dispatcher, index, extension = found
    return DataPath(directory, index, extension, dispatcher)


def _schema_path(head: list[str], version: int, checksum: int, table_id_paths: bool) -> Optional[SchemaPath]:
    if len(head) == 1 and table_id_paths and head[0].isdigit():
        return SchemaPath("", "", version, checksum, int(head[0]))
    if len(head) == 1:
        return SchemaPath(head[0], "", version, checksum)
    if len(head) == 2:
        return SchemaPath(head[0], head[1], version, checksum)
    return None


def _data_dir(parts: list[str], date_separator: str, table_id_paths: bool) -> Optional[DataDir]:
    """The data directory ``parts`` name, as ``parseDMLDataDir`` reads them, or None."""
    date_form = _DATE[date_separator]
    date = ""
    if date_form is not None:
        if not parts or not date_form.fullmatch(parts[-1]):
            return None
        date, parts = parts[-1], parts[:-1]
    if table_id_paths and len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
        return DataDir(int(parts[1]), "", "", None, date, int(parts[0]))
    if len(parts) == 3 and parts[2].isdigit():
        return DataDir(int(parts[2]), parts[0], parts[1], None, date)
    if len(parts) == 4 and parts[2].isdigit() and parts[3].isdigit():
        return DataDir(int(parts[2]), parts[0], parts[1], int(parts[3]), date)
    return None
