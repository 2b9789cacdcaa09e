"""cs.schema_columns: a typed changelog's columns from the table schema an event carries, exact
where the rows carry no type text."""

from __future__ import annotations

from decimal import Decimal

from pyspark.sql.types import DecimalType, LongType, StringType

import cdcwire
from cdcwire import spark as cs
from cdcwire.model.events import Column, RowChangedEvent
from cdcwire.model.table_schema import ColumnSchema, TableSchema
from cdcwire.values.type_codes import ColumnFlag, ColumnType

T = ColumnType
KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
ORDERS = TableSchema("s", "t", 0, 1, (
    ColumnSchema("id", T.INT, KEY | ColumnFlag.UNSIGNED, "int(10) unsigned"),
    ColumnSchema("price", T.DECIMAL, ColumnFlag.NULLABLE, "decimal(10,2)"),
    ColumnSchema("kind", T.ENUM, ColumnFlag.NULLABLE, "enum('a','b')"),
))


def test_schema_columns_type_each_column_from_the_schemas_type_text_in_its_order() -> None:
    columns = cs.schema_columns(ORDERS)
    assert [(c.name, c.spark_type) for c in columns] == [
        ("id", LongType()), ("price", DecimalType(10, 2)), ("kind", StringType()),
    ]


def test_a_changelog_typed_by_the_schema_is_exact_where_the_rows_carry_no_type_text(spark, tmp_path) -> None:
    row = RowChangedEvent(10, "s", "t", (
        Column("id", T.INT, KEY | ColumnFlag.UNSIGNED, 1),
        Column("price", T.DECIMAL, ColumnFlag.NULLABLE, "12.50"),
        Column("kind", T.ENUM, ColumnFlag.NULLABLE, 2),
    ))
    path = tmp_path / "events.jsonl"
    with open(path, "w", encoding="utf-8") as f:
        cdcwire.write_jsonl([row], f)
    df = cs.read_events(spark, str(path))
    assert cs.changelog(df, "s.t").schema["price"].dataType == StringType()  # rows alone: the safe type
    typed = cs.changelog(df, "s.t", columns=cs.schema_columns(ORDERS))
    [out] = typed.collect()
    assert typed.schema["price"].dataType == DecimalType(10, 2)
    assert (out["id"], out["price"], out["kind"]) == (1, Decimal("12.50"), "b")
