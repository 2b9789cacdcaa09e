"""The messages themselves: field order, images, values, DDL, watermarks and partitions."""

from __future__ import annotations

import json

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.sinks.sink import open_sink

from canal_cases import COMMIT_TS, KEY, canal_config, encode_one, tp_int_insert, tp_int_row

ROW_FIELDS = ["id", "database", "table", "pkNames", "isDdl", "type", "es", "ts", "sql",
              "sqlType", "mysqlType", "old", "data"]
SPEC_TP_INT_DATA = {
    "id": "2", "c_tinyint": "127", "c_smallint": "32767", "c_mediumint": "8388607",
    "c_int": "2147483647", "c_bigint": "9223372036854775807",
}


def test_row_message_fields_come_in_the_reference_order():
    assert list(encode_one(canal_config(), tp_int_insert())) == ROW_FIELDS


def test_extension_adds_tidb_last_with_the_commit_ts():
    doc = encode_one(canal_config(enable_tidb_extension=True), tp_int_insert())
    assert list(doc) == ROW_FIELDS + ["_tidb"]
    assert doc["_tidb"] == {"commitTs": COMMIT_TS}


def test_insert_of_the_spec_example_matches_its_message():
    doc = encode_one(canal_config(), tp_int_insert())
    assert doc["id"] == 0 and doc["isDdl"] is False and doc["sql"] == ""
    assert (doc["database"], doc["table"], doc["pkNames"], doc["type"]) == ("test", "tp_int", ["id"], "INSERT")
    assert doc["sqlType"] == {"id": 4, "c_tinyint": -6, "c_smallint": 5, "c_mediumint": 4, "c_int": 4, "c_bigint": -5}
    assert doc["mysqlType"] == {"id": "int", "c_tinyint": "tinyint", "c_smallint": "smallint",
                                "c_mediumint": "mediumint", "c_int": "int", "c_bigint": "bigint"}
    assert doc["data"] == [SPEC_TP_INT_DATA]
    assert doc["old"] is None  # GA: null, not [null]


def test_es_is_the_physical_part_of_the_commit_ts_and_ts_is_now_in_milliseconds():
    config = canal_config()
    encoder = open_sink(config).codec.encoder(config, "t", 0)
    encoder._clock = lambda: 1639633142960  # the spec example's build time
    doc = json.loads(encoder.encode_event(tp_int_insert()))
    assert doc["es"] == COMMIT_TS >> 18 == 1640007049196
    assert doc["ts"] == 1639633142960


def test_update_of_the_spec_example_has_the_whole_old_row():
    event = RowChangedEvent(COMMIT_TS, "test", "tp_int", tp_int_row(c_tinyint=0, c_int=0), tp_int_row())
    doc = encode_one(canal_config(), event)
    assert doc["type"] == "UPDATE"
    assert doc["old"] == [SPEC_TP_INT_DATA]
    assert doc["data"] == [dict(SPEC_TP_INT_DATA, c_tinyint="0", c_int="0")]


def test_only_output_updated_columns_keeps_only_changed_columns_in_old():
    event = RowChangedEvent(COMMIT_TS, "test", "tp_int", tp_int_row(c_tinyint=0, c_int=0), tp_int_row())
    doc = encode_one(canal_config(only_output_updated_columns=True), event)
    assert doc["old"] == [{"c_tinyint": "127", "c_int": "2147483647"}]
    assert doc["data"] == [dict(SPEC_TP_INT_DATA, c_tinyint="0", c_int="0")]


def test_content_compatible_implies_only_output_updated_columns():
    event = RowChangedEvent(COMMIT_TS, "test", "tp_int", tp_int_row(c_tinyint=0), tp_int_row())
    doc = encode_one(canal_config(content_compatible=True), event)
    assert doc["old"] == [{"c_tinyint": "127"}]
    assert doc["mysqlType"]["c_bigint"] == "bigint(20)"


def test_delete_carries_the_deleted_row_in_data_and_old_is_null():
    doc = encode_one(canal_config(), RowChangedEvent(COMMIT_TS, "test", "tp_int", None, tp_int_row()))
    assert doc["type"] == "DELETE"
    assert doc["data"] == [SPEC_TP_INT_DATA]
    assert doc["old"] is None


def test_delete_only_output_handle_key_columns_keeps_the_key_in_data():
    config = canal_config(delete_only_output_handle_key_columns=True)
    doc = encode_one(config, RowChangedEvent(COMMIT_TS, "test", "tp_int", None, tp_int_row()))
    assert doc["data"] == [{"id": "2"}]
    assert doc["sqlType"] == {"id": 4} and doc["mysqlType"] == {"id": "int"}


