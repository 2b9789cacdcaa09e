"""ADD COLUMN (with its DEFAULT), DROP COLUMN and RENAME COLUMN in ``materialize``, as a replay runs them.

Columns otherwise evolve from the row images: an added column would be null in the rows
before it (MySQL gives them its DEFAULT), a dropped one would stay, a renamed one would
start a second column. For each such DDL at commit ts ``C`` a run releases:

- the run's row changes of the table before ``C`` are changed as the DDL changes a row
  (:func:`changed_images`: the column renamed or left out in their images); an added
  column's DEFAULT fills the rows that lack it from before ``C`` (:func:`with_defaults`);
- the rows an earlier run wrote (all before ``C``, as ``C`` is above the table's applied ts)
  are changed the same way, file by file (:func:`changed_arrow`, through the driver: each file
  is one bucket's), into a new Parquet snapshot or a Delta commit that overwrites the table
  with the changed files (its schema with them); the run's changes then apply to those as to
  any table. Such a DDL costs the table's size once. A Delta commit of changed files keeps
  the table's applied ts: a run killed after it changes the files again to the same result.

A DEFAULT is taken as MySQL writes it into the rows: a number or a quoted text; an
expression (``CURRENT_TIMESTAMP``) or none gives null.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ...values.ddl_statements import column_changes

#: DDL types whose statements may add, drop or rename columns.
COLUMN_TYPES = ("ADD_COLUMN", "ADD_COLUMNS", "DROP_COLUMN", "DROP_COLUMNS", "MODIFY_COLUMN", "MULTI_SCHEMA_CHANGE")


@dataclass(frozen=True, slots=True)
class ColumnChange:
    """One change of a table's columns at ``ts``: ``verb`` "add" (``default``), "drop" or "rename" (to ``new``)."""

    ts: int
    table: str
    verb: str
    column: str
    new: str = ""
    default: Optional[object] = None
    type_word: str = ""  # an added column's MySQL type ("int", "varchar", ...)
    type_text: str = ""  # an added or modified column's type as the DDL writes it ("decimal(10,2)")

    def arrow_type(self):
        """The Arrow type of an added column's DEFAULT, as the table's typed columns hold it."""
        import pyarrow as pa

        if self.type_word in _INT32:
            return pa.int32()
        if isinstance(self.default, int) or self.type_word == "bigint":
            return pa.int64()
        if isinstance(self.default, float) or self.type_word in ("float", "double"):
            return pa.float64()
        return pa.string()


_INT32 = ("tinyint", "smallint", "mediumint", "int", "integer", "year")


def changes_of(ddls: Iterable, released: set[int]) -> list[ColumnChange]:
    """The column changes of the released DDL rows (``commit_ts``, ``schema``, ``table``,
    ``ddl_type``, ``query``), by commit ts; a DDL seen again counts once."""
    seen: set[tuple[int, str]] = set()
    out: list[ColumnChange] = []
    for row in ddls:
        ts, query = int(row["commit_ts"]), row["query"] or ""
        if row["ddl_type"] not in COLUMN_TYPES or ts not in released or (ts, query) in seen:
            continue
        seen.add((ts, query))
        table = f"{row['schema']}.{row['table']}"
        for spec in column_changes(query):
            out.append(ColumnChange(ts, table, spec.verb, spec.column, spec.new, spec.default, spec.type_word,
                                    spec.type_text))
    return sorted(out, key=lambda c: c.ts)


def _same_table(change: ColumnChange) -> Column:
    schema, table = change.table.split(".", 1)
    return (F.lower(F.col("schema")) == schema.lower()) & (F.lower(F.col("table")) == table.lower())


def changed_images(events: DataFrame, changes: list[ColumnChange]) -> DataFrame:
    """Row events whose images lose a dropped column or carry a renamed one's new name, where
    they come before the DDL (names as the events carry them)."""
    for change in changes:
        if change.verb not in ("drop", "rename"):
            continue
        before = _same_table(change) & (F.col("commit_ts") < F.lit(change.ts))
        name = F.lower(F.lit(change.column))

        def fixed(image: Column, change=change, name=name) -> Column:
            if change.verb == "drop":
                return F.filter(image, lambda c: F.lower(c["name"]) != name)
            return F.transform(image, lambda c: c.withField(
                "name", F.when(F.lower(c["name"]) == name, F.lit(change.new)).otherwise(c["name"])))

        events = events.withColumns({
            image: F.when(before & F.col(image).isNotNull(), fixed(F.col(image))).otherwise(F.col(image))
            for image in ("columns", "pre_columns")
        })
    return events


def with_defaults(typed: DataFrame, ts: Column, changes: list[ColumnChange]) -> DataFrame:
    """A table's typed changes (``ts``: each one's commit ts) with each added column's DEFAULT
    where a change before the ADD COLUMN lacks it."""
    for change in changes:
        if change.verb != "add" or change.default is None:
            continue
        value = F.lit(change.default).cast({"int32": "int", "int64": "bigint", "double": "double"}.get(
            str(change.arrow_type()), "string"))
        if change.column in typed.columns:
            typed = typed.withColumn(change.column, F.when((ts < F.lit(change.ts)) & F.col(change.column).isNull(),
                                                           value.cast(typed.schema[change.column].dataType))
                                     .otherwise(F.col(change.column)))
        else:
            typed = typed.withColumn(change.column, F.when(ts < F.lit(change.ts), value))
    return typed


def changed_arrow(rows, changes: list[ColumnChange]):
    """A file's rows of an earlier run (a pyarrow table, all before every change) as the changes
    leave them."""
    import pyarrow as pa

    for change in changes:
        present = {c.lower(): c for c in rows.column_names}
        if change.verb == "add" and change.column.lower() not in present:
            value = pa.scalar(change.default, type=change.arrow_type())
            rows = rows.append_column(change.column, pa.array([value.as_py()] * rows.num_rows, type=value.type))
        elif change.verb == "drop" and change.column.lower() in present:
            rows = rows.drop_columns([present[change.column.lower()]])
        elif change.verb == "rename" and change.column.lower() in present:
            rows = rows.rename_columns([change.new if c == present[change.column.lower()] else c
                                        for c in rows.column_names])
    return rows
