"""The one plan types every table's rows in one expression (``typed_values``): each value as the
table's own changelog types it, its zero dates counted as ``zero_date_counts`` counts them, and
each row in the bucket the per-table plan gives it."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F

from cdcwire import spark as cs
from cdcwire.spark.runtime.session_settings import session_settings
from cdcwire.spark.tables.table_buckets import bucket_column
from cdcwire.spark.tables.typed_values import TableTyping, Typers, table_info, typed_values
from cdcwire.values.column_kinds import COLUMN_KINDS
from cdcwire.values.type_codes import ColumnFlag

from test_spark_changelog import EVERY_TYPE, KEY, T, _col, _frame, _type_text
from cdcwire.model.events import RowChangedEvent

BUCKETS = 16


def _image(i: int, text: str) -> tuple:
    return (_col("id", T.INT, i, KEY, "int(11)"),) + tuple(
        _col(k.label, k.type, EVERY_TYPE[k.label][0], k.flags, _type_text(k, text)) for k in COLUMN_KINDS)


def _events() -> list:
    rows = [RowChangedEvent(10 + i, "s", f"every_{text}", _image(i, text)) for text in ("full", "none") for i in range(3)]
    dated = [(1, "0000-00-00", "2024-00-10 00:00:00"), (2, "2024-01-02", "2024-01-02 03:04:05"), (3, None, "0000-00-00 00:00:00")]
    rows += [RowChangedEvent(20 + i, "s", "dates", (_col("id", T.BIGINT, i, KEY), _col("d", T.DATE, d, 1, "date"),
                                                    _col("dt", T.DATETIME, when, 1, "datetime")))
             for i, d, when in dated]
    pair = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
    rows += [RowChangedEvent(30 + i, "s", "pairs", (_col("a", T.INT, i, pair), _col("b", T.VARCHAR, f"k{i}", pair),
                                                    _col("v", T.DOUBLE, i / 2)))
             for i in range(20)]
    return rows


@pytest.fixture(scope="module")
def typed(spark, tmp_path_factory):
    df = _frame(spark, tmp_path_factory.mktemp("typed"), _events()).cache()
    names = ["s.every_full", "s.every_none", "s.dates", "s.pairs"]
    columns = {name: cs.table_columns(df, name) for name in names}
    typings = []
    for name in names:
        cols = columns[name]
        keys = tuple(i for i, c in enumerate(cols) if c.flags & ColumnFlag.HANDLE_KEY)
        typings.append(TableTyping("s", name.split(".")[1], tuple(cols), keys, BUCKETS))
    typers = Typers.of(typings, "UTC")
    last = df.where("kind = 'insert'").select("schema", "table", F.lit("U").alias("_op"),
                                              F.col("columns").alias("_image"), "commit_ts")
    # no fallback: an expression that overflows a JVM method fails here instead of running interpreted
    with session_settings(spark, {"spark.sql.codegen.fallback": "false"}):
        rows = typed_values(last, table_info(spark, typings, typers), typers).collect()
    return df, columns, typers, rows


def _values(row, columns, typers) -> dict:
    return {c.name: row[typers.array(c)][i] for i, c in enumerate(columns)}


@pytest.mark.parametrize("name", ["s.every_full", "s.every_none", "s.dates"])
def test_every_value_is_typed_as_its_tables_changelog_types_it(typed, name) -> None:
    df, columns, typers, rows = typed
    want = {r["id"]: {c.name: r[c.name] for c in columns[name]}
            for r in cs.changelog(df, name, columns=columns[name]).collect()}
    got = {}
    for r in rows:
        if f"{r['schema']}.{r['table']}" == name:
            values = _values(r, columns[name], typers)
            got[values["id"]] = values
    assert got == want and len(got) == 3


def test_zero_dates_are_counted_as_zero_date_counts_counts_them(typed) -> None:
    df, columns, _, rows = typed
    got = sum(r["_zeros"] for r in rows if r["table"] == "dates")
    assert got == sum(cs.zero_date_counts(df, "s.dates", columns["s.dates"]).values()) == 3


@pytest.mark.parametrize("name,keys", [("s.every_full", ["id"]), ("s.dates", ["id"]), ("s.pairs", ["a", "b"])])
def test_each_row_is_in_the_bucket_the_per_table_plan_gives_it(typed, name, keys) -> None:
    df, columns, typers, rows = typed
    per_table = cs.changelog(df, name, columns=columns[name])
    want = {tuple(r[k] for k in keys): r["_b"]
            for r in per_table.select(*keys, bucket_column(per_table, keys, BUCKETS).alias("_b")).collect()}
    got = {}
    for r in rows:
        if f"{r['schema']}.{r['table']}" == name:
            values = _values(r, columns[name], typers)
            got[tuple(values[k] for k in keys)] = r["_bucket"]
    assert got == want
    assert len(set(got.values())) > 1 or len(got) < 4  # the rows spread over buckets: the hash is not constant


def test_a_type_used_by_many_tables_is_one_field_of_the_values() -> None:
    from cdcwire.spark.tables.table_types import TableColumn

    tables = [TableTyping("s", f"t{i}", (TableColumn.of("id", "INT", int(KEY)), TableColumn.of("n", "VARCHAR")), (0,), 16)
              for i in range(50)]
    typers = Typers.of(tables, "UTC")
    assert len(typers.types) == 2 and len(typers.sql) == 2


def test_enum_columns_of_many_tables_share_one_typer_their_elements_being_data() -> None:
    from cdcwire.spark.tables.table_types import TableColumn

    tables = [TableTyping("s", f"t{i}", (TableColumn.of("id", "INT", int(KEY)),
                                         TableColumn.of("e", "ENUM", 0, f"enum('a{i}','b{i}')")), (0,), 16)
              for i in range(50)]
    assert len(Typers.of(tables, "UTC").sql) == 2