def test_unsigned_columns_say_unsigned_in_mysql_type():
    u = ColumnFlag.UNSIGNED
    row = (Column("id", ColumnType.INT, KEY, 1),
           Column("c_unsigned_tinyint", ColumnType.TINYINT, u, 255),
           Column("c_unsigned_bigint", ColumnType.BIGINT, u, 18446744073709551615))
    doc = encode_one(canal_config(), RowChangedEvent(1, "test", "tp_unsigned_int", row, None))
    assert doc["mysqlType"] == {"id": "int", "c_unsigned_tinyint": "tinyint unsigned",
                                "c_unsigned_bigint": "bigint unsigned"}
    assert doc["data"] == [{"id": "1", "c_unsigned_tinyint": "255", "c_unsigned_bigint": "18446744073709551615"}]


def test_table_without_primary_key_has_null_pk_names():
    row = (Column("a", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.UNIQUE_KEY, 1),)
    assert encode_one(canal_config(), RowChangedEvent(1, "s", "t", row, None))["pkNames"] is None


def test_values_are_strings_or_null_in_reference_text():
    T = ColumnType
    row = (
        Column("f", T.FLOAT, ColumnFlag(0), 0.10000000149011612),
        Column("d", T.DOUBLE, ColumnFlag(0), 1e21),
        Column("tiny", T.DOUBLE, ColumnFlag(0), 1.5e-7),
        Column("whole", T.DOUBLE, ColumnFlag(0), 2.0),
        Column("dec", T.DECIMAL, ColumnFlag(0), "-0.0100"),
        Column("e", T.ENUM, ColumnFlag(0), 2),
        Column("s", T.SET, ColumnFlag(0), 5),
        Column("bit", T.BIT, ColumnFlag.UNSIGNED, 18446744073709551615),
        Column("j", T.JSON, ColumnFlag.BINARY, '{"a": [1, "x"]}'),
        Column("n", T.VARCHAR, ColumnFlag.NULLABLE, None),
    )
    doc = encode_one(canal_config(), RowChangedEvent(1, "s", "t", row, None))
    assert doc["data"] == [{
        "f": "0.1", "d": "1000000000000000000000", "tiny": "0.00000015", "whole": "2", "dec": "-0.0100",
        "e": "2", "s": "5", "bit": "18446744073709551615", "j": '{"a": [1, "x"]}', "n": None,
    }]


def test_binary_bytes_become_code_points_of_the_same_number_before_json_escaping():
    row = (Column("b", ColumnType.VARCHAR, ColumnFlag.BINARY, b"\x89PNG\r\n\x00\xff"),)
    config = canal_config()
    value = next(open_sink(config).codec.encoder(config, "t", 0).encode([RowChangedEvent(1, "s", "t", row, None)])).value
    assert b'"data":[{"b":"\xc2\x89PNG\\r\\n\\u0000\xc3\xbf"}]' in value
    assert json.loads(value)["data"] == [{"b": "\x89PNG\r\n\x00\xff"}]


def test_all_256_byte_values_survive_the_round_trip():
    every_byte = bytes(range(256))
    row = (Column("id", ColumnType.INT, KEY, 1), Column("b", ColumnType.LONGBLOB, ColumnFlag.BINARY, every_byte))
    event = RowChangedEvent(5 << 18, "s", "t", row, None)
    messages = cdcwire.encode("file:///tmp/unused/t?protocol=canal-json", [event])
    (back,) = cdcwire.decode("canal-json", messages)
    assert back.columns[1].value == every_byte
    assert back == event  # every flag and value of this row is one canal-json carries


def test_ddl_message_has_the_query_and_the_canal_type_word():
    config = canal_config(enable_tidb_extension=True)
    event = DDLEvent(COMMIT_TS, "test", "", "drop database if exists test", DDLType.DROP_SCHEMA)
    doc = encode_one(config, event)
    assert list(doc) == ["id", "database", "table", "pkNames", "isDdl", "type", "es", "ts", "sql",
                         "sqlType", "mysqlType", "data", "old", "_tidb"]
    assert doc["isDdl"] is True and doc["type"] == "QUERY" and doc["sql"] == "drop database if exists test"
    assert (doc["pkNames"], doc["sqlType"], doc["mysqlType"], doc["data"], doc["old"]) == (None,) * 5
    assert doc["_tidb"] == {"commitTs": COMMIT_TS}


