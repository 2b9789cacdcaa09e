"""The bucket layout of a materialized table: a run rewrites only the buckets its changes touch.

A table's rows are spread over ``B`` buckets by a hash of their handle key
(``pmod(xxhash64(key...), B)``, computed by Spark); each bucket is a few Parquet files named
for it, ``bucket-00007-of-00016-run-000012-1a2b3c4d-00000.parquet``. ``B`` is chosen when
the table gets its first rows (about :data:`ROWS_PER_BUCKET` rows a bucket, the session
setting ``spark.cdcwire.tables.rowsPerBucket``): a small table is one bucket, one file, as a
whole database of small tables needs (a file per bucket of every table was most of a run's
time). ``B`` is in every file's name, so the files themselves say it, whatever the format
keeps elsewhere (delta-rs refuses custom table properties; a state field could disagree with
the files). A table that grows past :data:`GROW_AT` times its buckets' size is bucketed anew,
once, with a ``B`` for its size: its files are then read as of no bucket (below), so a run
costs the changes, not the table, however the table grew. A table whose files are all gone
may start again with another ``B``.

A run of one table (:func:`rewrite_buckets`):

1. the buckets its changes touch, from one small aggregate (no aggregate for a table's
   first rows: every bucket is new);
2. the existing files of those buckets only, read back by Spark;
3. old rows full-outer-joined with the changes on the key: a row no change names stays, an
   upsert replaces or adds its row, a delete drops it; the counts (inserted, updated,
   deleted) are observed on that join while the write runs (:class:`~pyspark.sql.Observation`),
   not a job of their own;
4. the executors write the new rows, one file per touched bucket (``partitionBy("_bucket")``
   into a staging directory); the driver moves each file to its bucket name. No ``_bucket``
   column or hive directory reaches a reader.

The caller commits: the Parquet snapshot directory links the untouched buckets' files; the
Delta commit adds the new files and removes the touched buckets' old ones. Files not named
for a bucket (a table written before this layout) belong to no bucket: a run reads and
rewrites them all once, and the table is bucketed from then on.

Hashing: integral and scale-0 decimal keys are hashed as ``decimal(38,0)``, so a key column
widened upstream (INT to BIGINT) keeps every row in its bucket.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from pyspark.sql import Column, DataFrame, Observation
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType, IntegralType, StructType

from ...foundation.errors import CdcwireError
from ..runtime.session_settings import session_settings

#: About how many rows a bucket holds when a table is created or bucketed anew.
ROWS_PER_BUCKET = 262_144
ROWS_PER_BUCKET_SETTING = "spark.cdcwire.tables.rowsPerBucket"
#: The fewest buckets a table gets.
MIN_BUCKETS = 1
#: A table holding more than this many times ``B`` buckets' rows is bucketed anew.
GROW_AT = 4
BUCKET = "_bucket"
_NAME = re.compile(r"^bucket-(\d{5,})-of-(\d{5,})-run-\d+-[0-9a-f]+-\d+\.parquet$")
_AQE_EXCLUDED = "spark.sql.adaptive.optimizer.excludedRules"
_AQE_EMPTY_RELATION = "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation"


def bucket_count_for(rows: int, per_bucket: int = ROWS_PER_BUCKET) -> int:
    """``B`` for a table created (or bucketed anew) with about ``rows`` rows."""
    return max(MIN_BUCKETS, math.ceil(rows / per_bucket))


def rows_per_bucket(spark) -> int:
    """The session's rows per bucket (:data:`ROWS_PER_BUCKET` unless set)."""
    text = spark.conf.get(ROWS_PER_BUCKET_SETTING, None) or str(ROWS_PER_BUCKET)
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise CdcwireError(f"{ROWS_PER_BUCKET_SETTING}={text!r} is not a number of rows; give a whole number above 0")
    return value


def outgrown(rows: int, buckets: int, per_bucket: int) -> bool:
    """Whether a table of ``rows`` rows has outgrown its ``buckets`` (see the module doc)."""
    return rows > GROW_AT * buckets * per_bucket


def bucket_of_name(name: str) -> Optional[tuple[int, int]]:
    """(bucket, B) of a file named for its bucket, None for any other file."""
    m = _NAME.match(name)
    return (int(m.group(1)), int(m.group(2))) if m else None


