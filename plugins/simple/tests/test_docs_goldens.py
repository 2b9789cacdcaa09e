"""The examples of TiCDC's simple protocol page (docs ``ticdc-simple-protocol.md``), byte for
byte: the table ``simple.user`` (id int primary key, name varchar(255), age int, score float),
its table id 148 and version 447984074911121426, buildTs from a stopped clock."""

from __future__ import annotations

import json

from cdcwire.plugin_api import DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from simple_cases import Clock, encoder, user_columns

from cdcwire_simple.table_schema import table_schema_of

VERSION = 447984074911121426


def user_encoder(build_ts: int):
    enc = encoder(clock=Clock(build_ts))
    enc.know(table_schema_of("simple", "user", 148, VERSION, user_columns(1, "", 0, 0.0)))
    return enc


def only_message(enc, event) -> bytes:
    payloads = list(enc.encode_event(event))
    return payloads[-1].value


def test_insert_is_the_docs_example_byte_for_byte() -> None:
    row = RowChangedEvent(447984084414103554, "simple", "user", user_columns(1, "John Doe", 25, 90.5), None, 148)
    assert only_message(user_encoder(1708923662983), row) == (
        b'{"version":1,"database":"simple","table":"user","tableID":148,"type":"INSERT",'
        b'"commitTs":447984084414103554,"buildTs":1708923662983,"schemaVersion":447984074911121426,'
        b'"data":{"age":"25","id":"1","name":"John Doe","score":"90.5"}}'
    )


def test_update_is_the_docs_example_byte_for_byte() -> None:
    row = RowChangedEvent(
        447984099186180098, "simple", "user",
        user_columns(1, "John Doe", 25, 95.0), user_columns(1, "John Doe", 25, 90.5), 148,
    )
    assert only_message(user_encoder(1708923719184), row) == (
        b'{"version":1,"database":"simple","table":"user","tableID":148,"type":"UPDATE",'
        b'"commitTs":447984099186180098,"buildTs":1708923719184,"schemaVersion":447984074911121426,'
        b'"data":{"age":"25","id":"1","name":"John Doe","score":"95"},'
        b'"old":{"age":"25","id":"1","name":"John Doe","score":"90.5"}}'
    )


def test_watermark_is_the_docs_example_byte_for_byte() -> None:
    enc = encoder(clock=Clock(1708923816911))
    assert only_message(enc, ResolvedEvent(447984124732375041)) == (
        b'{"version":1,"type":"WATERMARK","commitTs":447984124732375041,"buildTs":1708923816911}'
    )


def test_bootstrap_holds_the_docs_column_schemas() -> None:
    """The docs elide part of it: its id, name and score columns and its primary index, exactly."""
    enc = encoder(clock=Clock(1708924603278))
    row = RowChangedEvent(VERSION, "simple", "new_user", user_columns(1, "a", 2, 3.0), None, 148)
    bootstrap, _ = enc.encode_event(row)
    message = json.loads(bootstrap.value)
    assert bootstrap.events == 0
    assert {k: message[k] for k in ("version", "type", "commitTs", "buildTs")} == {
        "version": 1, "type": "BOOTSTRAP", "commitTs": 0, "buildTs": 1708924603278,
    }
    schema = message["tableSchema"]
    assert {k: schema[k] for k in ("schema", "table", "tableID", "version")} == {
        "schema": "simple", "table": "new_user", "tableID": 148, "version": VERSION,
    }
    columns = {c["name"]: c for c in schema["columns"]}
    assert columns["id"] == {"name": "id", "dataType": {"mysqlType": "int", "charset": "binary",
                             "collate": "binary", "length": 11}, "nullable": False, "default": None}
    assert columns["name"] == {"name": "name", "dataType": {"mysqlType": "varchar", "charset": "utf8mb4",
                               "collate": "utf8mb4_bin", "length": 255}, "nullable": True, "default": None}
    assert columns["score"]["dataType"] == {"mysqlType": "float", "charset": "binary", "collate": "binary",
                                            "length": 12}
    assert schema["indexes"] == [{"name": "primary", "unique": True, "primary": True, "nullable": False,
                                  "columns": ["id"]}]


def test_alter_carries_the_schema_before_and_after_with_the_ddl_commit_ts_as_version() -> None:
    enc = user_encoder(1708936343598)
    ddl = DDLEvent(447987408682614795, "simple", "user", "ALTER TABLE `user` ADD COLUMN `createTime` TIMESTAMP",
                   DDLType.ADD_COLUMN)
    message = json.loads(only_message(enc, ddl))
    assert list(message) == ["version", "type", "sql", "commitTs", "buildTs", "tableSchema", "preTableSchema"]
    assert message["type"] == "ALTER" and message["sql"] == ddl.query
    assert message["tableSchema"]["version"] == 447987408682614795
    assert message["preTableSchema"]["version"] == VERSION
