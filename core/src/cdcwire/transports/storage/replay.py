"""A layout's events in replay order, as TiCDC's storage consumer applies them, with their places.

Per table: a schema file with a DDL gives its DDL event once (at its table version; a
replayed schema file at or below the table's last DDL is skipped), before the data of its
version; a data directory of a version older than the table's last DDL is a stale replay and
skipped. Rows come file by file in index order; rows past the checkpoint are left for a
later read, and rows written again by an at-least-once replay are dropped: per table (and
partition) a row older than the newest commit ts already given is a replay, and so is a row
at that ts equal to one given there. (Without commit ts in the rows, nothing can be told
apart: every row is given.) The read ends with a ResolvedEvent at the checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterator, Optional

from ...foundation.errors import DecodeError, InvalidEventError
from ...model.events import DDLEvent, Event, ResolvedEvent, RowChangedEvent
from ...model.message import Message
from ...values.type_codes import DDLType
from ...model.validation import check_event
from .csv_fields import CsvDialect
from .csv_rows import CsvOptions, csv_events
from .layout import DirItem, SchemaItem, Snapshot, snapshot
from .location import StorageLocation
from .places import LayoutError, Place
from .table_columns import ColumnSpec, column_specs

#: Decodes one canal-json line (a Message whose topic is the file's path and offset its line).
LineDecoder = Callable[[Message], list[Event]]


@dataclass(frozen=True, slots=True)
class PlacedEvent:
    """An event and the place it was read from (``metadata`` for the closing resolved event)."""

    place: Place
    event: Event


def csv_options(location: StorageLocation) -> CsvOptions:
    dialect = CsvDialect(location["delimiter"], location["quote"], location["terminator"], location["null"])
    return CsvOptions(dialect, location["include-commit-ts"], location["output-old-value"],
                      location["output-field-header"])


class Dedup:
    """Per table and partition: the newest commit ts given and the rows given at it."""

    __slots__ = ("ts", "seen")

    def __init__(self) -> None:
        self.ts = -1
        self.seen: set = set()

    def fresh(self, event: RowChangedEvent) -> bool:
        ts = event.commit_ts
        if ts < self.ts or ts == self.ts and event in self.seen:
            return False
        if ts > self.ts:
            self.ts, self.seen = ts, set()
        self.seen.add(event)
        return True


def replay(location: StorageLocation, decode_line: Optional[LineDecoder] = None,
           taken: Optional[Snapshot] = None, ddl: bool = True, resolved: bool = True) -> Iterator[PlacedEvent]:
    """Every event of the layout up to its checkpoint, in replay order. ``decode_line``: the
    canal-json decoder (the caller's, from the codec registry); csv is read here. ``taken``: a
    snapshot (or a part of one, :meth:`Snapshot.by_table`) to replay instead of a new one;
    ``ddl``/``resolved`` False: leave out the DDL events / the closing resolved event."""
    shot = taken if taken is not None else snapshot(location)
    return Replayer(location, decode_line).events(shot, ddl=ddl, resolved=resolved)


class Replayer:
    """The replay's memory, kept across snapshots so a layout can be followed as TiCDC writes it:
    each table's last DDL, the rows given at each table's newest commit ts, and the newest
    commit ts of each data file read (a file is written whole before its index names it, so
    one whose rows were all given is not read again)."""

    def __init__(self, location: StorageLocation, decode_line: Optional[LineDecoder] = None) -> None:
        self.location = location
        self.decode_line = decode_line
        self.options = csv_options(location)
        self.exact_ts = location.protocol != "csv" or self.options.include_commit_ts
        self.ddl_marks: dict[tuple[str, str], int] = {}
        self.dedups: dict[tuple[str, str, Optional[int]], Dedup] = {}
        self.file_ts: dict[str, int] = {}

    def events(self, shot: Snapshot, after: int = -1, ddl: bool = True, resolved: bool = True) -> Iterator[PlacedEvent]:
        """The events of ``shot`` not given before: rows above ``after`` (the checkpoint of the
        snapshot replayed before) up to the snapshot's checkpoint, DDLs not given yet."""
        for item in shot.items:
            if isinstance(item, SchemaItem):
                event = _ddl(item)
                if event is None:
                    continue
                key = (event.schema, event.table)
                if item.key.version <= self.ddl_marks.get(key, -1):
                    continue
                self.ddl_marks[key] = item.key.version
                if ddl:
                    yield PlacedEvent(Place(item.path), event)
                continue
            if item.directory.version < self.ddl_marks.get((item.schema_name, item.table_name), -1):
                continue
            yield from self._rows(item, shot.checkpoint, after)
        if resolved:
            yield PlacedEvent(Place("metadata"), ResolvedEvent(shot.checkpoint))

    def _rows(self, item: DirItem, checkpoint: int, after: int) -> Iterator[PlacedEvent]:
        unread = self.unread(item, after)
        yield from self.replayed(_dir_events(self.location, item, unread, self.options, self.decode_line),
                                 checkpoint, after)
        self.mark_read(unread)

    def unread(self, item: DirItem, after: int) -> tuple[str, ...]:
        """The data files of ``item`` to read: not read before, or read with rows above ``after``."""
        done = self.file_ts
        return tuple(p for p in item.files if p not in done or self.exact_ts and done[p] > after)

    def mark_read(self, paths: tuple[str, ...]) -> None:
        for path in paths:
            self.file_ts.setdefault(path, -1)

    def replayed(self, placed_events: Iterator[PlacedEvent], checkpoint: int, after: int) -> Iterator[PlacedEvent]:
        """The rows of ``placed_events`` (one directory's files, in order) that the rules give."""
        done = self.file_ts
        for placed in placed_events:
            row = placed.event
            if not isinstance(row, RowChangedEvent):
                continue  # canal-json data files hold rows only; a stray watermark is not one
            path = placed.place.path
            done[path] = max(done.get(path, -1), row.commit_ts)
            if self.exact_ts:
                if row.commit_ts > checkpoint or row.commit_ts <= after:
                    continue
                dedup = self.dedups.setdefault((row.schema, row.table, row.table_id), Dedup())
                if not dedup.fresh(row):
                    continue
            yield placed


def _ddl(item: SchemaItem) -> Optional[DDLEvent]:
    sf = item.file
    if not sf.query:
        return None  # a version with no DDL (a restart, a reschedule): nothing to apply
    try:
        kind = DDLType(sf.ddl_type)
    except ValueError:
        raise LayoutError(Place(item.path), f"DDL type {sf.ddl_type} is not one TiDB numbers") from None
    return DDLEvent(item.key.version, sf.schema, sf.table, sf.query, kind)


def _dir_events(location: StorageLocation, item: DirItem, files: tuple[str, ...], options: CsvOptions,
                decode_line: Optional[LineDecoder]) -> Iterator[PlacedEvent]:
    storage = location.storage
    partition = item.directory.partition
    if location.protocol == "csv":
        specs = item_specs(location, item)
        for path in files:
            yield from csv_file_events(path, storage.get(path), specs, options, item.directory.version, partition)
        return
    if not files:
        return
    if decode_line is None:
        raise LayoutError(Place(files[0]),
                          "canal-json files need the canal-json decoder (pip install cdcwire-canal-json)")
    terminator = location["terminator"].encode()
    for path in files:
        lines = storage.get(path).split(terminator)
        if lines[-1]:  # TiCDC ends every line with the terminator: the file was cut inside its last line
            raise LayoutError(Place(path, len(lines)), f"the last line does not end with the terminator"
                              f" {location['terminator']!r}: the file is cut short")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            place = Place(path, number)
            try:
                events = decode_line(Message(path, 0, None, line, offset=number))
            except DecodeError as exc:
                raise LayoutError(place, getattr(exc, "reason", str(exc))) from None
            for event in events:
                if partition is not None and isinstance(event, RowChangedEvent) and event.table_id is None:
                    event = replace(event, table_id=partition)
                yield PlacedEvent(place, event)


def item_specs(location: StorageLocation, item: DirItem) -> tuple[ColumnSpec, ...]:
    """The columns of a csv data directory's table version (its schema file's), read as the
    layout's binary-encoding-method says; a LayoutError names the schema file."""
    try:
        return column_specs(item.schema.file.columns or (), location["binary-encoding-method"])
    except ValueError as exc:
        raise LayoutError(Place(item.schema.path), str(exc)) from None


def csv_file_events(path: str, data: bytes, specs: tuple[ColumnSpec, ...], options: CsvOptions, version: int,
                    partition: Optional[int]) -> Iterator[PlacedEvent]:
    """The row events of one csv data file, each checked (the reference read of a file: a
    LayoutError names the file, line and column of the first thing wrong)."""
    for placed in csv_events(_text(data, path), path, specs, options, version, partition):
        try:
            check_event(placed.event)
        except InvalidEventError as exc:
            raise LayoutError(placed.place, f"the row is not a valid event: {exc}") from None
        yield PlacedEvent(placed.place, placed.event)


def _text(data: bytes, path: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LayoutError(Place(path, line), f"byte {exc.start} is not UTF-8; the file is damaged") from None