def test_ddl_types_map_to_the_reference_words():
    config = canal_config()
    expected = {
        DDLType.CREATE_TABLE: "CREATE", DDLType.RENAME_TABLE: "RENAME", DDLType.ADD_INDEX: "CINDEX",
        DDLType.ADD_FOREIGN_KEY: "CINDEX", DDLType.ADD_PRIMARY_KEY: "CINDEX", DDLType.DROP_INDEX: "DINDEX",
        DDLType.DROP_PRIMARY_KEY: "DINDEX", DDLType.ADD_COLUMN: "ALTER", DDLType.MODIFY_COLUMN: "ALTER",
        DDLType.REBASE_AUTO_ID: "ALTER", DDLType.TRUNCATE_TABLE_PARTITION: "ALTER", DDLType.DROP_TABLE: "ERASE",
        DDLType.TRUNCATE_TABLE: "TRUNCATE", DDLType.CREATE_SCHEMA: "QUERY", DDLType.CREATE_VIEW: "QUERY",
        DDLType.LOCK_TABLE: "QUERY", DDLType.SHARD_ROW_ID: "QUERY", DDLType.CREATE_SEQUENCE: "QUERY",
        DDLType.RENAME_TABLES: "RENAME", DDLType.REORGANIZE_PARTITION: "ALTER",
        DDLType.ALTER_INDEX_VISIBILITY: "ALTER", DDLType.MULTI_SCHEMA_CHANGE: "ALTER",
        DDLType.CREATE_RESOURCE_GROUP: "QUERY",
    }
    for ddl_type, word in expected.items():
        assert encode_one(config, DDLEvent(1, "s", "t", "q", ddl_type))["type"] == word, ddl_type


def test_watermark_message_has_the_resolved_ts_and_nothing_else():
    doc = encode_one(canal_config(enable_tidb_extension=True), ResolvedEvent(COMMIT_TS))
    assert {k: v for k, v in doc.items() if k != "ts"} == {
        "id": 0, "database": "", "table": "", "pkNames": None, "isDdl": False, "type": "TIDB_WATERMARK",
        "es": 0, "sql": "", "sqlType": None, "mysqlType": None, "data": None, "old": None,
        "_tidb": {"watermarkTs": COMMIT_TS},
    }


def test_without_the_extension_resolved_events_make_no_message():
    config = canal_config()
    assert list(open_sink(config).codec.encoder(config, "t", 0).encode([ResolvedEvent(5)])) == []


def test_ddl_lands_only_in_partition_0_and_watermarks_in_every_partition():
    uri = "file:///tmp/unused/t?protocol=canal-json&partition-num=3&enable-tidb-extension=true"
    events = [DDLEvent(1 << 18, "test", "tp_int", "create table tp_int (id int)", DDLType.CREATE_TABLE),
              tp_int_insert(), ResolvedEvent(COMMIT_TS + 1)]
    messages = cdcwire.encode(uri, events)
    ddl = [m.partition for m in messages if json.loads(m.value)["isDdl"]]
    watermarks = [m.partition for m in messages if json.loads(m.value)["type"] == "TIDB_WATERMARK"]
    assert ddl == [0]
    assert sorted(watermarks) == [0, 1, 2]
    assert all(m.key is None for m in messages)


def test_without_the_extension_resolved_events_reach_no_partition():
    uri = "file:///tmp/unused/t?protocol=canal-json&partition-num=3"
    messages = cdcwire.encode(uri, [tp_int_insert(), ResolvedEvent(COMMIT_TS + 1)])
    assert [json.loads(m.value)["type"] for m in messages] == ["INSERT"]


def test_renaming_several_tables_and_reorganizing_partitions_read_back_as_themselves():
    from cdcwire_canal_json.ddl_kinds import ddl_type_from

    assert ddl_type_from("RENAME", "RENAME TABLE a.t1 TO a.t2, a.t3 TO a.t4") == DDLType.RENAME_TABLES
    assert ddl_type_from("RENAME", "RENAME TABLE a.t1 TO a.t2") == DDLType.RENAME_TABLE
    assert ddl_type_from("ALTER", "ALTER TABLE t REORGANIZE PARTITION p0 INTO (PARTITION a VALUES LESS THAN (5))") \
        == DDLType.REORGANIZE_PARTITION
    assert ddl_type_from("ALTER", "ALTER TABLE t ALTER INDEX i INVISIBLE") == DDLType.ALTER_INDEX_VISIBILITY
