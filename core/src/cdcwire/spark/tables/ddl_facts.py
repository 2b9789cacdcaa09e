"""The DDLs of a run as facts joined to the row changes by table, so that an expression applying
them has the same size however many DDLs the run holds.

A run applies its TRUNCATEs, RENAMEs, column and partition DDLs to the row changes before
them. An expression naming each DDL (a CASE branch per RENAME, an OR term per TRUNCATE) grows
with their number, and a run of a few hundred outgrows the JVM's 64 KB method limit: Spark then
compiles nothing for the stage and runs it interpreted, slowly, after logging the failed
compile. Instead, the facts of each table (one small struct per DDL, in the order they apply)
come in a small frame of one row per table, joined to the rows by their lower-cased names
(broadcast: no shuffle, no row duplicated), and one higher-order expression over the row's
array of facts applies them: its size is fixed, its cost per row follows the DDLs of that
row's table alone.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Optional, Sequence

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

#: The Spark type of a fact's commit ts, as the events carry it.
TS = "decimal(20,0)"


def ts_value(ts: Optional[int]) -> Optional[Decimal]:
    return None if ts is None else Decimal(ts)


def with_facts(rows: DataFrame, facts: dict[tuple[str, ...], list[tuple]], keys: Sequence[str], fact_type: str,
               name: str) -> DataFrame:
    """``rows`` with a column ``name``: the array of facts (``fact_type``, a Spark struct type
    text) of the row's key, in their order; null where the key has none. ``keys``: row columns,
    e.g. ``("schema", "table")``, compared without case with the keys of ``facts`` (lower-cased)."""
    spark = rows.sparkSession
    key_names = [f"_cdc_fk{i}" for i in range(len(keys))]
    frame = spark.createDataFrame(
        [(*key, list(values)) for key, values in facts.items()],
        ", ".join([*(f"{k} string" for k in key_names), f"{name} array<{fact_type}>"]),
    )
    on = None
    for column, key in zip(keys, key_names):
        term = F.lower(F.col(column)) == F.col(key)
        on = term if on is None else on & term
    return rows.join(F.broadcast(frame), on, "left").drop(*key_names)
