"""The step of a ``materialize`` run that writes the tables: one plan for all of them, or one table at a time.

Two tiers with one contract (the tables they leave are the same, file for file by bucket):

- **one plan** (the default): every changed table in one Spark job (:mod:`.tables_job`), the
  driver committing each table (a Parquet snapshot's links, a Delta commit, an Iceberg
  snapshot) from metadata;
- **per table** (the reference): each table typed by :func:`~.changelog.typed_columns` and
  applied by its own Spark jobs (:func:`~.table_buckets.rewrite_buckets`), a few tables side by
  side. Chosen with ``spark.cdcwire.tables.plan=per-table``; a table holding files of an older
  layout (not named for a bucket), or one that outgrew its buckets, is always applied so, once,
  as its rows must be hashed anew (Spark's hash: the tasks of the one plan cannot compute it).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ...foundation.errors import CdcwireError
from ...values.type_codes import ColumnFlag
from ..runtime.run_steps import step
from ..runtime.side_by_side import side_by_side
from .changelog import typed_columns, zero_dates_of_tables
from .column_ddls import ColumnChange, with_defaults
from .delta_tables import DeltaNow, apply_to_delta, commit_delta
from . import iceberg_tables
from .parquet_tables import apply_to_parquet, finish_snapshot, next_snapshot, remove_snapshot
from .table_buckets import Layout, bucket_count_for, outgrown, rewrite_buckets, rows_of, rows_per_bucket
from .tables_job import TableWork, adds_columns, rewrite_tables
from .typed_values import TableTyping

PLAN_SETTING = "spark.cdcwire.tables.plan"
PLANS = ("one", "per-table")
_HANDLE_KEY = int(ColumnFlag.HANDLE_KEY)
_ANEW = "anew"  # a table that outgrew its buckets
#: Delta commits at once (the driver's: metadata only, each a few small files).
_COMMITTERS = 8


@dataclass(frozen=True, slots=True)
class TableRun:
    """One table to write: its columns, how many changes (sizes a new table's buckets), the
    commit ts it is applied up to, whether a TRUNCATE or DROP wiped what it held, its current
    Parquet snapshot, and the ADD COLUMNs whose DEFAULT fills the rows before them."""

    name: str
    columns: tuple
    changes: int
    up_to: int
    wiped: bool = False
    current: Optional[str] = None
    column_changes: tuple[ColumnChange, ...] = ()


@dataclass(frozen=True, slots=True)
class TableWritten:
    """What writing one table did: its new Parquet snapshot (None for Delta) and net counts."""

    directory: Optional[str]
    counts: dict


def plan_setting(spark: SparkSession) -> str:
    plan = (spark.conf.get(PLAN_SETTING, "one") or "one").strip().lower()
    if plan not in PLANS:
        raise CdcwireError(f"{PLAN_SETTING}={plan!r} is not a plan for writing tables; use 'one' or 'per-table'")
    return plan


def write_tables(
    spark: SparkSession, out: str, format: str, last: DataFrame, tables: list[TableRun], run: int, time_zone: str,
    catalog: Optional[dict] = None,
) -> tuple[dict[str, TableWritten], dict[str, int]]:
    """Write every table of ``tables`` from the deciding changes ``last``; (per table what was
    written, per table the zero dates of the rows written). ``catalog``: Iceberg's catalog
    properties (None: the SQL catalog under OUT)."""
    keys = {t.name: _keys(last, t) for t in tables}
    per_table = plan_setting(spark) == "per-table"
    per_bucket = rows_per_bucket(spark)
    one: list[tuple[TableRun, TableWork, object]] = []
    alone: list[TableRun] = []
    anew: set[str] = set()
    for t in tables:
        work, now = (None, None) if per_table else _work(out, format, t, keys[t.name], run, per_bucket, catalog)
        if work is None:
            alone.append(t)
            if now == _ANEW:
                anew.add(t.name)
        else:
            one.append((t, work, now))
    written: dict[str, TableWritten] = {}
    zero_dates: dict[str, int] = {}
    if one:
        step(f"applying {len(one)} table{'s' if len(one) > 1 else ''} in one Spark job", total=len(one))
        done = rewrite_tables(spark, last, [w for _, w, _ in one], time_zone, run)
        zero_dates.update(done.zero_dates)
        step(f"committing {len(one)} table{'s' if len(one) > 1 else ''}", total=len(one))
        written.update(_commit(out, format, one, done.rewrites, catalog))
    if alone:
        columns = {t.name: list(t.columns) for t in alone}
        zero_dates.update(zero_dates_of_tables(_upserts_as_inserts(last), columns, time_zone))
        written.update(_per_table(spark, out, format, last, alone, keys, run, time_zone, anew, catalog))
    return written, zero_dates


def _work(out: str, format: str, t: TableRun, keys: list[str], run: int, per_bucket: int, catalog=None):
    """The table's part of the one plan, with its format's state before; (None, None): the table
    holds files of no bucket, it goes per table; (None, _ANEW): it outgrew its buckets, it goes
    per table and is bucketed anew."""
    root = Path(out)
    schema, table = t.name.split(".", 1)
    if format == "parquet":
        directory, source, target, layout = next_snapshot(out, t.name, None if t.wiped else t.current, run)
        now = directory
    elif format == "iceberg":  # names relative to the table's location: data/<bucket file>
        now = None
        layout = Layout.of({} if t.wiped else iceberg_tables.active_files(out, t.name, catalog))
        source = iceberg_tables.table_directory(out, t.name, catalog)  # a renamed table's keeps its old name
        target = source / iceberg_tables.DATA_DIR
    else:
        now = DeltaNow.of(out, t.name, t.wiped)
        layout, source = now.layout, root / t.name
        target = source
    if layout.unbucketed:
        return None, None
    if layout.buckets:
        rows = (rows_of(source, layout.names) if format == "parquet" else
                iceberg_tables.rows_in(out, t.name, catalog) if format == "iceberg" else now.rows)
        if outgrown(rows + t.changes, layout.buckets, per_bucket):
            return None, _ANEW
    positions = {c.name: i for i, c in enumerate(t.columns)}
    named = {c.name.lower(): c.name for c in t.columns}  # MySQL's column names compare case aside
    defaults = tuple((named[c.column.lower()], str(c.default), c.ts) for c in t.column_changes
                     if c.verb == "add" and c.default is not None and c.column.lower() in named)
    typing = TableTyping(schema, table, tuple(t.columns), tuple(positions[k] for k in keys),
                         layout.buckets or bucket_count_for(t.changes, per_bucket), defaults)
    every = format == "parquet" and adds_columns(source, layout, typing)
    return TableWork(typing, layout, source, target, every), now


def _commit(out: str, format: str, one, rewrites, catalog=None) -> dict[str, TableWritten]:
    """Each table's rewrite committed: Parquet links the untouched buckets; Delta commits, a few
    tables at a time (delta-rs works outside the GIL)."""
    def commit(item) -> tuple[str, TableWritten]:
        t, work, now = item
        done = rewrites[t.name]
        if format == "parquet":
            finish_snapshot(done, work.source, work.target)
            return t.name, TableWritten(now, done.counts)
        if format == "iceberg":
            added = [f"{iceberg_tables.DATA_DIR}/{n}" for names in done.written.values() for n in names]
            iceberg_tables.commit_files(out, t.name, added, done.replaced, t.up_to, _arrow_schema(done.schema),
                                        wiped=t.wiped, properties=catalog)
            return t.name, TableWritten(None, done.counts)
        commit_delta(out, t.name, now, done, t.up_to, t.wiped)
        return t.name, TableWritten(None, done.counts)

    if format == "parquet" or len(one) == 1:
        return dict(commit(item) for item in one)
    with ThreadPoolExecutor(max_workers=_COMMITTERS, thread_name_prefix="cdcwire-commit") as pool:
        return dict(pool.map(commit, one))


def _arrow_schema(schema):
    """The Arrow schema of a rewrite's files (Spark's types, timestamps in UTC), as the commit takes it."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(schema, error_on_duplicated_field_names_in_struct=True, timezone="UTC")


