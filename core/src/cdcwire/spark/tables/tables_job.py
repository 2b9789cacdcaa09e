"""Every table of a run rewritten in one Spark job: the plan's cost follows the changes, not the tables.

The reference tier (:func:`~cdcwire.spark.tables.table_buckets.rewrite_buckets`) applies one
table at a time: a job to find the buckets its changes touch, a job to join and write them,
each paying Spark's fixed costs, and each scanning the run's staged changes for its own. A
whole database of tables paid seconds a table. Here one job does all of it:

1. each deciding change is typed as its table types it, and given its bucket, in one
   expression over every table (:mod:`.typed_values`);
2. the changes are grouped by (schema, table, bucket) in one shuffle; each group's task reads
   that bucket's old files, merges (:func:`~.bucket_merge.merge_bucket`) and writes the
   bucket's new file with pyarrow into the table's target directory, returning one small row
   (the file's name and the counts);
3. the driver gathers those rows (one per bucket written: metadata, never rows) into a
   :class:`~.table_buckets.Rewrite` per table, which the format commits as the reference
   tier's (a Parquet snapshot links the untouched buckets; Delta commits adds and removes).

A table whose every bucket must be rewritten (a column its files lack, for a Parquet
snapshot's one schema) gets a marker row per bucket, so its untouched buckets get a group
too. The files have the bucket names of :mod:`.table_buckets` and the same hash, so a table
goes on in either tier.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType

from .changelog import checked_time_zone
from .bucket_merge import merge_bucket, read_bucket
from .table_buckets import Layout, Rewrite, file_name
from .typed_values import TableTyping, Typers, table_info, typed_values

_DONE = StructType([
    StructField("schema", StringType()),
    StructField("table", StringType()),
    StructField("bucket", IntegerType()),
    StructField("file", StringType()),
    StructField("inserted", LongType()),
    StructField("updated", LongType()),
    StructField("deleted", LongType()),
    StructField("zeros", LongType()),
])
KEEP = "K"  # a marker row: its bucket is rewritten though no change touches it


@dataclass(slots=True)
class TableWork:
    """One table's part of the job: typing, the files it has now (by bucket), where its old
    files are and where the new ones go, and whether every bucket is rewritten."""

    typing: TableTyping
    layout: Layout
    source: Path
    target: Path
    every_bucket: bool = False

    @property
    def name(self) -> str:
        return f"{self.typing.schema}.{self.typing.table}"


@dataclass(frozen=True, slots=True)
class _TaskTable:
    """What a task needs of a table (picklable, paths as text)."""

    columns: tuple[tuple[str, str, object], ...]  # (name, its _v<j> array, arrow type)
    keys: tuple[str, ...]
    buckets: int
    old: dict[int, list[str]]
    target: str


@dataclass(slots=True)
class TablesDone:
    """What the job did: per table the :class:`Rewrite`, and its zero dates."""

    rewrites: dict[str, Rewrite] = field(default_factory=dict)
    zero_dates: dict[str, int] = field(default_factory=dict)


def rewrite_tables(spark: SparkSession, last: DataFrame, work: Sequence[TableWork], time_zone: str, run: int) -> TablesDone:
    """Apply each table's deciding changes in ``last`` (``schema``, ``table``, ``_op``,
    ``_image``, ``commit_ts``) to its buckets in one job; see the module doc."""
    from pyspark.sql.pandas.types import to_arrow_type

    time_zone = checked_time_zone(time_zone)
    typings = [w.typing for w in work]
    typers = Typers.of(typings, time_zone)
    info = table_info(spark, typings, typers)
    token = uuid.uuid4().hex[:8]
    tasks: dict[tuple[str, str], _TaskTable] = {}
    for w in work:
        t = w.typing
        columns = tuple((c.name, typers.array(c), to_arrow_type(c.spark_type, timezone="UTC")) for c in t.columns)
        old = {b: [str(w.source / n) for n in names] for b, names in w.layout.files.items()}
        tasks[(t.schema, t.table)] = _TaskTable(columns, tuple(t.columns[k].name for k in t.keys), t.buckets, old,
                                                str(w.target))
        w.target.mkdir(parents=True, exist_ok=True)
    arrays = [f"_v{j}" for j in range(len(typers.types))]
    typed = typed_values(last.select("schema", "table", "_op", "_image", "commit_ts"), info, typers).select(
        "schema", "table", "_op", "_bucket", "_zeros", *arrays)
    markers = [(w.typing.schema, w.typing.table, KEEP, b, 0, *(None for _ in arrays)) for w in work if w.every_bucket
               for b in range(w.typing.buckets)]
    if markers:
        typed = typed.unionByName(spark.createDataFrame(markers, typed.schema))
    # every table's task info goes to the workers once, as a broadcast variable: captured in the
    # function it was pickled into the plan and unpickled whole by every task
    shared = spark.sparkContext.broadcast(tasks)

    def apply_group(key, rows):
        return _apply_bucket(shared.value[(key[0].as_py(), key[1].as_py())], int(key[2].as_py()), rows, run, token)

    try:
        found = typed.groupBy("schema", "table", "_bucket").applyInArrow(apply_group, _DONE).collect()
    finally:
        shared.destroy()
    done = TablesDone()
    by_table: dict[str, list] = {}
    for r in found:
        by_table.setdefault(f"{r['schema']}.{r['table']}", []).append(r)
    for w in work:
        rows = by_table.get(w.name, [])
        touched = {r["bucket"] for r in rows}
        written = {r["bucket"]: [r["file"]] for r in rows if r["file"]}
        replaced = [n for b in sorted(touched) for n in w.layout.files.get(b, [])]
        kept = [n for b, names in sorted(w.layout.files.items()) if b not in touched for n in names]
        counts = {k: sum(int(r[k]) for r in rows) for k in ("inserted", "updated", "deleted")}
        done.rewrites[w.name] = Rewrite(w.typing.buckets, written, replaced, kept, counts, _schema_of(w, written))
        done.zero_dates[w.name] = sum(int(r["zeros"]) for r in rows)
    return done


def _apply_bucket(table: _TaskTable, bucket: int, group, run: int, token: str):
    """One group's task: the bucket's changes typed from ``_vals``, merged with its old
    files, written as the bucket's one new file; one row of what was done."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    ops = group.column("_op").combine_chunks()
    change = pc.not_equal(ops, KEEP)
    changes = group.filter(change)
    ops = pc.filter(ops, change)
    changes_typed = _typed_changes(changes, table.columns)
    zeros = pc.sum(pc.filter(changes.column("_zeros"), pc.equal(ops, "U"))).as_py() or 0
    rows, counts = merge_bucket(read_bucket(table.old.get(bucket, [])), changes_typed, ops, list(table.keys))
    name = None
    if rows.num_rows:
        name = file_name(bucket, table.buckets, run, token, 0)
        pq.write_table(rows, str(Path(table.target) / name))
    schema, name_of_table = group.column("schema")[0].as_py(), group.column("table")[0].as_py()
    return pa.table({
        "schema": [schema], "table": [name_of_table], "bucket": pa.array([bucket], pa.int32()), "file": [name],
        "inserted": [counts["inserted"]], "updated": [counts["updated"]], "deleted": [counts["deleted"]],
        "zeros": [int(zeros)],
    }, schema=pa.schema([(f.name, t) for f, t in zip(_DONE.fields, (
        pa.string(), pa.string(), pa.int32(), pa.string(), pa.int64(), pa.int64(), pa.int64(), pa.int64()))]))


