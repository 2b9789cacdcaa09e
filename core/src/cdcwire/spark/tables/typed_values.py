"""The row images of every table of a run typed in one expression, for one plan over all tables.

:func:`~cdcwire.spark.tables.changelog.typed_columns` types one table's images into a frame of
that table's columns: a frame per table, a Spark job per table. A run over a whole database
(hundreds of tables) cannot pay a job per table, so here every table's rows share one frame
whose columns do not depend on the table:

- ``_vals``: the row's values in its table's column order, each a struct with one field per
  Spark type of the run (``t0``, ``t1``, ...), the one of the column's type set; so a table's
  column ``i`` is ``_vals[i].t<j>`` for its type's ``j``. Each value is typed by the same SQL
  as :func:`typed_columns` (:func:`~cdcwire.spark.tables.changelog.typed_sql`), chosen by the
  column's *typer* (a CASE over the distinct typers of the run: a handful of types, one per
  ENUM/SET element list), so the two give the same values;
- ``_zeros``: the row's date and time values that do not read as one (MySQL's zero dates),
  counted as :func:`~cdcwire.spark.tables.changelog.zero_date_counts` counts them;
- ``_bucket``: the row's bucket, ``pmod(xxhash64(key values), B)`` as
  :func:`~cdcwire.spark.tables.table_buckets.bucket_column` computes it from the typed key
  columns (integral keys as ``decimal(38,0)``): Spark hashes an array of structs element by
  element and field by field, skipping nulls, so an array of one-field-set structs hashes as
  the key values given one by one. A table keeps its buckets whichever plan wrote it.

What each table needs (its columns' typers, key positions, B, ADD COLUMN defaults) comes in a
small table frame joined to the rows by (schema, table), broadcast; the expression itself
depends only on the run's distinct typers.
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

from .changelog import _PRESENT, _sql_string, typed_sql
from .table_types import TableColumn

_DATE_AND_TIME = (DateType, TimestampType, TimestampNTZType)
_TABLE_COLUMN = StructType([
    StructField("n", StringType()),  # name
    StructField("s", IntegerType()),  # typer
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
    """The run's distinct typers (one per typed SQL text) and Spark types (one ``t<j>`` field each)."""

    sql: tuple[str, ...]
    field_of: tuple[int, ...]  # typer -> its field
    types: tuple[DataType, ...]  # field -> its Spark type

    @classmethod
    def of(cls, tables: Sequence[TableTyping], time_zone: str) -> "Typers":
        sql: dict[str, int] = {}
        field_of: list[int] = []
        types: list[DataType] = []
        for t in tables:
            for c in t.columns:
                text = typed_sql(c, time_zone)
                if text not in sql:
                    sql[text] = len(sql)
                    if c.spark_type not in types:
                        types.append(c.spark_type)
                    field_of.append(types.index(c.spark_type))
        return cls(tuple(sql), tuple(field_of), tuple(types))

    def typer(self, column: TableColumn, time_zone: str) -> int:
        return self.sql.index(typed_sql(column, time_zone))

    def field(self, column: TableColumn, time_zone: str) -> str:
        return f"t{self.field_of[self.typer(column, time_zone)]}"


def table_info(spark: SparkSession, tables: Sequence[TableTyping], typers: Typers, time_zone: str) -> DataFrame:
    """The small frame of what each table needs, joined to its rows."""
    rows = []
    for t in tables:
        defaults = {name: (d, ts) for name, d, ts in t.defaults}
        cols = []
        for c in t.columns:
            default, ts = defaults.get(c.name, (None, None))
            cols.append((c.name, typers.typer(c, time_zone), default, None if ts is None else Decimal(ts)))
        wide = [_wide(t.columns[k].spark_type) for k in t.keys]
        rows.append((t.schema, t.table, t.buckets, cols, list(t.keys), wide))
    return spark.createDataFrame(rows, _TABLE_INFO)


def typed_values(rows: DataFrame, info: DataFrame, typers: Typers) -> DataFrame:
    """``rows`` (``schema``, ``table``, ``_image``, ``commit_ts`` and any others) with ``_vals``,
    ``_zeros`` and ``_bucket`` (see the module doc), ``_image`` dropped."""
    fields = [f"t{j}" for j in range(len(typers.types))]
    lookup = ("CASE WHEN get(_image, cdc_i).name = cdc_tc.n THEN get(_image, cdc_i).value"
              " ELSE get(filter(_image, cdc_e -> cdc_e.name = cdc_tc.n), 0).value END")

    def field_sql(j: int) -> str:
        branches = []
        for s, text in enumerate(typers.sql):
            if typers.field_of[s] != j:
                continue
            ddl = typers.types[j].simpleString()
            default = f"CASE WHEN commit_ts < cdc_tc.dts THEN try_cast(cdc_tc.d AS {ddl}) END"
            branches.append(f"WHEN {s} THEN coalesce(({text}), {default})")
        return f"CASE cdc_tc.s {' '.join(branches)} END"

    dated = [s for s, j in enumerate(typers.field_of) if isinstance(typers.types[j], _DATE_AND_TIME)]
    lost = "false"
    if dated:
        raw = " ".join(f"WHEN {s} THEN ({typers.sql[s]}) IS NULL" for s in dated)
        lost = f"coalesce({_PRESENT} AND (CASE cdc_tc.s {raw} ELSE false END), false)"
    value = "named_struct(" + ", ".join(f"{_sql_string(f)}, {field_sql(j)}" for j, f in enumerate(fields)) + ")"
    element = (f"get(zip_with(array({lookup}), array(NULL), (cdc_v, cdc_unused) ->"
               f" named_struct('x', {value}, 'z', {lost})), 0)")
    wide_fields = [f for j, f in enumerate(fields) if _wide(typers.types[j])]
    canonical = "coalesce(" + ", ".join([f"cast(cdc_x.{f} AS decimal(38,0))" for f in wide_fields] + ["NULL"]) + ")"
    key = (f"named_struct('v', IF(get(_wide, cdc_p), NULL, cdc_x),"
           f" 'k', IF(get(_wide, cdc_p), {canonical}, NULL))")
    joined = rows.alias("_r").join(F.broadcast(info.alias("_t")), on=["schema", "table"])
    typed = joined.select(
        *(F.col(f"_r.{c}") for c in rows.columns if c not in ("schema", "table", "_image")),
        "schema", "table", "_t._b", "_t._keys", "_t._wide",
        F.expr(f"transform(_t._cols, (cdc_tc, cdc_i) -> {element})").alias("_typed"),
    )
    bucket = (f"pmod(xxhash64(transform(_keys, (cdc_k, cdc_p) -> "
              f"get(zip_with(array(get(_typed, cdc_k).x), array(NULL), (cdc_x, cdc_u) -> {key}), 0))), _b)")
    return typed.select(
        *(c for c in typed.columns if c not in ("_b", "_keys", "_wide", "_typed")),
        F.expr("transform(_typed, cdc_e -> cdc_e.x)").alias("_vals"),
        F.expr("size(filter(_typed, cdc_e -> cdc_e.z))").alias("_zeros"),
        F.expr(bucket).alias("_bucket"),
    )


def _wide(t: DataType) -> bool:
    """A key column hashed as ``decimal(38,0)`` (see :func:`~.table_buckets.bucket_column`)."""
    return isinstance(t, IntegralType) or (isinstance(t, DecimalType) and t.scale == 0)


__all__ = ["TableTyping", "Typers", "table_info", "typed_values"]