def _per_table(spark, out, format, last, tables: list[TableRun], keys, run, time_zone, anew: set[str],
               catalog=None) -> dict[str, TableWritten]:
    finished: list[str] = []

    def apply_table(t: TableRun) -> TableWritten:
        step(f"applying {t.name}", done=len(finished), total=len(tables))
        schema, table = t.name.split(".", 1)
        typed = last.where((F.col("schema") == schema) & (F.col("table") == table)).select(
            *typed_columns(F.col("_image"), list(t.columns), time_zone), F.col("_op"), F.col("commit_ts").alias("_ts")
        )
        typed = with_defaults(typed, F.col("_ts"), list(t.column_changes)).drop("_ts")
        if format == "parquet":
            directory, done = apply_to_parquet(spark, out, t.name, None if t.wiped else t.current, typed, keys[t.name],
                                               run, t.changes, anew=t.name in anew)
        elif format == "iceberg":
            directory = None
            done = _apply_to_iceberg(out, t, typed, keys[t.name], run, t.name in anew, catalog)
        else:
            directory = None
            done = apply_to_delta(out, t.name, typed, keys[t.name], t.up_to, f"_cdcwire/changes-{run:06d}/{t.name}", run,
                                  t.changes, wiped=t.wiped, anew=t.name in anew)
        finished.append(t.name)
        return TableWritten(directory, done)

    # the tables' jobs side by side: a small table's job is mostly fixed costs
    try:
        results = side_by_side(spark, [lambda t=t: apply_table(t) for t in tables])
    finally:
        for staging in (f"_cdcwire/changes-{run:06d}", f"_cdcwire/buckets-{run:06d}"):
            remove_snapshot(out, staging)
    return {t.name: r for t, r in zip(tables, results)}


