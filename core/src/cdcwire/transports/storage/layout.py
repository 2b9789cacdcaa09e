"""One look at a storage-sink layout: its checkpoint, its schema files and the data files its
index files vouch for, in the order TiCDC's storage consumer replays them.

The rules (``cmd/storage-consumer/consumer.go``): only table versions at or below the root
``metadata`` checkpoint count; a data directory's files count up to the one its
``meta/CDC.index`` names (a file written after the index is not complete yet); everything
is ordered by table version, a version's schema file before its data, then partition,
date and table (``CompareDMLPathKey``). A snapshot may start after a
:class:`~.position.LayoutPosition` (a later read of the same layout: each directory from the
last file read before) and stop at one (exactly the files an earlier look planned).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

from ...large_messages.storage import ObjectMissing, Storage
from ...model.validation import U64_MAX
from .location import StorageLocation, shown
from .paths import METADATA, DataDir, DataPath, IndexPath, SchemaPath, data_file_index, parse_path
from .places import LayoutError, Place
from .position import LayoutPosition
from .schema_files import SchemaFile, parse_schema_file


@dataclass(frozen=True, slots=True)
class SchemaItem:
    path: str
    key: SchemaPath
    file: SchemaFile

    def sort_key(self) -> tuple:
        tid = self.key.table_id
        return (self.key.version, -1, "", tid is not None, tid or 0, self.key.schema, self.key.table)


@dataclass(frozen=True, slots=True)
class DirItem:
    directory: DataDir
    files: tuple[str, ...]  # data file paths, in index order
    schema: SchemaItem  # the table version's schema file
    index_path: str = ""  # the directory's index file: the name a LayoutPosition keeps it under

    def sort_key(self) -> tuple:
        return self.directory.sort_key()

    @property
    def last_index(self) -> Optional[int]:
        """The index of the last data file listed here (None: none)."""
        found = data_file_index(self.files[-1].rpartition("/")[2]) if self.files else None
        return None if found is None else found[1]

    @property
    def schema_name(self) -> str:
        return self.directory.schema or self.schema.file.schema

    @property
    def table_name(self) -> str:
        return self.directory.table or self.schema.file.table


Item = Union[SchemaItem, DirItem]


@dataclass(frozen=True, slots=True)
class Snapshot:
    checkpoint: int
    items: tuple[Item, ...] = field(default=())

    def by_table(self) -> list["Snapshot"]:
        """The snapshot cut for parallel reads: first the schema files alone (the DDLs), then per
        table and partition its data with its table's schema files (which the replay needs for its
        DDL watermark). Replaying each with the DDLs only in the first gives the same events, per
        table and partition in the same order, as replaying the whole."""
        schemas = [i for i in self.items if isinstance(i, SchemaItem)]
        groups: dict[tuple, list[Item]] = {}
        for item in self.items:
            if isinstance(item, DirItem):
                key = (item.schema_name, item.table_name, item.directory.partition)
                if key not in groups:
                    groups[key] = [s for s in schemas if (s.file.schema, s.file.table) == key[:2]]
                groups[key].append(item)
        return [Snapshot(self.checkpoint, tuple(schemas))] + [
            Snapshot(self.checkpoint, tuple(sorted(items, key=lambda i: i.sort_key()))) for items in groups.values()
        ]

    def position(self, since: Optional[LayoutPosition] = None) -> LayoutPosition:
        """Where a read of this snapshot stops: its checkpoint, and per directory the last file
        listed (a directory with nothing listed keeps ``since``'s)."""
        before = since.last_read() if since is not None else {}
        files = {}
        for item in self.items:
            if isinstance(item, DirItem):
                last = item.last_index
                if last is not None or item.index_path in before:
                    files[item.index_path] = last if last is not None else before[item.index_path]
        return LayoutPosition.of(self.checkpoint, files)

    def of_tables(self, wanted: Callable[[str, str], bool]) -> "Snapshot":
        """Only the schema files and directories of the tables ``wanted(schema, table)`` keeps (a
        database-level schema file is asked with table "", as a topic's database DDL is)."""
        def kept(item: Item) -> bool:
            if isinstance(item, DirItem):
                return wanted(item.schema_name, item.table_name)
            return wanted(item.file.schema, item.file.table)

        return Snapshot(self.checkpoint, tuple(i for i in self.items if kept(i)))


def read_checkpoint(storage: Storage) -> int:
    place = Place(METADATA)
    try:
        data = storage.get(METADATA)
    except ObjectMissing:
        raise LayoutError(
            place, f"no checkpoint file in {shown(storage)}: not a TiCDC storage-sink location, or nothing is"
            " complete there yet",
        ) from None
    try:
        ts = json.loads(data)["checkpoint-ts"]
    except (ValueError, KeyError, TypeError):
        raise LayoutError(place, 'checkpoint file is not {"checkpoint-ts": N}; the file is damaged') from None
    if not isinstance(ts, int) or isinstance(ts, bool) or not 0 <= ts <= U64_MAX:
        raise LayoutError(place, f"checkpoint-ts {ts!r} is not a ts (an integer 0..2^64-1); the file is damaged")
    return ts


def snapshot(location: StorageLocation, checkpoint: Optional[int] = None, since: Optional[LayoutPosition] = None,
             until: Optional[LayoutPosition] = None) -> Snapshot:
    """The layout as it is now, bounded by its checkpoint (``checkpoint``: one read before, which
    pins what a read gives however far TiCDC has written since). ``since``: each directory's files
    from the last one read there on (all of a directory it does not name); ``until``: no file past
    the last one it names, and no directory it does not name."""
    storage = location.storage
    if checkpoint is None:
        checkpoint = read_checkpoint(storage)
    schemas: list[SchemaItem] = []
    indexes: dict[tuple[DataDir, str], str] = {}
    data: dict[tuple[DataDir, str], list[tuple[int, str]]] = {}
    for name in storage.names():
        named = parse_path(name, location["date-separator"], location["use-table-id-as-path"])
        if isinstance(named, SchemaPath) and named.version <= checkpoint:
            parsed = parse_schema_file(storage.get(name), Place(name), named.checksum)
            schemas.append(SchemaItem(name, named, parsed))
        elif isinstance(named, IndexPath) and named.directory.version <= checkpoint:
            indexes[(named.directory, named.dispatcher)] = name
        elif isinstance(named, DataPath) and named.extension == location.extension:
            data.setdefault((named.directory, named.dispatcher), []).append((named.index, name))
    tables = _schema_files_by_table(schemas)
    items: list[Item] = list(schemas)
    first_of = since.last_read() if since is not None else {}
    last_of = until.last_read() if until is not None else None
    for (directory, dispatcher), index_path in indexes.items():
        if last_of is not None and index_path not in last_of:
            continue
        last = _last_index(storage, index_path, dispatcher, location.extension)
        if last_of is not None:
            last = min(last, last_of[index_path])
        first = first_of.get(index_path, 0)
        files = tuple(path for index, path in sorted(data.get((directory, dispatcher), ())) if first <= index <= last)
        schema = _schema_for(tables, directory)
        if schema is None:
            raise LayoutError(
                Place(index_path), f"no schema file for table version {directory.version} of this directory"
                " (meta/schema_<version>_<checksum>.json at or below it): the layout is incomplete",
            )
        items.append(DirItem(directory, files, schema, index_path))
    items.sort(key=lambda item: item.sort_key())
    return Snapshot(checkpoint, tuple(items))


def _last_index(storage: Storage, index_path: str, dispatcher: str, extension: str) -> int:
    text = storage.get(index_path).decode("utf-8", "replace").strip()
    found = data_file_index(text)
    if found is None or found[0] != dispatcher or found[2] != extension or found[1] > U64_MAX:
        raise LayoutError(
            Place(index_path, 1), f"index file holds {text[:80]!r}, not a data file name like CDC000001{extension}",
        )
    return found[1]


TableKey = tuple[str, str, Optional[int]]


def _table_key(schema: str, table: str, table_id: Optional[int]) -> TableKey:
    return ("", "", table_id) if table_id is not None else (schema, table, None)


def _schema_files_by_table(schemas: list[SchemaItem]) -> dict[TableKey, list[SchemaItem]]:
    tables: dict[TableKey, list[SchemaItem]] = {}
    for item in schemas:
        if item.key.table or item.key.table_id is not None:
            tables.setdefault(_table_key(item.key.schema, item.key.table, item.key.table_id), []).append(item)
    for versions in tables.values():
        versions.sort(key=lambda item: item.key.version)
    return tables


def _schema_for(tables: dict[TableKey, list[SchemaItem]], directory: DataDir) -> Optional[SchemaItem]:
    """The schema file of a data directory: its version's, else the newest before it (TiCDC reuses
    an existing schema file with the same checksum rather than writing one per version)."""
    versions = tables.get(_table_key(directory.schema, directory.table, directory.table_id), [])
    found = None
    for item in versions:
        if item.key.version <= directory.version:
            found = item
    return found
