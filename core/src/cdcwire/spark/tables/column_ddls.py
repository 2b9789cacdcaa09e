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

from ...foundation.errors import CdcwireError
from ...values.ddl_statements import column_changes
from ...values.type_codes import ColumnFlag
from ...values.type_conversion import converted, decimal_digits, integer_range, target_kind, text_length
from ...values.type_text import parse_type_text
from .ddl_facts import TS, ts_value, with_facts
from .table_types import TableColumn, spark_type_of

#: DDL types whose statements may add, drop or rename columns.
COLUMN_TYPES = ("ADD_COLUMN", "ADD_COLUMNS", "DROP_COLUMN", "DROP_COLUMNS", "MODIFY_COLUMN", "MULTI_SCHEMA_CHANGE")


@dataclass(frozen=True, slots=True)
class ColumnChange:
    """One change of a table's columns at ``ts``: ``verb`` "add" (``default``), "drop", "rename"
    (to ``new``) or "modify" (to ``type_text``)."""

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


def changes_of(ddls: Iterable, released: set[int], policy: str = "apply") -> list[ColumnChange]:
    """The column changes of the released DDL rows (``commit_ts``, ``schema``, ``table``,
    ``ddl_type``, ``query``), by commit ts; a DDL seen again counts once. Under ``policy``
    "skip-destructive" a MODIFY converts no value (its type follows the row images)."""
    seen: set[tuple[int, str]] = set()
    out: list[ColumnChange] = []
    for row in ddls:
        ts, query = int(row["commit_ts"]), row["query"] or ""
        if row["ddl_type"] not in COLUMN_TYPES or ts not in released or (ts, query) in seen:
            continue
        seen.add((ts, query))
        table = f"{row['schema']}.{row['table']}"
        for spec in column_changes(query):
            if spec.verb == "modify" and policy == "skip-destructive":
                continue
            out.append(ColumnChange(ts, table, spec.verb, spec.column, spec.new, spec.default, spec.type_word,
                                    spec.type_text))
    return sorted(out, key=lambda c: c.ts)


def _same_table(change: ColumnChange) -> Column:
    schema, table = change.table.split(".", 1)
    return (F.lower(F.col("schema")) == schema.lower()) & (F.lower(F.col("table")) == table.lower())


def changed_images(events: DataFrame, changes: list[ColumnChange]) -> DataFrame:
    """Row events whose images lose a dropped column, carry a renamed one's new name, or hold a
    modified one's value converted to its new type (:func:`retyped_images`), where they come
    before the DDL (names as the events carry them). A MODIFY that MySQL would refuse for a row's
    value is a :class:`CdcwireError` (one Spark job per such MODIFY). The drops and renames
    between two MODIFYs are applied together (:func:`renamed_and_dropped`)."""
    group: list[ColumnChange] = []
    for change in changes:
        if change.verb == "modify":
            events = retyped_images(renamed_and_dropped(events, group), [change])
            group = []
        elif change.verb in ("drop", "rename"):
            group.append(change)
    return renamed_and_dropped(events, group)


_RENAME_FACT = f"struct<ts: {TS}, drop: boolean, column: string, new: string>"


def renamed_and_dropped(events: DataFrame, changes: list[ColumnChange]) -> DataFrame:
    """Row events whose images, before each of the DROP and RENAME COLUMN ``changes``, lose the
    dropped column or carry the renamed one's new name. The changes come as facts per table
    (:mod:`.ddl_facts`): each image column's name goes through those above the row's commit ts,
    in order, in one expression the same for one change or hundreds."""
    if not changes:
        return events
    facts: dict[tuple[str, str], list[tuple]] = {}
    for c in changes:
        schema, table = c.table.lower().split(".", 1)
        facts.setdefault((schema, table), []).append((ts_value(c.ts), c.verb == "drop", c.column, c.new))
    events = with_facts(events, facts, ("schema", "table"), _RENAME_FACT, "_cdc_columns")
    ts = F.col("commit_ts")

    def through(name: Column, f: Column) -> Column:
        applies = name.isNotNull() & (ts < f["ts"]) & (F.lower(name) == F.lower(f["column"]))
        return F.when(applies, F.when(~f["drop"], f["new"])).otherwise(name)

    def fixed(image: Column) -> Column:
        named = F.transform(image, lambda c: c.withField("name", F.aggregate("_cdc_columns", c["name"], through)))
        return F.filter(named, lambda c: c["name"].isNotNull())

    return events.withColumns({
        image: F.when(F.col("_cdc_columns").isNotNull() & F.col(image).isNotNull(), fixed(F.col(image)))
        .otherwise(F.col(image))
        for image in ("columns", "pre_columns")
    }).drop("_cdc_columns")


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