def file_name(bucket: int, buckets: int, run: int, token: str, n: int) -> str:
    return f"bucket-{bucket:05d}-of-{buckets:05d}-run-{run:06d}-{token}-{n:05d}.parquet"


@dataclass(slots=True)
class Layout:
    """A table's existing files (names relative to its directory) by bucket."""

    buckets: Optional[int] = None  # B, None while no file is named for a bucket
    files: dict[int, list[str]] = field(default_factory=dict)
    unbucketed: list[str] = field(default_factory=list)  # files of an older layout

    @classmethod
    def of(cls, names: Iterable[str]) -> "Layout":
        layout = cls()
        for name in sorted(names):
            found = bucket_of_name(Path(name).name)
            if found is None or (layout.buckets is not None and found[1] != layout.buckets):
                layout.unbucketed.append(name)  # another B cannot happen unless edited: read as unbucketed
                continue
            layout.buckets = found[1]
            layout.files.setdefault(found[0], []).append(name)
        return layout

    def anew(self) -> "Layout":
        """The same files read as of no bucket: the next rewrite buckets the table anew."""
        return Layout(unbucketed=self.names)

    @property
    def names(self) -> list[str]:
        return sorted([n for names in self.files.values() for n in names] + self.unbucketed)


@dataclass(slots=True)
class Rewrite:
    """What :func:`rewrite_buckets` wrote: the new files (names in the target directory) by
    bucket, the old files they replace, the untouched old files, and the net counts."""

    buckets: int
    written: dict[int, list[str]]
    replaced: list[str]
    kept: list[str]
    counts: dict[str, int]
    schema: StructType  # of the written files, columns in order


def bucket_column(frame: DataFrame, keys: list[str], buckets: int) -> Column:
    types = {f.name: f.dataType for f in frame.schema.fields}

    def canonical(k: str) -> Column:
        t = types[k]
        wide = isinstance(t, IntegralType) or (isinstance(t, DecimalType) and t.scale == 0)
        return F.col(k).cast("decimal(38,0)") if wide else F.col(k)

    return F.pmod(F.xxhash64(*(canonical(k) for k in keys)), F.lit(buckets))


def rewrite_buckets(
    changes: DataFrame, keys: list[str], layout: Layout, source: Path, target: Path, staging: Path, run: int,
    rows_hint: int, same_schema: bool = False,
) -> Rewrite:
    """Apply ``changes`` (typed rows, ``_op`` "U"/"D") to the buckets they touch: the old
    files are ``layout``'s names under ``source``; the new files are moved into ``target``
    (created). ``rows_hint``: about how many rows the changes hold (sizes ``B`` of a new table).
    ``same_schema``: a change bringing a column the files lack rewrites every bucket (every
    file of a Parquet snapshot keeps one schema)."""
    spark = changes.sparkSession
    fresh = layout.buckets is None and not layout.unbucketed
    per_bucket = rows_per_bucket(spark)
    buckets = layout.buckets or bucket_count_for(
        rows_hint + (rows_of(source, layout.unbucketed) if layout.unbucketed else 0), per_bucket)
    marked = changes.withColumn(BUCKET, bucket_column(changes, keys, buckets))
    if fresh:
        touched = set(range(buckets))
    elif layout.unbucketed or (same_schema and _adds_columns(changes, source, layout)):
        touched = set(range(buckets))
    else:
        touched = {r[0] for r in marked.select(BUCKET).distinct().collect()}
    old_names = layout.unbucketed + [n for b in sorted(touched) for n in layout.files.get(b, [])]
    kept = [n for b, names in sorted(layout.files.items()) if b not in touched for n in names]
    observed = Observation()
    if old_names:
        old = spark.read.option("mergeSchema", "true").parquet(*(str(source / n) for n in old_names))
        rows = _merged(old, marked, keys, buckets, observed)
    else:
        rows = marked.observe(observed, F.count_if(F.col("_op") == "U").alias("inserted"), F.lit(0).alias("updated"),
                              F.lit(0).alias("deleted")).where(F.col("_op") == "U").drop("_op")
    _write(rows.repartition(BUCKET), staging)
    counts = {k: int(v or 0) for k, v in observed.get.items()}
    written = _move_into_place(staging, target, buckets, run)
    schema = StructType([f for f in rows.schema.fields if f.name != BUCKET])
    return Rewrite(buckets, written, old_names, kept, counts, schema)


