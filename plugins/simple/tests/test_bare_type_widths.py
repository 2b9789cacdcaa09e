"""What the simple encoder writes of a DECIMAL or BIT whose type text gives no width, its
own decoder reads back: the event model bounds no value by a width it was not given, so the
message carries none (TiDB's default ``decimal(10,0)`` or ``bit(1)`` would refuse the value)."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire.plugin_api import Column, Message, RowChangedEvent
from simple_cases import KEY, F, T

URI = "file:///tmp/simple-widths/t?protocol=simple"


def read_back(event: RowChangedEvent, query: str = "") -> list:
    uri = URI + query
    written = cdcwire.encode(uri, [event])
    return cdcwire.decode(uri, [Message(m.topic, m.partition, m.key, m.value, i) for i, m in enumerate(written)])


def row(column: Column) -> RowChangedEvent:
    return RowChangedEvent(5, "s", "t", (Column("id", T.INT, KEY, 1, "int(11)"), column))


@pytest.mark.parametrize("query", ["", "&encoding-format=avro"], ids=["json", "avro"])
@pytest.mark.parametrize(
    "column",
    [
        Column("c", T.DECIMAL, F.NULLABLE, "-125324.9388", "decimal"),
        Column("c", T.DECIMAL, F.NULLABLE, "-125324.9388", None),
        Column("c", T.BIT, F.NULLABLE, 2620, "bit"),
    ],
    ids=["bare-decimal", "decimal-without-type-text", "bare-bit"],
)
def test_a_value_of_a_column_without_width_reads_back_as_written(column: Column, query: str) -> None:
    (back,) = read_back(row(column), query)
    assert back.columns[1].value == column.value
    assert back.columns[1].mysql_type == (column.mysql_type or "decimal")


def test_a_bootstrap_with_decimal_length_0_reads_rows_that_re_encode_and_read_back() -> None:
    bootstrap = {"version": 1, "type": "BOOTSTRAP", "commitTs": 0, "buildTs": 0, "tableSchema": {
        "schema": "s", "table": "t", "tableID": 0, "version": 5, "indexes": [
            {"name": "primary", "unique": True, "primary": True, "nullable": False, "columns": ["id"]}],
        "columns": [
            {"name": "id", "dataType": {"mysqlType": "int", "charset": "binary", "collate": "binary", "length": 11},
             "nullable": False, "default": None},
            {"name": "c", "dataType": {"mysqlType": "decimal", "charset": "binary", "collate": "binary", "length": 0},
             "nullable": True, "default": None}]}}
    insert = {"version": 1, "database": "s", "table": "t", "type": "INSERT", "commitTs": 5, "buildTs": 0,
              "schemaVersion": 5, "data": {"id": "1", "c": "-125324.9388"}}
    (decoded,) = cdcwire.decode("simple", [
        Message("t", 0, None, json.dumps(m).encode(), i) for i, m in enumerate((bootstrap, insert))
    ])
    (again,) = read_back(decoded)
    assert again == decoded
