"""A written layout's data files, and the small files that publish them.

:class:`DataFiles` writes one data directory's files: its rows come in (in commit ts order,
then input order), encoded as they come (csv records by :class:`CsvEncoder`, canal-json lines
by the caller's encoder) and streamed into ``CDC<index>`` through the storage's
:class:`~cdcwire.large_messages.storage.ObjectWriter`, so a directory's data is never in
memory. At ``file-size`` bytes the next row starts the next index (TiCDC's rotation): a file
never goes past ``file-size`` unless one row alone does, and that row has a file of its own;
a row is never split. The first index is 1 in a new directory, and in one the layout already
has, the one after its index file's (:func:`next_indexes`), as TiCDC's writer counts on, so a
write never replaces a file a reader reads. Nothing reads a data file until its directory's
index file names it (the last of the directory's files), so data files go first, wherever they
are written (Spark: each task its own), and :func:`publish` then writes what makes them part
of the layout, in TiCDC's order: the schema files, each directory's index file, and the root
checkpoint last. A write that fails before the checkpoint leaves a layout that reads up to its
old one; its data files past the index files are not read, and the next write writes over them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

from ...model.events import Column, RowChangedEvent
from ...large_messages.storage import ObjectWriter
from .csv_encoding import CsvEncoder
from .layout import read_checkpoint
from .location import StorageLocation
from .paths import METADATA, DataDir, IndexPath, data_file_index, parse_path
from .places import LayoutError, Place
from .replay import csv_options
from .schema_files import SchemaFile
from .table_versions import VersionKey

#: The fewest digits of a data file's index (TiCDC's ``MinFileIndexWidth``).
MIN_INDEX_DIGITS = 6

#: Encodes one row event as a canal-json line (the caller's, from the codec registry).
LineEncoder = Callable[[RowChangedEvent], bytes]


def data_file_name(location: StorageLocation, index: int = 1) -> str:
    """``CDC<index>.<ext>``, the index ``file-index-digit`` digits wide."""
    return f"CDC{index:0{location['file-index-digit']}d}{location.extension}"


def next_indexes(location: StorageLocation) -> dict[DataDir, int]:
    """The next file index of each data directory the layout already has (one listing, and each
    index file read): one past the file its index file names. An index file that names no data
    file of this layout (``CDC<at least 6 digits><ext>``) is refused, naming it, as TiCDC's
    writer refuses it (``ErrStorageSinkInvalidFileName``): taken at its word, the count would
    start again at 1, over the files the directory has."""
    storage = location.storage
    found: dict[DataDir, int] = {}
    for name in storage.names():
        named = parse_path(name, location["date-separator"], False)
        if isinstance(named, IndexPath) and not named.dispatcher:
            found[named.directory] = _indexed(location, name, storage.get(name)) + 1
    return found


def _indexed(location: StorageLocation, path: str, data: bytes) -> int:
    """The index of the data file an index file names, or a LayoutError naming the index file."""
    text = data.decode("utf-8", "replace").strip()
    last = data_file_index(text)
    width = MIN_INDEX_DIGITS + len(location.extension)
    if last is None or last[0] or last[2] != location.extension or len(text) < 3 + width:
        raise LayoutError(
            Place(path),
            f"index file names {text[:60]!r}, not a data file of this layout (CDC and {MIN_INDEX_DIGITS} or more"
            f" digits, then {location.extension}); TiCDC's writer refuses it too: write the name of the"
            " directory's last data file into it, or remove the directory",
        )
    return last[1]


def index_file_path(directory: DataDir) -> str:
    return f"{directory.path()}/meta/CDC.index"


def checkpoint_ts(resolved: int, newest_commit_ts: int) -> int:
    """The root checkpoint of a write: its newest resolved ts (-1: none), as TiCDC writes the
    resolved ts its flush reached; rows past it are in the data files and are read once a later
    checkpoint passes them, so an input cut inside a transaction is continued by the next
    write. An input with no resolved event at all is taken as whole: its newest commit ts."""
    return resolved if resolved >= 0 else max(newest_commit_ts, 0)


@dataclass(frozen=True, slots=True)
class FirstRow:
    """A data file's first row: its commit ts, input order and image (the schema file's columns)."""

    commit_ts: int
    seq: int
    image: tuple[Column, ...]


@dataclass(frozen=True, slots=True)
class WrittenFile:
    """A data file in place, not yet published: its directory, name, rows, bytes and first row."""

    directory: DataDir
    name: str
    rows: int
    bytes: int
    first: FirstRow


@dataclass(slots=True)
class _OpenFile:
    """The data file being written: its writer, name, rows so far and first row."""

    writer: ObjectWriter
    name: str
    first: FirstRow
    rows: int = 0


class DataFiles:
    """One data directory's files, written as its rows are added (see the module's text)."""

    def __init__(self, location: StorageLocation, directory: DataDir, encode_line: Optional[LineEncoder],
                 index: int = 1) -> None:
        self.location = location
        self.directory = directory
        self.index = index  # the next file's
        self.encode_line = encode_line
        self.file_size: int = location["file-size"]
        self.written: list[WrittenFile] = []
        self.open: Optional[_OpenFile] = None
        if location.protocol == "csv":
            options = csv_options(location)
            self.csv: Optional[CsvEncoder] = CsvEncoder(options, location["binary-encoding-method"])
            self.header = options.header
        else:
            assert encode_line is not None, "canal-json needs the canal-json encoder"
            self.csv, self.header = None, False
            self.terminator = location["terminator"].encode()

    def add(self, row: RowChangedEvent, seq: int) -> None:
        """Add ``row`` (``seq``: its input order), after every row added before it in commit ts order."""
        if self.csv is not None:
            data = self.csv.encode(row).encode("utf-8")
        else:
            data = self.encode_line(row) + self.terminator  # type: ignore[misc]
        current = self.open
        if current is not None and current.writer.bytes + len(data) > self.file_size:
            self._finish()
            current = None
        if current is None:
            current = self._start(FirstRow(row.commit_ts, seq, row.image))
        current.writer.write(data)
        current.rows += 1

    def close(self) -> list[WrittenFile]:
        """Put the last file in place; the directory's files, in index order (none without rows)."""
        if self.open is not None:
            self._finish()
        return self.written

    def abort(self) -> None:
        """Give up the file being written (the write failed): nothing of it is left."""
        if self.open is not None:
            self.open.writer.abort()
            self.open = None

    def _start(self, first: FirstRow) -> _OpenFile:
        name = data_file_name(self.location, self.index)
        self.index += 1
        self.open = _OpenFile(self.location.storage.writer(f"{self.directory.path()}/{name}"), name, first)
        if self.header and self.csv is not None:
            self.open.writer.write(self.csv.header(c.name for c in first.image).encode("utf-8"))
        return self.open

    def _finish(self) -> None:
        done, self.open = self.open, None
        assert done is not None
        done.writer.commit()
        self.written.append(WrittenFile(self.directory, done.name, done.rows, done.writer.bytes, done.first))