def with_added_columns(columns: list, changes: list[ColumnChange]) -> list:
    """A table's columns (as its row images give them) and the ones its ADD COLUMNs add that no
    row image carries: a replay's table has such a column, holding the DEFAULT in the rows before
    it, even when no row after it was written. Each is typed by the DDL's type text (a later
    MODIFY's, where one follows); a later DROP takes it away again and a later RENAME names it
    anew. Names compare as MySQL compares them, case aside."""
    added: dict[str, tuple[str, str]] = {}  # lower-cased name: (name, type text)
    for change in changes:
        name = change.column.lower()
        if change.verb == "add":
            added[name] = (change.column, change.type_text)
        elif change.verb == "drop":
            added.pop(name, None)
        elif change.verb == "rename" and name in added:
            added[change.new.lower()] = (change.new, added.pop(name)[1])
        elif change.verb == "modify" and name in added and change.type_text:
            added[name] = (added[name][0], change.type_text)
    have = {c.name.lower() for c in columns}
    out = list(columns)
    for name, (column, type_text) in added.items():
        if name not in have and type_text and not isinstance(parse_type_text(type_text), str):
            spark_type, code = _spark_type(type_text)
            out.append(TableColumn.of(column, code, 0, type_text, spark_type))
    return out


def changed_arrow(rows, changes: list[ColumnChange]):
    """A file's rows of an earlier run (a pyarrow table, all before every change) as the changes
    leave them."""
    import pyarrow as pa

    for change in changes:
        present = {c.lower(): c for c in rows.column_names}
        if not isinstance(change, ColumnChange):  # another change of stored rows (a partition's removed)
            rows = change.arrow(rows)
        elif change.verb == "modify" and change.column.lower() in present:
            rows = retyped_arrow(rows, change)
        elif change.verb == "add" and change.column.lower() not in present:
            value = pa.scalar(change.default, type=change.arrow_type())
            rows = rows.append_column(change.column, pa.array([value.as_py()] * rows.num_rows, type=value.type))
        elif change.verb == "drop" and change.column.lower() in present:
            rows = rows.drop_columns([present[change.column.lower()]])
        elif change.verb == "rename" and change.column.lower() in present:
            rows = rows.rename_columns([change.new if c == present[change.column.lower()] else c
                                        for c in rows.column_names])
    return rows


def arrow_transform(changes: list) -> "functools.partial":
    """The rows of one file of an earlier run as ``changes`` leave them: a picklable function of
    one pyarrow table (an executor may run it per file)."""
    import functools

    return functools.partial(changed_arrow, changes=list(changes))


# -- MODIFY / CHANGE COLUMN with a new type ------------------------------------------------------


def _spark_type(type_text: str):
    parsed = parse_type_text(type_text)
    code = min(parsed.codes)  # any of the codes a base name may carry types the same
    return spark_type_of(code, 0, type_text), code


def _refused(table: str, column: str, row: str, value, type_text: str) -> CdcwireError:
    return CdcwireError(
        f"{table}: MODIFY of column {column} to {type_text} changes the value {value!r} of the row {row}: MySQL"
        f" refuses that ALTER (strict mode), so a replay stops there; correct the stream's DDL, or run with"
        f' ddl_policy="skip-destructive", which keeps the values unconverted and reports it'
    )


def retyped_arrow(rows, change: ColumnChange):
    """A file's rows with the modified column's values converted to its new type as MySQL
    converts them (:mod:`cdcwire.values.type_conversion`), the column of the new type's Arrow
    type; a value MySQL refuses is a :class:`CdcwireError` naming the row by its other values."""
    import decimal

    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_type

    kind = target_kind(change.type_text)
    name = {c.lower(): c for c in rows.column_names}.get(change.column.lower())
    if kind is None or name is None:
        return rows
    new_type = to_arrow_type(_spark_type(change.type_text)[0])
    values = []
    for i, value in enumerate(rows.column(name).to_pylist()):
        new, taken = converted(value, change.type_text)
        if not taken:
            shown = ", ".join(f"{c}={rows.column(c)[i].as_py()!r}" for c in rows.column_names[:3] if c != name)
            raise _refused(change.table, change.column, shown, value, change.type_text)
        values.append(decimal.Decimal(new) if kind == "decimal" and new is not None else new)
    return rows.set_column(rows.column_names.index(name), name, pa.array(values, type=new_type))


def _number(v: Column) -> Column:
    t = "decimal(38,18)"
    return F.coalesce(v["int"].cast(t), v["uint"].cast(t), v["string"].try_cast(t), v["double"].try_cast(t))