def _typed_changes(changes, columns):
    """The table's typed columns from the ``_v<j>`` arrays (per row one value per column of the
    table, in the array of its type): column ``i`` is every ``n``-th value of its array from ``i``."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n, rows = len(columns), changes.num_rows
    flat: dict[str, object] = {}
    arrays = []
    for i, (name, array, arrow_type) in enumerate(columns):
        if not rows:
            arrays.append(pa.array([], arrow_type))
            continue
        if array not in flat:
            flat[array] = pc.list_flatten(changes.column(array).combine_chunks())
        picked = pc.take(flat[array], np.arange(i, n * rows, n))
        arrays.append(picked if picked.type.equals(arrow_type) else picked.cast(arrow_type))
    return pa.Table.from_arrays(arrays, names=[c[0] for c in columns])


def _arrow(t):
    """A Spark type's Arrow type as the table's files hold it: timestamps in UTC."""
    import pyarrow as pa

    return pa.timestamp("us", tz="UTC") if pa.types.is_timestamp(t) and t.tz is not None else t


def _schema_of(work: TableWork, written: dict[int, list[str]]) -> StructType:
    """The Spark schema of the table's new files (of its typed columns when it wrote none)."""
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import from_arrow_schema

    for names in written.values():
        return from_arrow_schema(pq.read_schema(work.target / names[0]))
    return StructType([StructField(c.name, c.spark_type) for c in work.typing.columns])


def adds_columns(work_source: Path, layout: Layout, typing: TableTyping) -> bool:
    """Whether the table's typed columns bring one its files lack, or another type (from one
    file's footer): a Parquet snapshot then rewrites every bucket, so its files share one schema."""
    import pyarrow.parquet as pq
    from pyspark.sql.pandas.types import to_arrow_type

    names = layout.names
    if not names:
        return False
    present = pq.read_schema(work_source / names[0])
    for c in typing.columns:
        if c.name not in present.names:
            return True
        if not present.field(c.name).type.equals(to_arrow_type(c.spark_type, timezone="UTC")):
            return True
    return False


__all__ = ["KEEP", "TableWork", "TablesDone", "adds_columns", "rewrite_tables"]
