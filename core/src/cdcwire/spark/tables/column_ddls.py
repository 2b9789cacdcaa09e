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

from ...values.ddl_statements import Token, tokens

#: DDL types whose statements may add, drop or rename columns.
COLUMN_TYPES = ("ADD_COLUMN", "ADD_COLUMNS", "DROP_COLUMN", "DROP_COLUMNS", "MODIFY_COLUMN")
_NOT_COLUMNS = ("index", "key", "unique", "primary", "constraint", "partition", "foreign", "fulltext", "check",
                "spatial", "vector")


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


def column_changes(query: str) -> list[tuple]:
    """(verb, column, new name or default, an added column's type word) of each column change of
    an ``ALTER TABLE``."""
    toks = tokens(query)
    if len(toks) < 3 or not (toks[0].is_word("alter") and toks[1].is_word("table")):
        return []
    rest = toks[5:] if len(toks) > 4 and toks[3].kind == "punct" and toks[3].text == "." else toks[3:]
    out: list[tuple] = []
    for spec in _split(rest):
        first = spec[0].text if spec[0].kind == "word" else ""
        second = spec[1].text if len(spec) > 1 and spec[1].kind == "word" else ""
        body = spec[2:] if second == "column" else spec[1:]
        if first == "add" and second not in _NOT_COLUMNS and body:
            if body[0].kind == "punct":  # ADD COLUMN (a INT, b INT)
                out += [("add", s[0].text, _default(s), _type_word(s)) for s in _split(body[1:-1]) if s]
            else:
                out.append(("add", body[0].text, _default(body), _type_word(body)))
        elif first == "drop" and second not in _NOT_COLUMNS and body:
            body = body[2:] if body[0].is_word("if") else body
            if body:
                out.append(("drop", body[0].text, None, ""))
        elif first == "rename" and second == "column" and len(spec) > 4:
            out.append(("rename", spec[2].text, spec[4].text, ""))
        elif first == "change" and len(body) > 1 and body[0].text.lower() != body[1].text.lower():
            out.append(("rename", body[0].text, body[1].text, ""))
    return out


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
        for verb, column, extra, type_word in column_changes(query):
            new, default = (extra, None) if verb == "rename" else ("", extra)
            out.append(ColumnChange(ts, table, verb, column, new, default, type_word))
    return sorted(out, key=lambda c: c.ts)


def _split(toks: list[Token]) -> list[list[Token]]:
    specs: list[list[Token]] = [[]]
    depth = 0
    for t in toks:
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth -= 1
        elif depth == 0 and t.kind == "punct" and t.text == ",":
            specs.append([])
            continue
        specs[-1].append(t)
    return [s for s in specs if s]


def _type_word(spec: list[Token]) -> str:
    unsigned = any(t.is_word("unsigned") for t in spec)
    word = spec[1].text if len(spec) > 1 and spec[1].kind == "word" else ""
    return "bigint" if unsigned and word in _INT32 else word


def _default(spec: list[Token]) -> Optional[object]:
    for i, t in enumerate(spec[:-1]):
        if t.is_word("default"):
            value = spec[i + 1]
            if value.kind == "punct" and value.text in "-+" and i + 2 < len(spec):
                number = _number(spec[i + 2].text)
                return -number if number is not None and value.text == "-" else number
            if value.kind == "string":
                return value.text
            return _number(value.text) if value.kind == "word" else None
    return None


def _number(text: str):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return None


def _same_table(change: ColumnChange) -> Column:
    schema, table = change.table.split(".", 1)
    return (F.lower(F.col("schema")) == schema.lower()) & (F.lower(F.col("table")) == table.lower())


def changed_images(events: DataFrame, changes: list[ColumnChange]) -> DataFrame:
    """Row events whose images lose a dropped column or carry a renamed one's new name, where
    they come before the DDL (names as the events carry them)."""
    for change in changes:
        if change.verb == "add":
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