def _apply_to_iceberg(out: str, t: TableRun, changes: DataFrame, keys: list[str], run: int, anew: bool,
                      catalog=None) -> dict:
    """The table's changes applied by its own Spark jobs (:func:`~.table_buckets.rewrite_buckets`)
    into new files under its location, committed in one snapshot; ``anew``: bucketed anew (it
    outgrew its buckets: every file rewritten into more buckets, the old ones removed)."""
    location = iceberg_tables.table_directory(out, t.name, catalog)
    layout = Layout.of({} if t.wiped else iceberg_tables.active_files(out, t.name, catalog))
    done = rewrite_buckets(changes, keys, layout.anew() if anew else layout, location,
                           location / iceberg_tables.DATA_DIR, Path(out) / f"_cdcwire/changes-{run:06d}/{t.name}", run,
                           t.changes)
    added = [f"{iceberg_tables.DATA_DIR}/{n}" for names in done.written.values() for n in names]
    iceberg_tables.commit_files(out, t.name, added, done.replaced, t.up_to, _arrow_schema(done.schema), wiped=t.wiped,
                                properties=catalog)
    return done.counts


def _keys(last: DataFrame, t: TableRun) -> list[str]:
    """The table's handle-key columns: from its columns' flags, else from one of its rows."""
    keys = [c.name for c in t.columns if c.flags & _HANDLE_KEY]
    if keys:
        return keys
    schema, table = t.name.split(".", 1)
    image = F.filter("_image", lambda c: c["flags"].bitwiseAND(F.lit(2)) != 0)
    row = last.where((F.col("schema") == schema) & (F.col("table") == table)).select(
        F.transform(image, lambda c: c["name"]).alias("k")
    ).first()
    return list(row["k"])


def _upserts_as_inserts(last: DataFrame) -> DataFrame:
    """The rows a run writes (each key's deciding upsert) as insert events, for counting the
    zero dates of the tables as written: values a replay or an overwritten change carried are
    not in the table, so they are not counted."""
    return last.where(F.col("_op") == "U").select(
        F.lit("insert").alias("kind"), "commit_ts", "schema", "table", F.col("_image").alias("columns"),
        F.when(F.lit(False), F.col("_image")).alias("pre_columns"),  # null, of the image's type
    )