def _converted(v: Column, type_text: str) -> tuple[Column, Column]:
    """(the VALUE struct converted to ``type_text``, true where MySQL refuses it), Spark's side
    of :func:`cdcwire.values.type_conversion.converted`."""
    kind = target_kind(type_text)
    present = v["int"].isNotNull() | v["uint"].isNotNull() | v["double"].isNotNull() | v["string"].isNotNull()
    nothing = F.lit(None)
    if kind == "text":
        text = F.coalesce(v["string"], v["int"].cast("string"), v["uint"].cast("string"), v["double"].cast("string"))
        limit = text_length(type_text)
        ok = F.lit(True) if limit is None else F.char_length(text) <= F.lit(limit)
        value = F.struct(nothing.cast("bigint").alias("int"), nothing.cast("decimal(20,0)").alias("uint"),
                         nothing.cast("double").alias("double"), text.alias("string"), v["binary"].alias("binary"))
        return value, present & ~ok
    number = _number(v)
    if kind == "float":
        value = number.cast("double")
        struct = F.struct(nothing.cast("bigint").alias("int"), nothing.cast("decimal(20,0)").alias("uint"),
                          value.alias("double"), nothing.cast("string").alias("string"), nothing.cast("binary").alias("binary"))
        return struct, present & number.isNull()
    if kind == "integer":
        low, high = integer_range(type_text)
        whole = F.round(number, 0)
        ok = whole.between(F.lit(low).cast("decimal(20,0)"), F.lit(high).cast("decimal(20,0)"))
        signed = whole <= F.lit((1 << 63) - 1).cast("decimal(20,0)")
        struct = F.struct(F.when(ok & signed, whole.cast("bigint")).alias("int"),
                          F.when(ok & ~signed, whole.cast("decimal(20,0)")).alias("uint"),
                          nothing.cast("double").alias("double"), nothing.cast("string").alias("string"),
                          nothing.cast("binary").alias("binary"))
        return struct, present & ~F.coalesce(ok, F.lit(False))
    precision, scale = decimal_digits(type_text)
    rounded = F.round(number, scale)
    fits = rounded.try_cast(f"decimal({min(precision, 38)},{scale})")
    ok = fits.isNotNull() & F.lit(precision <= 38)
    struct = F.struct(nothing.cast("bigint").alias("int"), nothing.cast("decimal(20,0)").alias("uint"),
                      nothing.cast("double").alias("double"), F.when(ok, fits.cast("string")).alias("string"),
                      nothing.cast("binary").alias("binary"))
    return struct, present & ~ok


def _key_text(image: Column) -> Column:
    keys = F.filter(image, lambda c: c["flags"].bitwiseAND(F.lit(int(ColumnFlag.HANDLE_KEY))) != 0)
    return F.array_join(F.transform(keys, lambda c: F.concat(c["name"], F.lit("="), F.coalesce(
        c["value"]["string"], c["value"]["int"].cast("string"), c["value"]["uint"].cast("string"),
        c["value"]["double"].cast("string"), F.lit("NULL")))), ",")


def retyped_images(events: DataFrame, changes: list[ColumnChange]) -> DataFrame:
    """Row events whose images before each MODIFY hold the modified column converted to its new
    type (value, type and type text), as :func:`retyped_arrow` converts stored rows. A value MySQL
    refuses in a row the table holds at the DDL (each key's last change before it) is a
    :class:`CdcwireError` naming table, column, key and value: one Spark job per MODIFY."""
    from pyspark.sql import Window

    for change in changes:
        if change.verb != "modify" or target_kind(change.type_text) is None:
            continue
        type_name = _spark_type(change.type_text)[1].name
        name = F.lower(F.lit(change.column))
        before = _same_table(change) & (F.col("commit_ts") < F.lit(change.ts)) & F.col("kind").isin(
            "insert", "update", "delete")
        # the check: each key's last change before the DDL, when it leaves a row
        mine = events.where(before)
        key = F.coalesce(_key_text(F.col("columns")), _key_text(F.col("pre_columns")))
        order = Window.partitionBy("schema", "table", "_k").orderBy(F.col("commit_ts").desc(), F.col("_seq").desc())
        column = F.get(F.filter(F.col("columns"), lambda c: F.lower(c["name"]) == name), 0)
        value, refused = _converted(column["value"], change.type_text)
        last = mine.withColumn("_k", key).withColumn("_n", F.row_number().over(order)).where(
            (F.col("_n") == 1) & F.col("columns").isNotNull() & column.isNotNull() & refused)
        found = last.select("_k", F.coalesce(column["value"]["string"], column["value"]["int"].cast("string"),
                                             column["value"]["uint"].cast("string"),
                                             column["value"]["double"].cast("string")).alias("_v")).first()
        if found is not None:
            raise _refused(change.table, change.column, found["_k"], found["_v"], change.type_text)

        def fixed(image: Column, change=change) -> Column:
            def one(c: Column) -> Column:
                value, _ = _converted(c["value"], change.type_text)
                return F.when(F.lower(c["name"]) == name, c.withField("value", value).withField(
                    "type", F.lit(type_name)).withField("mysql_type", F.lit(change.type_text))).otherwise(c)
            return F.transform(image, one)

        events = events.withColumns({
            image: F.when(before & F.col(image).isNotNull(), fixed(F.col(image))).otherwise(F.col(image))
            for image in ("columns", "pre_columns")
        })
    return events
