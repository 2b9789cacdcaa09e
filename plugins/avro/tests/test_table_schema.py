"""The event model's table schema from avro: what a row's registered record schema says of its
table, carried by the rows read back."""

from __future__ import annotations

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent

F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def fruit(key: int) -> RowChangedEvent:
    return RowChangedEvent(449_000_000_000_000_000 + key, "shop", "fruit", (
        Column("id", T.INT, KEY, key, "int(11)"), Column("price", T.DECIMAL, F.NULLABLE, "1.50", "decimal(8,2)"),
    ))


def test_rows_read_back_carrying_the_schema_their_record_schema_says_one_object_per_schema(avro_uri) -> None:
    first, second = cdcwire.decode(avro_uri, cdcwire.encode(avro_uri, [fruit(1), fruit(2)]))
    schema = first.table_schema
    assert [(c.name, c.type, c.mysql_type, c.is_handle_key) for c in schema.columns] == [
        ("id", T.INT, "int", True), ("price", T.DECIMAL, "decimal(8,2)", False),
    ]
    assert second.table_schema is schema
