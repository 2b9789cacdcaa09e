"""The table schema events may carry (cdcwire.model.table_schema), as a plugin sees it through plugin_api."""

from __future__ import annotations

import pickle

from cdcwire.dispatch.dispatcher import split_key_change
from cdcwire.plugin_api import (
    Column,
    ColumnFlag,
    ColumnSchema,
    ColumnType,
    DDLEvent,
    DDLType,
    IndexSchema,
    RowChangedEvent,
    TableSchema,
    build_row_event,
    derive_table_schema,
    from_json,
    table_schema_of,
    to_json,
)

F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY

ID = Column("id", T.INT, KEY | F.UNSIGNED, 1, "int(10) unsigned")
NAME = Column("name", T.VARCHAR, F.NULLABLE, "a", "varchar(20)")
DATA = Column("data", T.BLOB, F.BINARY | F.NULLABLE, b"x", "blob")
ROW = RowChangedEvent(5, "shop", "items", (ID, NAME, DATA), table_id=42)

ITEMS = TableSchema(
    "shop", "items", 42, 7,
    (
        ColumnSchema("id", T.INT, KEY | F.UNSIGNED, "int(10) unsigned", "binary", "binary"),
        ColumnSchema("name", T.VARCHAR, F.NULLABLE, "varchar(20)", "utf8mb4", "utf8mb4_general_ci", "none"),
    ),
    (IndexSchema("PRIMARY", ("id",), primary=True, unique=True), IndexSchema("by_name", ("name",))),
    "utf8mb4",
)


def test_a_derived_schema_has_each_columns_type_flags_and_type_text():
    schema = table_schema_of(ROW, version=9)
    assert [(c.name, c.type, c.flags, c.mysql_type) for c in schema.columns] == [
        (c.name, c.type, c.flags, c.mysql_type) for c in ROW.columns
    ]
    assert (schema.schema, schema.table, schema.table_id, schema.version) == ("shop", "items", 42, 9)


def test_a_derived_schema_gives_text_columns_utf8mb4_and_the_others_binary():
    charsets = {c.name: (c.charset, c.collation) for c in table_schema_of(ROW).columns}
    assert charsets == {"id": ("binary", "binary"), "name": ("utf8mb4", "utf8mb4_bin"), "data": ("binary", "binary")}


def test_a_derived_schema_has_the_handle_key_as_its_one_index_named_primary_when_it_is_the_pk():
    assert table_schema_of(ROW).indexes == (IndexSchema("primary", ("id",), primary=True, unique=True),)


def test_a_derived_schema_names_a_handle_key_that_is_not_the_pk_handle_key():
    uk = Column("code", T.VARCHAR, F.HANDLE_KEY | F.UNIQUE_KEY, "x", "varchar(4)")
    schema = derive_table_schema("s", "t", (uk, NAME))
    assert schema.indexes == (IndexSchema("handle_key", ("code",), primary=False, unique=True),)
    assert schema.primary_key == ()


def test_a_derived_schema_of_an_update_keeps_columns_only_its_old_image_has():
    row = RowChangedEvent(5, "s", "t", (ID,), (ID, NAME))
    assert [c.name for c in table_schema_of(row).columns] == ["id", "name"]


def test_the_schema_a_row_carries_is_the_one_given_not_a_derived_one():
    row = build_row_event(5, "shop", "items", (ID, NAME), None, 42, False, ITEMS)
    assert table_schema_of(row) is ITEMS


def test_a_schema_knows_its_primary_key_and_columns_by_name():
    assert ITEMS.primary_key == ("id",)
    assert ITEMS.column("name").default == "none"
    assert ITEMS.column("name").nullable and not ITEMS.column("id").nullable
    assert ITEMS.column("missing") is None


def test_a_row_is_equal_and_hashes_alike_with_or_without_its_schema():
    carrying = RowChangedEvent(5, "shop", "items", ROW.columns, table_id=42, table_schema=ITEMS)
    assert carrying == ROW and hash(carrying) == hash(ROW)


def test_a_rows_repr_leaves_its_schema_out_as_its_equality_does():
    carrying = RowChangedEvent(5, "shop", "items", ROW.columns, table_id=42, table_schema=ITEMS)
    assert repr(carrying) == repr(ROW)


def test_a_ddl_carries_the_schema_after_it_and_the_one_before():
    before = TableSchema("shop", "items", 42, 6, ITEMS.columns[:1], ITEMS.indexes[:1])
    ddl = DDLEvent(7, "shop", "items", "ALTER TABLE items ADD name VARCHAR(20)", DDLType.ADD_COLUMN, ITEMS, before)
    assert (ddl.table_schema, ddl.pre_table_schema) == (ITEMS, before)
    assert ddl == DDLEvent(7, "shop", "items", ddl.query, DDLType.ADD_COLUMN)


def test_events_keep_their_schema_through_pickling_as_they_do_to_spark_workers():
    row = build_row_event(5, "shop", "items", (ID, NAME), None, 42, False, ITEMS)
    ddl = DDLEvent(7, "shop", "items", "CREATE TABLE items (id INT)", DDLType.CREATE_TABLE, ITEMS)
    assert pickle.loads(pickle.dumps(row)).table_schema == ITEMS
    assert pickle.loads(pickle.dumps(ddl)).table_schema == ITEMS


def test_a_schema_is_hashable_so_codecs_can_cache_work_per_schema():
    assert {ITEMS: 1}[pickle.loads(pickle.dumps(ITEMS))] == 1


def test_event_json_round_trips_a_row_that_carries_a_schema_to_an_equal_row_without_it():
    row = build_row_event(5, "shop", "items", (ID, NAME), None, 42, False, ITEMS)
    back = from_json(to_json(row))
    assert back == row and back.table_schema is None


def test_an_update_split_at_a_key_change_keeps_the_schema_on_both_halves():
    moved = Column("id", T.INT, KEY | F.UNSIGNED, 2, "int(10) unsigned")
    update = RowChangedEvent(5, "shop", "items", (moved, NAME), (ID, NAME), table_schema=ITEMS)
    delete, insert = split_key_change(update)
    assert delete.table_schema is ITEMS and insert.table_schema is ITEMS
