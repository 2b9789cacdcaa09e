"""``cdcwire inspect`` and ``inspect -L`` of a TiCDC storage-sink layout (``local:///dir?protocol=csv``,
``s3://bucket/prefix?...``): the layout is files, not topics, so it has its own listing.

``inspect`` prints the layout's events up to its checkpoint as event JSON Lines, in replay order
(each table's DDL before the data of its version, replayed rows once), as ``cdcwire.read_storage``
gives them. ``inspect -L`` lists what the layout holds: its checkpoint, then per table its versions,
and per data directory the data files listed up to the checkpoint.
"""

from __future__ import annotations

import argparse

from ..foundation.errors import CdcwireError
from ..model.event_json import to_json
from ..model.events import ResolvedEvent
from ..api.storage_reading import read_storage_placed
from ..dispatch.table_filter import TableFilter
from ..transports.storage.layout import DirItem, SchemaItem, snapshot
from ..transports.storage.location import StorageLocation

#: The flags of ``inspect`` that place a read in topics, partitions or offsets, which a layout has not.
_NOT_FOR_A_LAYOUT = (("topics", "--topics"), ("partition", "--partition"), ("end", "--to"), ("placed", "--placed"),
                     ("skip_undecodable", "--skip-undecodable"))


def inspect_layout(args: argparse.Namespace) -> int:
    _refuse_message_flags(args)
    wanted = TableFilter.of(args.tables) if args.tables else None
    for placed in read_storage_placed(args.uri):
        event = placed.event
        if wanted is not None and not isinstance(event, ResolvedEvent) and not wanted.matches(event.schema, event.table):
            continue
        print(to_json(event))
    return 0


def list_layout(args: argparse.Namespace) -> int:
    location = StorageLocation.parse(args.uri)
    shot = snapshot(location)
    if args.tables:
        shot = shot.of_tables(TableFilter.of(args.tables).matches)
    tables: dict[str, dict[int, list[DirItem]]] = {}
    for item in shot.items:
        if isinstance(item, SchemaItem) and item.file.table:
            tables.setdefault(f"{item.file.schema}.{item.file.table}", {}).setdefault(item.key.version, [])
        elif isinstance(item, DirItem):
            versions = tables.setdefault(f"{item.schema_name}.{item.table_name}", {})
            versions.setdefault(item.directory.version, []).append(item)
    files = sum(len(d.files) for v in tables.values() for dirs in v.values() for d in dirs)
    print(f"layout {location.display()} ({location.protocol}): checkpoint {shot.checkpoint},"
          f" {len(tables)} table(s), {files} data file(s)")
    for name, versions in sorted(tables.items()):
        print(f"  table {name} with {len(versions)} version(s):")
        for version, dirs in sorted(versions.items()):
            if not dirs:
                print(f"    version {version}: no data files")
            for d in dirs:
                print(f"    version {version}: {d.directory.path()}: {len(d.files)} data file(s)")
    return 0


def _refuse_message_flags(args: argparse.Namespace) -> None:
    given = [flag for attribute, flag in _NOT_FOR_A_LAYOUT if getattr(args, attribute, None)]
    if args.start != "beginning":
        given.append("--from")
    if given:
        raise CdcwireError(
            f"{', '.join(given)}: a storage-sink layout has no topics, partitions or offsets (its events are placed by"
            " file and line, read up to its checkpoint); inspect it without them, --tables to keep some tables"
        )
