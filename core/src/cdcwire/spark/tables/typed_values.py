"""The row images of every table of a run typed in one plan, for one Spark job over all tables.

:func:`~cdcwire.spark.tables.changelog.typed_columns` types one table's images into a frame of
that table's columns: a frame per table, a Spark job per table. A run over a whole database
(hundreds of tables) cannot pay a job per table, so here every table's rows share one frame
whose columns do not depend on the table:

- ``_v0``, ``_v1``, ...: one array per Spark type of the run, each as long as the row's table
  has columns: column ``i`` of a table is ``_v<j>[i]`` for its type's ``j`` (null in the other
  arrays). Each value is typed by the same SQL as :func:`typed_columns`
  (:func:`~cdcwire.spark.tables.changelog.typed_sql`), chosen by the column's *typer* (a CASE
  over the run's distinct typers: about one per Spark type; ENUM and SET element names are
  data of the table, not literals, so a thousand ENUM columns share one typer). An array per
  type keeps each expression small: Spark compiles each into methods of its own (one
  expression of every type overflowed the JVM's 64 KB method limit);
- ``_zeros``: the row's date and time values that do not read as one (MySQL's zero dates),
  counted as :func:`~cdcwire.spark.tables.changelog.zero_date_counts` counts them;
- ``_bucket``: the row's bucket, ``pmod(xxhash64(key values), B)`` as
  :func:`~cdcwire.spark.tables.table_buckets.bucket_column` computes it from the typed key
  columns (integral keys as ``decimal(38,0)``): Spark hashes an array of structs element by
  element and field by field, skipping nulls, so an array of one-field-set structs hashes as
  the key values given one by one. A table keeps its buckets whichever plan wrote it.

What each table needs (its columns' typers, element names, key positions, B, ADD COLUMN
defaults) comes in a small table frame joined to the rows by (schema, table), broadcast; the
expressions depend only on the run's distinct typers.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Optional, Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import (
    ArrayType, BooleanType, DataType, DateType, DecimalType, IntegerType, IntegralType, StringType,
    StructField, StructType, TimestampNTZType, TimestampType,
)

from ..runtime.local_frames import local_frame
from .changelog import _PRESENT, element_list, typed_sql
from .table_types import TableColumn

_DATE_AND_TIME = (DateType, TimestampType, TimestampNTZType)
_ELEMENTS = "cdc_tc.e"
_TABLE_COLUMN = StructType([
    StructField("n", StringType()),  # name
    StructField("s", IntegerType()),  # typer
    StructField("f", IntegerType()),  # the array (the Spark type) its values are in
    StructField("e", ArrayType(StringType())),  # ENUM / SET element names
    StructField("d", StringType()),  # an ADD COLUMN's DEFAULT, as text
    StructField("dts", DecimalType(20, 0)),  # that ADD COLUMN's commit ts
])
_TABLE_INFO = StructType([
    StructField("schema", StringType()),
    StructField("table", StringType()),
    StructField("_b", IntegerType()),
    StructField("_cols", ArrayType(_TABLE_COLUMN)),
    StructField("_keys", ArrayType(IntegerType())),
    StructField("_wide", ArrayType(BooleanType())),
])


@dataclass(frozen=True, slots=True)
class TableTyping:
    """One table of the plan: its columns (typed as :func:`typed_columns` types them), the
    positions of its key columns, its bucket count, and each column's DEFAULT from an ADD
    COLUMN (text and commit ts: rows before it that lack the column get it)."""

    schema: str
    table: str
    columns: tuple[TableColumn, ...]
    keys: tuple[int, ...]
    buckets: int
    defaults: tuple[tuple[str, Optional[str], Optional[int]], ...] = ()  # per column: (name, default, ts)


@dataclass(frozen=True, slots=True)
class Typers:
    """The run's distinct typers (one per typed SQL text) and Spark types (one ``_v<j>`` array each)."""

    sql: tuple[str, ...]
    field_of: tuple[int, ...]  # typer -> its array
    types: tuple[DataType, ...]  # array -> its Spark type
    time_zone: str = "UTC"

    @classmethod
    def of(cls, tables: Sequence[TableTyping], time_zone: str) -> "Typers":
        sql: dict[str, int] = {}
        field_of: list[int] = []
        types: list[DataType] = []
        for t in tables:
            for c in t.columns:
                text = typed_sql(c, time_zone, _ELEMENTS)
                if text not in sql:
                    sql[text] = len(sql)
                    if c.spark_type not in types:
                        types.append(c.spark_type)
                    field_of.append(types.index(c.spark_type))
        return cls(tuple(sql), tuple(field_of), tuple(types), time_zone)

    def typer(self, column: TableColumn) -> int:
        return self.sql.index(typed_sql(column, self.time_zone, _ELEMENTS))

    def array(self, column: TableColumn) -> str:
        """The ``_v<j>`` column holding the column's values."""
        return f"_v{self.field_of[self.typer(column)]}"


