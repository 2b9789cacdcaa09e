"""RENAME TABLE of Iceberg tables that earlier runs wrote: the catalog's own rename, through a journal.

An Iceberg table is renamed in its catalog (``rename_table``): its identifier changes, its
metadata, snapshots and files stay where they are. Its location keeps the old name's directory
(``OUT/shop.a`` now holds ``shop.b``): the data files' paths are written in its manifests, so a
move of the directory would break every snapshot. A table created later under the old name
goes to ``OUT/shop.a-2`` (see :func:`.iceberg_tables.new_location`).

The moves follow the journal :mod:`.table_renames` keeps in the state for Delta (``renaming``:
the moves and the phase reached), in the same two phases, so a swap (``a`` to ``b``, ``b`` to
``a``) renames each table once and a run killed at any point finishes them from the journal:

1. each table named by a move, renamed into a namespace of its own (:data:`RENAMING`, table
   ``move_<n>``, the move's place in the journal); the journal then says phase 2;
2. each ``move_<n>`` renamed to its new name (its schema's namespace created if missing; a
   table already under that name, one dropped upstream whose name the rename takes, is
   dropped first), then the namespace removed.

Each step is done only if it is not done yet (the table to rename is still there), so a step
repeated after a kill renames nothing twice.
"""

from __future__ import annotations

from typing import Callable, Mapping, Optional

from . import iceberg_tables
from .iceberg_tables import RENAMING


def rename_iceberg_tables(out: str, renaming: dict, saved: Callable[[dict], None],
                  properties: Optional[Mapping[str, str]] = None) -> None:
    """Rename the Iceberg tables as ``renaming`` (a journal of :func:`.table_renames.journal`)
    says, calling ``saved(renaming)`` after the first phase (see the module doc)."""
    tables = iceberg_tables.opened(out, properties)
    cat = tables.catalog
    if renaming["phase"] == 1:
        for n, (old, _) in enumerate(renaming["moves"]):
            if tables.load(old) is not None and not cat.table_exists(_through(n)):
                iceberg_tables.create_namespace(cat, RENAMING)
                cat.rename_table(iceberg_tables.identifier(old), _through(n))
                tables.forget(old)
        renaming = {**renaming, "phase": 2}
        saved(renaming)
    for n, (_, new) in enumerate(renaming["moves"]):
        if not cat.table_exists(_through(n)):
            continue
        if tables.load(new) is not None:  # a table dropped upstream, its name taken by the rename
            iceberg_tables.drop_table(out, new, properties)
        iceberg_tables.create_namespace(cat, new.split(".", 1)[0])
        cat.rename_table(_through(n), iceberg_tables.identifier(new))
        tables.forget(new)
    if (RENAMING,) in cat.list_namespaces() and not cat.list_tables(RENAMING):
        cat.drop_namespace(RENAMING)


def _through(n: int) -> tuple[str, str]:
    return (RENAMING, f"move_{n}")