def first_images(files: Iterable[WrittenFile]) -> dict[VersionKey, tuple[Column, ...]]:
    """Each table version's first row image, over its data files: the row first by commit ts, then
    input order (a version's directories, partitions and dates, may have been written apart)."""
    firsts: dict[VersionKey, FirstRow] = {}
    for f in files:
        d = f.directory
        key = (d.schema, d.table, d.version)
        known = firsts.get(key)
        if known is None or (f.first.commit_ts, f.first.seq) < (known.commit_ts, known.seq):
            firsts[key] = f.first
    return {key: first.image for key, first in firsts.items()}


def publish(location: StorageLocation, schema_files: Iterable[tuple[str, SchemaFile]],
            files: Iterable[WrittenFile], checkpoint: int) -> int:
    """Make the written data files part of the layout: schema files, then each directory's index
    file (in layout order, naming the directory's last file), then the root checkpoint, which
    never moves back (a write of older events into a layout keeps its newer checkpoint, or the
    newer data would no longer be read). Returns the checkpoint written."""
    storage = location.storage
    for path, sf in schema_files:
        storage.put(path, sf.marshal())
    last: dict[DataDir, str] = {}
    for f in files:  # a directory's files have names of one width: the last is the greatest
        last[f.directory] = max(last.get(f.directory, f.name), f.name)
    for directory in sorted(last, key=DataDir.sort_key):
        storage.put(index_file_path(directory), (last[directory] + "\n").encode())
    try:
        checkpoint = max(checkpoint, read_checkpoint(storage))
    except LayoutError:  # no checkpoint yet (or a damaged one, which this write replaces)
        pass
    storage.put(METADATA, json.dumps({"checkpoint-ts": checkpoint}).encode())
    return checkpoint