def table_info(spark: SparkSession, tables: Sequence[TableTyping], typers: Typers) -> DataFrame:
    """The small frame of what each table needs, joined to its rows (handed to the JVM as Arrow:
    the broadcast join collects it, and a Python RDD of it started Python workers every run)."""
    rows = []
    for t in tables:
        defaults = {name: (d, ts) for name, d, ts in t.defaults}
        cols = []
        for c in t.columns:
            default, ts = defaults.get(c.name, (None, None))
            s = typers.typer(c)
            cols.append((c.name, s, typers.field_of[s], list(element_list(c)), default, None if ts is None else Decimal(ts)))
        wide = [_wide(t.columns[k].spark_type) for k in t.keys]
        rows.append((t.schema, t.table, t.buckets, cols, list(t.keys), wide))
    return local_frame(spark, rows, _TABLE_INFO)


def typed_values(rows: DataFrame, info: DataFrame, typers: Typers) -> DataFrame:
    """``rows`` (``schema``, ``table``, ``_image``, ``commit_ts`` and any others) with the
    ``_v<j>`` arrays, ``_zeros`` and ``_bucket`` (see the module doc), ``_image`` dropped."""
    lookup = ("CASE WHEN get(_image, cdc_i).name = cdc_tc.n THEN get(_image, cdc_i).value"
              " ELSE get(filter(_image, cdc_e -> cdc_e.name = cdc_tc.n), 0).value END")

    def bound(body: str) -> str:
        """``body`` over ``cdc_v``, the column's VALUE struct, looked up once."""
        return f"get(zip_with(array({lookup}), array(NULL), (cdc_v, cdc_unused) -> {body}), 0)"

    def array_sql(j: int) -> str:
        ddl = typers.types[j].simpleString()
        default = f"CASE WHEN commit_ts < cdc_tc.dts THEN try_cast(cdc_tc.d AS {ddl}) END"
        branches = " ".join(f"WHEN {s} THEN {text}" for s, text in enumerate(typers.sql) if typers.field_of[s] == j)
        value = f"coalesce(CASE cdc_tc.s {branches} END, {default})"
        return f"transform(_t._cols, (cdc_tc, cdc_i) -> CASE WHEN cdc_tc.f = {j} THEN {bound(value)} END)"

    dated = [s for s, j in enumerate(typers.field_of) if isinstance(typers.types[j], _DATE_AND_TIME)]
    zeros = "0"
    if dated:
        raw = " ".join(f"WHEN {s} THEN ({typers.sql[s]}) IS NULL" for s in dated)
        lost = bound(f"coalesce({_PRESENT} AND (CASE cdc_tc.s {raw} END), false)")
        listed = ", ".join(str(s) for s in dated)
        zeros = f"size(filter(_t._cols, (cdc_tc, cdc_i) -> cdc_tc.s IN ({listed}) AND {lost}))"
    arrays = [f"_v{j}" for j in range(len(typers.types))]
    joined = rows.alias("_r").join(F.broadcast(info.alias("_t")), on=["schema", "table"])
    typed = joined.select(
        *(F.col(f"_r.{c}") for c in rows.columns if c not in ("schema", "table", "_image")),
        "schema", "table", "_t._b", "_t._keys", "_t._wide",
        *(F.expr(array_sql(j)).alias(a) for j, a in enumerate(arrays)),
        F.expr(zeros).alias("_zeros"),
    )
    value = "named_struct(" + ", ".join(f"'{a}', get({a}, cdc_k)" for a in arrays) + ")"
    wide = [a for j, a in enumerate(arrays) if _wide(typers.types[j])]
    canonical = "coalesce(" + ", ".join([f"cast(get({a}, cdc_k) AS decimal(38,0))" for a in wide] + ["NULL"]) + ")"
    key = f"named_struct('v', IF(get(_wide, cdc_p), NULL, {value}), 'k', IF(get(_wide, cdc_p), {canonical}, NULL))"
    bucket = f"pmod(xxhash64(transform(_keys, (cdc_k, cdc_p) -> {key})), _b)"
    return typed.select(*(c for c in typed.columns if c not in ("_b", "_keys", "_wide")),
                        F.expr(bucket).alias("_bucket"))


def _wide(t: DataType) -> bool:
    """A key column hashed as ``decimal(38,0)`` (see :func:`~.table_buckets.bucket_column`)."""
    return isinstance(t, IntegralType) or (isinstance(t, DecimalType) and t.scale == 0)


__all__ = ["TableTyping", "Typers", "table_info", "typed_values"]
