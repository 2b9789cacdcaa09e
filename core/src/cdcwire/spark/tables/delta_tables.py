"""Applying a table's changes to a Delta table: the executors write the files, the driver commits.

The table's files follow the bucket layout (:mod:`cdcwire.spark.tables.table_buckets`): a
run's executors write new files for the buckets its changes touch, straight into the
table's directory; the driver then commits them with delta-rs's transaction API
(``cdcwire[delta]``, no JVM jar) in one commit that adds the new files and removes the
touched buckets' old ones (``create_write_transaction`` in ``append`` mode, the mode that
takes removes; a new table: ``create_table_with_add_actions``). No row passes through the
driver: it reads the new files' footers for their stats. The commit carries the commit ts
the table is applied up to (``cdcwire.applied_ts`` in its commit metadata), so a killed run
re-run skips what the table already holds. A commit that removes files says so beyond delta-rs's
``WRITE`` (``cdcwire.changes``); one after a TRUNCATE or DROP is an ``Overwrite``. A column added upstream is added to the table's
schema in a commit of its own just before (a commit of files does not change the schema);
a DROP or RENAME COLUMN rewrites every file in a commit that overwrites the table with them and
their schema (:mod:`.column_ddls`; delta-rs cannot write the column mapping that would make
them metadata-only). Files written but never committed (a killed run) are not part of the table; a
``VACUUM`` removes them.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pyarrow as pa

from pyspark.sql import DataFrame
from pyspark.sql.types import StructType

from ...foundation.extras import extra_required
from .table_buckets import Layout, Rewrite, rewrite_buckets

APPLIED_TS = "cdcwire.applied_ts"
#: In a commit that removes files besides adding them: what the run did ("upserts and deletes").
CHANGES = "cdcwire.changes"


def _deltalake():
    with extra_required("delta", "materialize --format delta"):
        import deltalake
    return deltalake


def applied_ts(out: str, table: str) -> Optional[int]:
    """The commit ts a Delta table was applied up to, from its latest commit that says."""
    path = Path(out) / table
    if not (path / "_delta_log").exists():
        return None
    deltalake = _deltalake()
    for commit in deltalake.DeltaTable(str(path)).history(20):
        if APPLIED_TS in commit:
            return int(json.loads(commit[APPLIED_TS]) if isinstance(commit[APPLIED_TS], str) else commit[APPLIED_TS])
    return None


def committed_after(out: str, table: str, moment: float) -> bool:
    """Whether the table's latest commit was written after ``moment`` (a run killed after its
    Delta commits, before its state's: the table's own applied ts is then the one to trust).
    A listing of its log, no table loaded: a run over a thousand tables reads the history only
    of those a killed run committed."""
    log = Path(out) / table / "_delta_log"
    latest = max((e for e in os.scandir(log) if e.name.endswith(".json") and e.name[:-5].isdigit()),
                 key=lambda e: int(e.name[:-5]), default=None) if log.is_dir() else None
    return latest is not None and latest.stat().st_mtime >= moment


def apply_to_delta(
    out: str, table: str, changes: DataFrame, keys: list[str], applied: int, staging: str, run: int = 0,
    changed: int = 0, wiped: bool = False, anew: bool = False,
) -> dict[str, int]:
    """Apply the typed changes (``_op`` "U" upsert, "D" delete) to the table's touched buckets
    with the table's own Spark jobs (the reference tier; the one plan over all tables is
    :mod:`.tables_job`) and commit; counts of rows inserted, updated and deleted. ``staging``: a
    directory under OUT the executors write to (removed here); ``run``: the run's number (in the
    file names); ``changed``: about how many changes (sizes the buckets of a new table);
    ``wiped``: a TRUNCATE or DROP came before the changes: they make the table anew, in a commit
    that overwrites it (every old file removed); ``anew``: bucket the table anew (it outgrew its
    buckets)."""
    now = DeltaNow.of(out, table, wiped)
    path = Path(out) / table
    try:
        done = rewrite_buckets(changes, keys, now.layout.anew() if anew else now.layout, path, path, Path(out) / staging,
                               run, changed)
    finally:
        shutil.rmtree(Path(out) / staging, ignore_errors=True)
    commit_delta(out, table, now, done, applied, wiped)
    return done.counts


@dataclass(slots=True)
class DeltaNow:
    """A Delta table as a run finds it: the table (None: not there yet), its active files and
    their sizes, those files by bucket (none when a TRUNCATE or DROP wiped it), and its rows
    (from the log's file stats)."""

    table: object
    sizes: dict[str, int]
    layout: Layout
    rows: int = 0

    @classmethod
    def of(cls, out: str, table: str, wiped: bool = False) -> "DeltaNow":
        deltalake = _deltalake()
        path = Path(out) / table
        table_now = deltalake.DeltaTable(str(path)) if (path / "_delta_log").exists() else None
        if table_now is None or wiped:
            return cls(table_now, {}, Layout())
        actions = table_now.get_add_actions(flatten=True)
        sizes = dict(zip(actions.column("path").to_pylist(), actions.column("size_bytes").to_pylist()))
        rows = sum(n or 0 for n in actions.column("num_records").to_pylist()) if "num_records" in actions.column_names else 0
        return cls(table_now, sizes, Layout.of(sizes), rows)


def commit_delta(out: str, table: str, now: DeltaNow, done: Rewrite, applied: int, wiped: bool = False) -> None:
    """Commit a rewrite's files: a new table created with them; a wiped one overwritten with them
    (its schema theirs); else one commit adding them and removing the files they replace."""
    deltalake = _deltalake()
    from deltalake.transaction import CommitProperties, create_table_with_add_actions

    path = Path(out) / table
    adds = [_add_action(path, name) for names in done.written.values() for name in names]
    schema = _delta_schema(deltalake, done.schema)
    properties = CommitProperties(custom_metadata={APPLIED_TS: json.dumps(applied)})
    table_now = now.table
    if table_now is None:
        create_table_with_add_actions(str(path), schema, adds, commit_properties=properties)
        return
    known = {f.name for f in table_now.schema().fields} if not wiped else {f.name for f in schema.fields}
    added = [f for f in schema.fields if f.name not in known]
    if added:
        table_now.alter.add_columns(added)
        table_now = deltalake.DeltaTable(str(path))
    if wiped:  # the table anew: its schema is the new rows' (a table dropped and created again may have others)
        table_now.create_write_transaction(adds, mode="overwrite", schema=schema, commit_properties=properties)
        return
    removes = [_remove_action(name, now.sizes[name]) for name in done.replaced]
    if removes:  # rows rewritten or deleted: said in the commit (delta-rs labels any commit of
        # its own actions a WRITE in append mode; the removes carry dataChange, which is what a
        # Delta streaming reader checks, as after a MERGE)
        properties = CommitProperties(custom_metadata={APPLIED_TS: json.dumps(applied), CHANGES: "upserts and deletes"})
    table_now.create_write_transaction(adds + removes, mode="append", schema=table_now.schema(),
                                       commit_properties=properties)


def change_delta_files(out: str, table: str, change, run: int) -> None:
    """Every file of the table passed through ``change`` (a pyarrow table to a pyarrow table: a
    column DDL, see :mod:`.column_ddls`) into new files of the same buckets, committed as an
    overwrite with their schema; the commit keeps the table's applied ts."""
    import uuid

    import pyarrow.parquet as pq

    from deltalake.transaction import CommitProperties

    from .table_buckets import bucket_of_name, file_name

    deltalake = _deltalake()
    path = Path(out) / table
    table_now = deltalake.DeltaTable(str(path))
    applied = applied_ts(out, table)
    token = uuid.uuid4().hex[:8]
    adds = []
    for n, name in enumerate(sorted(_active_files(table_now))):
        rows = change(pq.read_table(path / name))
        found = bucket_of_name(Path(name).name)
        new = file_name(found[0], found[1], run, token, n) if found else f"columns-{run:06d}-{token}-{n:05d}.parquet"
        pq.write_table(rows, path / new)
        adds.append(_add_action(path, new))
    # the table's columns as the change leaves them, not a file's: a file of a bucket untouched
    # since an ADD COLUMN lacks the column, which would leave the table with it
    schema = change(pa.schema(table_now.schema().to_arrow()).empty_table()).schema
    custom = {APPLIED_TS: json.dumps(applied)} if applied is not None else {}
    table_now.create_write_transaction(adds, mode="overwrite", schema=deltalake.Schema.from_arrow(
        pa.schema([f.with_nullable(True) for f in schema])), commit_properties=CommitProperties(custom_metadata=custom))


def empty_delta(out: str, table: str, applied: int) -> None:
    """A TRUNCATE with nothing after it: one commit that overwrites the table with no rows (its
    schema stays), carrying the applied commit ts."""
    deltalake = _deltalake()
    from deltalake.transaction import CommitProperties

    table_now = deltalake.DeltaTable(str(Path(out) / table))
    table_now.create_write_transaction([], mode="overwrite", schema=table_now.schema(),
                                       commit_properties=CommitProperties(custom_metadata={APPLIED_TS: json.dumps(applied)}))


def _active_files(table) -> dict[str, int]:
    """The table's active files (paths relative to it) and their sizes, from the log."""
    actions = table.get_add_actions(flatten=True)
    return dict(zip(actions.column("path").to_pylist(), actions.column("size_bytes").to_pylist()))


def _delta_schema(deltalake, schema: StructType):
    """The Delta schema of the written files: Spark's own Arrow types (timestamps microseconds,
    UTC; TIMESTAMP_NTZ without a zone), every column nullable (older files lack later columns)."""
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow = to_arrow_schema(schema, error_on_duplicated_field_names_in_struct=True, timezone="UTC")
    return deltalake.Schema.from_arrow(pa.schema([f.with_nullable(True) for f in arrow]))


def _add_action(path: Path, name: str):
    """An add action of a written file, with its row and null counts from its footer."""
    import pyarrow.parquet as pq
    from deltalake.transaction import AddAction

    file = path / name
    meta = pq.ParquetFile(file).metadata
    stat = file.stat()
    return AddAction(name, stat.st_size, {}, int(stat.st_mtime * 1000), True, json.dumps(_stats(meta)))


def _stats(meta) -> dict:
    """``numRecords`` and ``nullCount`` per top-level column, where every row group has it."""
    nulls = {}
    for i in range(meta.num_columns):
        column = meta.schema.column(i)
        if "." in column.path:
            continue
        counts = [meta.row_group(g).column(i).statistics for g in range(meta.num_row_groups)]
        if all(s is not None and s.has_null_count for s in counts):
            nulls[column.path] = sum(s.null_count for s in counts)
    return {"numRecords": meta.num_rows, "nullCount": nulls}


def _remove_action(name: str, size: int):
    from deltalake.transaction import RemoveAction

    return RemoveAction(name, True, int(time.time() * 1000), size, {})
