"""Applying a table's changes to its Parquet snapshot.

Each run writes the table's new snapshot whole, into a directory of its own
(``OUT/<schema>.<table>/run-<N>``): the rows of the previous snapshot whose key no change
touches, and the upserted rows. The state manifest names the current directory; the
previous one is removed once the manifest that no longer names it is in place. Columns
evolve from the row images: a column added upstream appears (null in older rows), a
column dropped upstream stays, null from then on.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F


#: About how many rows a snapshot file holds (fewer files than Spark's partitions for small tables).
ROWS_PER_FILE = 1_000_000


def snapshot(spark: SparkSession, out: str, directory: Optional[str]) -> Optional[DataFrame]:
    """The table's current snapshot, or None before its first run."""
    if not directory:
        return None
    return spark.read.parquet(str(Path(out) / directory))


def apply_to_parquet(
    spark: SparkSession, out: str, table: str, current: Optional[str], changes: DataFrame, keys: list[str], run: int,
    changed: int = 0,
) -> tuple[str, dict[str, int]]:
    """Write the table's next snapshot; (its directory under OUT, counts of rows inserted,
    updated and deleted). ``changes``: typed rows with ``_op`` "U" (upsert) or "D" (delete);
    ``changed``: about how many (sizes the files). A first snapshot is one Spark job (its
    rows counted from the written files' footers), a later one two."""
    old = snapshot(spark, out, current)
    upserts = changes.where(F.col("_op") == "U").drop("_op")
    directory = f"{table}/run-{run:06d}"
    if old is None:
        _write(upserts, out, directory, changed)
        return directory, {"inserted": rows_in(out, directory), "updated": 0, "deleted": 0}
    else:
        touched = changes.select(*keys, "_op").dropDuplicates(keys)
        existing = old.select(*keys).withColumn("_existed", F.lit(True))
        seen = touched.join(existing, on=keys, how="left")
        tally = {r["_op"] + str(bool(r["_existed"])): r["count"] for r in seen.groupBy("_op", "_existed").count().collect()}
        counts = {"inserted": tally.get("UFalse", 0), "updated": tally.get("UTrue", 0), "deleted": tally.get("DTrue", 0)}
        kept = old.join(touched.select(*keys), on=keys, how="left_anti")
        new = kept.unionByName(upserts, allowMissingColumns=True)
    _write(new, out, directory, rows_in(out, current) + counts["inserted"])
    return directory, counts


def _write(rows: DataFrame, out: str, directory: str, about: int) -> None:
    """Write ``about`` rows as a snapshot: a snapshot's rows come out of shuffles of the session's
    partition count (200 by default); written as they are, a small table would be hundreds of tiny files."""
    files = about // ROWS_PER_FILE + 1  # coalesce never adds partitions (and asks no job, as .rdd would)
    rows.coalesce(files).write.mode("overwrite").parquet(str(Path(out) / directory))


def remove_snapshot(out: str, directory: Optional[str]) -> None:
    if directory:
        shutil.rmtree(Path(out) / directory, ignore_errors=True)


def rows_in(out: str, directory: Optional[str]) -> int:
    """Rows of a snapshot, from its Parquet footers (no Spark job)."""
    if not directory:
        return 0
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(f).metadata.num_rows for f in (Path(out) / directory).glob("*.parquet"))
