"""A DDL whose preTableSchema names another table (a RENAME's old name): the reader keeps that
schema under the old table's name and version, so rows of the old table written afterwards
must still read back with the flags they had (issue 38, item 10: DATETIME and TIME columns
with BINARY|NULLABLE read back NULLABLE after such a DDL, JSON and Avro)."""

from __future__ import annotations

import pytest

from cdcwire.plugin_api import (
    Column,
    ColumnSchema,
    DDLEvent,
    DDLType,
    IndexSchema,
    RowChangedEvent,
    TableSchema,
)
from cdcwire.testing.conformance import round_trip
from simple_cases import KEY, F, T

URIS = {
    "json": "file:///tmp/simple-tests/t?protocol=simple",
    "avro": "file:///tmp/simple-tests/t?protocol=simple&encoding-format=avro",
}
BINARY = ("binary", "binary")
TEXT = ("utf8mb4", "utf8mb4_bin")
PRIMARY = (IndexSchema("primary", ("id",), primary=True, unique=True),)


def table(name: str, version: int, time_charset: tuple[str, str]) -> TableSchema:
    """s.<name> (id INT key, d DATETIME, tm TIME); the time columns BINARY when their charset is binary."""
    flags = F.NULLABLE | (F.BINARY if time_charset == BINARY else F(0))
    return TableSchema("s", name, 0, version, (
        ColumnSchema("id", T.INT, KEY, "int(11)", *BINARY),
        ColumnSchema("d", T.DATETIME, flags, "datetime", *time_charset),
        ColumnSchema("tm", T.TIME, flags, "time", *time_charset),
    ), PRIMARY)


def insert(ts: int, schema: TableSchema) -> RowChangedEvent:
    columns = tuple(
        Column(c.name, c.type, c.flags, value, c.mysql_type)
        for c, value in zip(schema.columns, (ts, "2020-01-02 03:04:05", "01:02:03"))
    )
    return RowChangedEvent(ts, schema.schema, schema.table, columns, table_schema=schema)


def rename(ts: int, before: TableSchema, after: TableSchema) -> DDLEvent:
    sql = f"RENAME TABLE `s`.`{before.table}` TO `s`.`{after.table}`"
    return DDLEvent(ts, "s", after.table, sql, DDLType.RENAME_TABLE, after, before)


@pytest.mark.parametrize("encoding", sorted(URIS))
def test_rows_after_a_ddl_carrying_another_schema_of_their_table_and_version_keep_binary_time_flags(encoding):
    t = table("t", 1, BINARY)
    t_as_the_ddl_says = table("t", 1, TEXT)  # same name and version, the time columns not binary
    events = [insert(5, t), rename(7, t_as_the_ddl_says, table("u", 2, BINARY)), insert(8, t)]
    _, back = round_trip(URIS[encoding], events)
    assert back == events
    assert back[2].columns[1].flags == F.BINARY | F.NULLABLE


@pytest.mark.parametrize("encoding", sorted(URIS))
def test_a_rename_carrying_the_schema_its_rows_were_written_with_sends_no_bootstrap_again(encoding):
    t = table("t", 1, BINARY)
    events = [insert(5, t), rename(7, t, table("u", 2, BINARY)), insert(8, t)]
    messages, back = round_trip(URIS[encoding], events)
    assert back == events
    assert len(messages) == 4  # BOOTSTRAP, INSERT, RENAME, INSERT
