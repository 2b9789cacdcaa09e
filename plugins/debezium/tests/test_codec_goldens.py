"""TiCDC's codec_test.go goldens (compared as JSON, as TiCDC's JSONEq compares them): rows of
``create table test.table1(tiny tinyint primary key)``, DDL and the checkpoint watermark."""

from __future__ import annotations

from cdcwire.plugin_api import (
    Column,
    ColumnFlag,
    ColumnSchema,
    ColumnType,
    DDLEvent,
    DDLType,
    IndexSchema,
    ResolvedEvent,
    RowChangedEvent,
    TableSchema,
)
from debezium_cases import encoded, encoder, golden


KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def tiny(value: int) -> tuple[Column, ...]:
    return (Column("tiny", ColumnType.TINYINT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, value, "tinyint(4)"),)


INSERT = RowChangedEvent(1, "test", "table1", tiny(1), None)
UPDATE = RowChangedEvent(1, "test", "table1", tiny(1), tiny(2))
DELETE = RowChangedEvent(1, "test", "table1", None, tiny(2))


def test_insert_without_schema_matches_ticdc() -> None:
    key, value = encoded(encoder(disable_schema=True, output_old_value=False), INSERT)
    assert key == golden("codec_test/TestEncodeInsert_1_key.json")
    assert value == golden("codec_test/TestEncodeInsert_2_value.json")


def test_insert_with_schema_matches_ticdc() -> None:
    key, value = encoded(encoder(output_old_value=False), INSERT)
    assert key == golden("codec_test/TestEncodeInsert_3_key.json")
    assert value == golden("codec_test/TestEncodeInsert_4_value.json")


def test_update_without_schema_carries_before_and_after() -> None:
    key, value = encoded(encoder(disable_schema=True), UPDATE)
    assert key == golden("codec_test/TestEncodeUpdate_1_key.json")
    assert value == golden("codec_test/TestEncodeUpdate_2_value.json")


def test_update_with_schema_matches_ticdc() -> None:
    key, value = encoded(encoder(), UPDATE)
    assert key == golden("codec_test/TestEncodeUpdate_3_key.json")
    assert value == golden("codec_test/TestEncodeUpdate_4_value.json")


def test_update_without_old_value_has_no_before() -> None:
    key, value = encoded(encoder(disable_schema=True, output_old_value=False), UPDATE)
    assert key == golden("codec_test/TestEncodeUpdate_5_key.json")
    assert value == golden("codec_test/TestEncodeUpdate_6_value.json")
    assert "before" not in value["payload"]


def test_delete_without_schema_keys_on_the_old_row() -> None:
    key, value = encoded(encoder(disable_schema=True), DELETE)
    assert key == golden("codec_test/TestEncodeDelete_1_key.json")
    assert value == golden("codec_test/TestEncodeDelete_2_value.json")


def test_delete_with_schema_matches_ticdc() -> None:
    key, value = encoded(encoder(), DELETE)
    assert key == golden("codec_test/TestEncodeDelete_3_key.json")
    assert value == golden("codec_test/TestEncodeDelete_4_value.json")


def test_checkpoint_watermark_matches_ticdc() -> None:
    key, value = encoded(encoder(tidb_extension=True), ResolvedEvent(3))
    assert key == golden("codec_test/TestCheckPointEvent_1_key.json")
    expected = golden("codec_test/TestCheckPointEvent_2_value.json")
    # TiCDC's test writes the watermark without the extension's source schema fields; the
    # codec only sends watermarks with the extension, which declares commit_ts and cluster_id.
    source_fields = value["schema"]["fields"][0]["fields"]
    assert [f["field"] for f in source_fields[-2:]] == ["commit_ts", "cluster_id"]
    del source_fields[-2:]
    assert value == expected


def test_no_watermark_without_the_extension() -> None:
    assert encoder().encode_event(ResolvedEvent(3)) is None


def test_drop_table_matches_ticdc() -> None:
    ddl = DDLEvent(1, "test", "table2", "DROP TABLE test.table2", DDLType.DROP_TABLE)
    key, value = encoded(encoder(disable_schema=True), ddl)
    assert key == golden("codec_test/TestDDLEvent_5_key.json")
    assert value == golden("codec_test/TestDDLEvent_6_value.json")


#: ``create table test.table1(id int(10) primary key)`` as a DDL event carries it.
TABLE1 = TableSchema("test", "table1", 0, 1, (ColumnSchema("id", ColumnType.INT, KEY, "int(10)", "binary", "binary"),),
                     (IndexSchema("PRIMARY", ("id",), primary=True, unique=True),), "utf8mb4")


def without_table(doc: dict) -> dict:
    """A DDL golden with its change's ``table`` (the table's schema) set to null, as cdcwire
    writes it for a DDL event that carries no table schema."""
    for change in doc["payload"]["tableChanges"]:
        change["table"] = None
    return doc


def test_create_table_carrying_its_schema_matches_ticdc() -> None:
    query = "CREATE TABLE test.table1(id int(10) primary key)"
    ddl = DDLEvent(1, "test", "table1", query, DDLType.CREATE_TABLE, TABLE1)
    key, value = encoded(encoder(disable_schema=True), ddl)
    assert key == golden("codec_test/TestDDLEvent_3_key.json")
    assert value == golden("codec_test/TestDDLEvent_4_value.json")


def test_create_table_without_a_schema_matches_ticdc_but_for_the_table_which_is_null() -> None:
    query = "CREATE TABLE test.table1(id int(10) primary key)"
    key, value = encoded(encoder(disable_schema=True), DDLEvent(1, "test", "table1", query, DDLType.CREATE_TABLE))
    assert key == golden("codec_test/TestDDLEvent_3_key.json")
    assert value == without_table(golden("codec_test/TestDDLEvent_4_value.json"))


def test_rename_table_carrying_its_schema_names_old_and_new_and_matches_ticdc() -> None:
    query = "RENAME TABLE test.table1 to test.table2"
    after = TableSchema("test", "table2", 0, 2, TABLE1.columns, TABLE1.indexes, "utf8mb4")
    key, value = encoded(encoder(), DDLEvent(1, "test", "table2", query, DDLType.RENAME_TABLE, after))
    assert key == golden("codec_test/TestDDLEvent_1_key.json")
    assert value == golden("codec_test/TestDDLEvent_2_value.json")
    assert value["payload"]["tableChanges"][0]["id"] == '"test"."table1","test"."table2"'


def test_drop_table_writes_no_table_even_when_the_event_carries_one() -> None:
    ddl = DDLEvent(1, "test", "table2", "DROP TABLE test.table2", DDLType.DROP_TABLE, TABLE1)
    _, value = encoded(encoder(disable_schema=True), ddl)
    assert value == golden("codec_test/TestDDLEvent_6_value.json")


def test_a_ddl_type_ticdc_does_not_list_has_no_message() -> None:
    ddl = DDLEvent(1, "test", "t", "LOCK TABLES t READ", DDLType.LOCK_TABLE)
    assert encoder().encode_event(ddl) is None
