"""Applying a table's changes to its Parquet snapshot, bucket by bucket.

A snapshot is a directory of its own per run (``OUT/<schema>.<table>/run-<N>``) of bucket
files (:mod:`cdcwire.spark.tables.table_buckets`): the executors write new files for the
buckets the run's changes touch; the untouched buckets' files are hard links of the previous
snapshot's (no data copied, the same inode). The state manifest names the current
directory, so a reader of it (Spark, pyarrow, DuckDB) sees an ordinary Parquet directory and
the switch to the next run is the manifest's rename; the previous directory is removed once
the manifest that no longer names it is in place (its linked files live on in the new one).
Columns evolve from the row images: a column added upstream appears (null in older rows;
that run rewrites every bucket, so the files of a snapshot share one schema); the column DDLs
(:mod:`.column_ddls`) rewrite every file into a new snapshot.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Optional

from pyspark.sql import DataFrame, SparkSession

from .table_buckets import Layout, Rewrite, rewrite_buckets


def apply_to_parquet(
    spark: SparkSession, out: str, table: str, current: Optional[str], changes: DataFrame, keys: list[str], run: int,
    changed: int = 0, anew: bool = False,
) -> tuple[str, dict[str, int]]:
    """Write the table's next snapshot with its own Spark jobs (the reference tier; the one plan
    over all tables is :mod:`.tables_job`); (its directory under OUT, counts of rows inserted,
    updated and deleted). ``changes``: typed rows with ``_op`` "U" (upsert) or "D" (delete);
    ``changed``: about how many (sizes the buckets of a new table); ``anew``: bucket the table
    anew (it outgrew its buckets)."""
    directory, source, target, layout = next_snapshot(out, table, current, run)
    layout = layout.anew() if anew else layout
    done = rewrite_buckets(changes, keys, layout, source, target, Path(out) / f"_cdcwire/buckets-{run:06d}" / table, run,
                           changed, same_schema=True)
    finish_snapshot(done, source, target)
    return directory, done.counts


def next_snapshot(out: str, table: str, current: Optional[str], run: int) -> tuple[str, Path, Path, Layout]:
    """(the run's snapshot directory under OUT, where the current files are, where the new ones
    go, the current files by bucket); the directory a killed run left is cleared (the state never
    named it)."""
    root = Path(out)
    directory = f"{table}/run-{run:06d}"
    target = root / directory
    shutil.rmtree(target, ignore_errors=True)
    source = root / current if current else target
    layout = Layout.of(f.name for f in source.glob("*.parquet")) if current else Layout()
    return directory, source, target, layout


def finish_snapshot(done: Rewrite, source: Path, target: Path) -> None:
    """The new snapshot gets the untouched buckets' files as hard links of the current ones."""
    target.mkdir(parents=True, exist_ok=True)
    for name in done.kept:
        _link(source / name, target / name)


def empty_snapshot(out: str, current: Optional[str], directory: str) -> None:
    """A truncated table's snapshot with nothing after the TRUNCATE: a directory holding one
    file of no rows, of the schema of ``current`` (so readers still find the columns), named
    for bucket 0 (the next run's layout reads it as such)."""
    import pyarrow.parquet as pq

    from .table_buckets import MIN_BUCKETS, file_name

    target = Path(out) / directory
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    old = sorted((Path(out) / current).glob("*.parquet")) if current else []
    if old:
        schema = pq.read_schema(old[0])
        pq.write_table(schema.empty_table(), target / file_name(0, MIN_BUCKETS, 0, "00000000", 0))


def changed_snapshot(out: str, current: str, directory: str, change) -> None:
    """A copy of the snapshot ``current`` at ``directory``, every file's rows passed through
    ``change`` (a pyarrow table to a pyarrow table): a column DDL (see :mod:`.column_ddls`). The
    files keep their bucket names."""
    import pyarrow.parquet as pq

    source, target = Path(out) / current, Path(out) / directory
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for f in sorted(source.glob("*.parquet")):
        pq.write_table(change(pq.read_table(f)), target / f.name)


def linked_snapshot(out: str, current: str, directory: str) -> None:
    """A copy of the snapshot ``current`` at ``directory`` (both under OUT) made of hard links: a
    renamed table's snapshot under its new name, no data copied."""
    source, target = Path(out) / current, Path(out) / directory
    shutil.rmtree(target, ignore_errors=True)  # a killed run's leftovers: the state never named them
    target.mkdir(parents=True)
    for f in source.glob("*.parquet"):
        _link(f, target / f.name)


def _link(old: Path, new: Path) -> None:
    """The untouched bucket file in the new snapshot: a hard link (a copy where links are not to be had)."""
    try:
        os.link(old, new)
    except OSError:
        shutil.copy2(old, new)


def remove_snapshot(out: str, directory: Optional[str]) -> None:
    """Remove a directory under OUT, and its table's directory if it was the last in it (a
    renamed table's old name)."""
    if directory:
        shutil.rmtree(Path(out) / directory, ignore_errors=True)
        parent = (Path(out) / directory).parent
        if parent != Path(out) and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()


def rows_in(out: str, directory: Optional[str]) -> int:
    """Rows of a snapshot, from its Parquet footers (no Spark job)."""
    if not directory:
        return 0
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in (Path(out) / directory).glob("*.parquet"))
