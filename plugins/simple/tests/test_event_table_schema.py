"""The event model's table schema (cdcwire.plugin_api.TableSchema) through simple: read from
``tableSchema``/``preTableSchema`` onto DDL and row events, written from them."""

from __future__ import annotations

import json

from cdcwire.plugin_api import (
    ColumnSchema,
    DDLEvent,
    DDLType,
    IndexSchema,
    Message,
    RowChangedEvent,
    TableSchema,
)
from simple_cases import KEY, Clock, F, T, decoder, encoder, user_columns

CREATE_SQL = "CREATE TABLE `user` (`id` INT PRIMARY KEY, `name` VARCHAR(255) DEFAULT 'anon')"
USER_SCHEMA = {
    "schema": "simple", "table": "user", "tableID": 148, "version": 10,
    "columns": [
        {"name": "id", "dataType": {"mysqlType": "int", "charset": "binary", "collate": "binary", "length": 11},
         "nullable": False, "default": None},
        {"name": "name", "dataType": {"mysqlType": "varchar", "charset": "utf8mb4",
                                      "collate": "utf8mb4_general_ci", "length": 255},
         "nullable": True, "default": "anon"},
    ],
    "indexes": [{"name": "primary", "unique": True, "primary": True, "nullable": False, "columns": ["id"]}],
}
CREATE = {"version": 1, "type": "CREATE", "sql": CREATE_SQL, "commitTs": 10, "buildTs": 1, "tableSchema": USER_SCHEMA}
INSERT = {"version": 1, "database": "simple", "table": "user", "tableID": 148, "type": "INSERT", "commitTs": 11,
          "buildTs": 2, "schemaVersion": 10, "data": {"id": "1", "name": "a"}}

USER = TableSchema(
    "simple", "user", 148, 10,
    (
        ColumnSchema("id", T.INT, KEY, "int(11)", "binary", "binary"),
        ColumnSchema("name", T.VARCHAR, F.NULLABLE, "varchar(255)", "utf8mb4", "utf8mb4_general_ci", "anon"),
    ),
    (IndexSchema("primary", ("id",), primary=True, unique=True),),
)


def message(obj: dict) -> Message:
    return Message("t", 0, None, json.dumps(obj).encode(), 0)


def test_a_ddl_reads_back_carrying_its_tables_schema_with_types_charsets_defaults_and_indexes() -> None:
    (ddl,) = decoder().decode(message(CREATE))
    assert ddl.table_schema == USER


def test_a_ddl_reads_back_carrying_the_schema_before_it_from_pre_table_schema() -> None:
    after = {**USER_SCHEMA, "version": 12, "columns": USER_SCHEMA["columns"][:1]}
    alter = {"version": 1, "type": "ALTER", "sql": "ALTER TABLE `user` DROP COLUMN `name`", "commitTs": 12,
             "buildTs": 3, "tableSchema": after, "preTableSchema": USER_SCHEMA}
    (ddl,) = decoder().decode(message(alter))
    assert ddl.pre_table_schema == USER
    assert [c.name for c in ddl.table_schema.columns] == ["id"] and ddl.table_schema.version == 12


def test_rows_read_back_referring_to_the_one_schema_of_their_version() -> None:
    dec = decoder()
    dec.decode(message(CREATE))
    (first,) = dec.decode(message(INSERT))
    (second,) = dec.decode(message({**INSERT, "commitTs": 12}))
    assert first.table_schema == USER and second.table_schema is first.table_schema


def test_a_create_carrying_its_schema_is_written_with_its_columns() -> None:
    ddl = DDLEvent(10, "simple", "user", CREATE_SQL, DDLType.CREATE_TABLE, USER)
    (payload,) = encoder(clock=Clock(1)).encode_event(ddl)
    assert json.loads(payload.value)["tableSchema"] == USER_SCHEMA


def test_a_create_without_a_schema_is_still_written_without_columns() -> None:
    ddl = DDLEvent(10, "simple", "user", CREATE_SQL, DDLType.CREATE_TABLE)
    (payload,) = encoder(clock=Clock(1)).encode_event(ddl)
    assert json.loads(payload.value)["tableSchema"]["columns"] == []


def test_a_ddl_carrying_the_schema_before_it_writes_it_as_pre_table_schema() -> None:
    after = TableSchema("simple", "user", 148, 12, USER.columns[:1], USER.indexes)
    ddl = DDLEvent(12, "simple", "user", "ALTER TABLE `user` DROP COLUMN `name`", DDLType.DROP_COLUMN, after, USER)
    (payload,) = encoder(clock=Clock(1)).encode_event(ddl)
    assert json.loads(payload.value)["preTableSchema"] == USER_SCHEMA


def test_rows_carrying_a_schema_are_written_with_its_version_after_a_bootstrap_of_it() -> None:
    columns = user_columns(1, "a", 2, 3.0)[:2]
    row = RowChangedEvent(11, "simple", "user", columns, None, 148, table_schema=USER)
    bootstrap, insert = encoder(clock=Clock(1)).encode_event(row)
    assert json.loads(bootstrap.value)["tableSchema"] == USER_SCHEMA
    assert json.loads(insert.value)["schemaVersion"] == 10


def test_a_stream_read_and_written_again_keeps_its_schema_and_needs_no_bootstrap_after_the_ddl() -> None:
    dec, enc = decoder(), encoder(clock=Clock(1))
    events = dec.decode(message(CREATE)) + dec.decode(message(INSERT))
    ddl_out, row_out = (json.loads(p.value) for e in events for p in enc.encode_event(e))
    assert ddl_out["tableSchema"] == USER_SCHEMA
    assert row_out["schemaVersion"] == 10


def test_a_ddl_written_and_read_in_the_avro_format_keeps_its_schema() -> None:
    ddl = DDLEvent(10, "simple", "user", CREATE_SQL, DDLType.CREATE_TABLE, USER)
    (payload,) = encoder("encoding-format=avro", clock=Clock(1)).encode_event(ddl)
    (back,) = decoder("encoding-format=avro").decode(Message("t", 0, None, payload.value, 0))
    assert back.table_schema == USER