def _merged(old: DataFrame, marked: DataFrame, keys: list[str], buckets: int, observed: Observation):
    """Old rows ⟗ changes on the key: the table's new rows of the touched buckets, with
    ``_bucket``; the columns in order: the old ones, then those the changes add."""
    change_cols = [c for c in marked.columns if c not in ("_op", BUCKET)]
    new_name = {c: f"_cdcwire_new_{i}" for i, c in enumerate(change_cols) if c not in keys}
    columns = list(old.columns) + [c for c in change_cols if c not in old.columns]
    joined = old.withColumn("_old", F.lit(True)).join(
        marked.select(*keys, *(F.col(c).alias(n) for c, n in new_name.items()), "_op"), on=keys, how="full_outer"
    )
    upsert, existed = F.col("_op") == "U", F.col("_old").isNotNull()
    joined = joined.observe(
        observed,
        F.count_if(upsert & ~existed).alias("inserted"),
        F.count_if(upsert & existed).alias("updated"),
        F.count_if((F.col("_op") == "D") & existed).alias("deleted"),
    )

    def value(c: str) -> Column:
        if c in keys:
            return F.col(c)
        if c in new_name and c in old.columns:
            return F.when(upsert, F.col(new_name[c])).otherwise(F.col(c))
        if c in new_name:
            return F.col(new_name[c])
        return F.when(upsert, F.lit(None)).otherwise(F.col(c))  # a column the upsert no longer has

    rows = joined.where(F.col("_op").isNull() | upsert).select(*(value(c).alias(c) for c in columns))
    return rows.withColumn(BUCKET, bucket_column(rows, keys, buckets))


def _write(rows: DataFrame, staging: Path) -> None:
    """One Parquet file per bucket into ``staging/_bucket=K/``, with :func:`write_settings`."""
    with session_settings(rows.sparkSession, write_settings(rows.sparkSession)):
        rows.write.partitionBy(BUCKET).mode("overwrite").parquet(str(staging))


def write_settings(spark) -> dict[str, str]:
    """The settings a bucket write runs with. Timestamps as INT64 microseconds (Spark's default
    INT96 is deprecated, and delta-rs reads it as nanoseconds). Adaptive execution keeps the
    plan it ran: when the changes delete every row of the buckets they touch, its
    empty-relation rule would swap the plan for an empty one after the join ran, and the
    counts observed on the join would be lost with it (an AssertionError in
    ``Observation.get``); the rules the user excluded stay excluded. A caller writing several
    tables side by side sets these around all of them: each write's own setting and restoring
    then finds the same values, never another write's."""
    excluded = [r for r in (spark.conf.get(_AQE_EXCLUDED, None) or "").split(",") if r]
    if _AQE_EMPTY_RELATION not in excluded:
        excluded.append(_AQE_EMPTY_RELATION)
    return {"spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS", _AQE_EXCLUDED: ",".join(excluded)}


def _move_into_place(staging: Path, target: Path, buckets: int, run: int) -> dict[int, list[str]]:
    """Rename the staged files to their bucket names in ``target``; the names carry a token of
    their own, so a re-run of a run never overwrites a file a committed table reads."""
    target.mkdir(parents=True, exist_ok=True)
    token = uuid.uuid4().hex[:8]
    written: dict[int, list[str]] = {}
    for directory in sorted(staging.glob(f"{BUCKET}=*")):
        bucket = int(directory.name.split("=", 1)[1])
        for n, f in enumerate(sorted(directory.glob("*.parquet"))):
            name = file_name(bucket, buckets, run, token, n)
            os.replace(f, target / name)
            written.setdefault(bucket, []).append(name)
    shutil.rmtree(staging, ignore_errors=True)
    return written


def rows_of(source: Path, names: list[str]) -> int:
    """Rows of the files ``names`` under ``source``, from their footers."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(source / n).metadata.num_rows for n in names)


def _adds_columns(changes: DataFrame, source: Path, layout: Layout) -> bool:
    """Whether the changes bring a column the table's files lack (from one file's footer)."""
    import pyarrow.parquet as pq

    names = layout.names
    if not names:
        return False
    present = set(pq.read_schema(source / names[0]).names)
    return any(c not in present for c in changes.columns if c != "_op")
