"""The 50 columns of TiCDC's ``datatype.ddl.sql``/``datatype.dml.sql`` against what real Debezium
wrote for them (``datatype.dbz.json``, ``datatype.dbz.key.json``), compared as TiCDC's
``TestDataTypes`` compares them: as JSON, ignoring ``payload.source`` and ``payload.ts_ms``.

The row is the one TiDB gives TiCDC for the INSERT (sql_mode '', time_zone UTC): values
rounded to each column's fsp, the invalid ENUM and SET stored as 0, BINARY(100) zero-padded.
"""

from __future__ import annotations

from typing import Any

import pytest

from cdcwire.plugin_api import Column, ColumnFlag, ColumnType, RowChangedEvent
from debezium_cases import encoded, encoder, golden

T, N = ColumnType, ColumnFlag.NULLABLE
U, B = ColumnFlag.UNSIGNED, ColumnFlag.BINARY


def col(name: str, ctype: ColumnType, mysql_type: str, value: Any, flags: ColumnFlag = ColumnFlag(0)) -> Column:
    return Column(name, ctype, flags | N, value, mysql_type)


TS = "2023-11-30 12:34:56"
FOO_ROW = (
    Column("pk", T.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)"),
    col("col_d_2023", T.DATE, "date", "2023-11-30"),
    col("col_d_1000", T.DATE, "date", "1000-01-01"),
    col("col_d_9999", T.DATE, "date", "9999-12-31"),
    col("col_d_0000", T.DATE, "date", "0000-00-00"),
    col("col_dt", T.DATETIME, "datetime", TS),
    col("col_dt_fsp_0", T.DATETIME, "datetime(0)", TS),
    col("col_dt_fsp_1", T.DATETIME, "datetime(1)", TS + ".1"),
    col("col_dt_fsp_4", T.DATETIME, "datetime(4)", TS + ".1235"),
    col("col_dt_fsp_6", T.DATETIME, "datetime(6)", TS + ".123456"),
    col("col_dt_0000", T.DATETIME, "datetime(6)", "0000-00-00 00:00:00.000000"),
    col("col_t", T.TIME, "time", "12:34:56"),
    col("col_t_fsp_0", T.TIME, "time(0)", "12:34:56"),
    col("col_t_fsp_1", T.TIME, "time(1)", "12:34:56.1"),
    col("col_t_fsp_4", T.TIME, "time(4)", "12:34:56.1235"),
    col("col_t_fsp_6", T.TIME, "time(6)", "12:34:56.123456"),
    col("col_t_neg", T.TIME, "time(6)", "-12:34:56.123456"),
    col("col_ts", T.TIMESTAMP, "timestamp", TS),
    col("col_ts_fsp_0", T.TIMESTAMP, "timestamp(0)", TS),
    col("col_ts_fsp_1", T.TIMESTAMP, "timestamp(1)", TS + ".1"),
    col("col_ts_fsp_5", T.TIMESTAMP, "timestamp(5)", TS + ".12346"),
    col("col_ts_fsp_6", T.TIMESTAMP, "timestamp(6)", TS + ".123456"),
    col("col_y", T.YEAR, "year(4)", 2023, U),
    col("col_bit_1", T.BIT, "bit(1)", 1, U),
    col("col_bit_5", T.BIT, "bit(5)", 16, U),
    col("col_bit_6", T.BIT, "bit(6)", 16, U),
    col("col_bit_60", T.BIT, "bit(60)", 16, U),
    col("col_varchar", T.VARCHAR, "varchar(100)", "foo"),
    col("col_char", T.CHAR, "char(100)", "foo"),
    col("col_varbinary", T.VARCHAR, "varbinary(100)", b"foo", B),
    col("col_binary", T.CHAR, "binary(100)", b"foo" + bytes(97), B),
    col("col_blob", T.BLOB, "blob", b"foo", B),
    col("col_decimal", T.DECIMAL, "decimal(10,5)", "12345.12345"),
    col("col_numeric", T.DECIMAL, "decimal(10,5)", "12345.12345"),
    col("col_float", T.FLOAT, "float", 12345.123046875),
    col("col_double", T.DOUBLE, "double", 12345.12345),
    col("col_int", T.INT, "int(11)", -2147483648),
    col("col_int_unsigned", T.INT, "int(10) unsigned", 4294967295, U),
    col("col_tinyint", T.TINYINT, "tinyint(4)", -128),
    col("col_tinyint_unsigned", T.TINYINT, "tinyint(3) unsigned", 255, U),
    col("col_smallint", T.SMALLINT, "smallint(6)", -32768),
    col("col_smallint_unsigned", T.SMALLINT, "smallint(5) unsigned", 65535, U),
    col("col_mediumint", T.MEDIUMINT, "mediumint(9)", -8388608),
    col("col_mediumint_unsigned", T.MEDIUMINT, "mediumint(8) unsigned", 16777215, U),
    col("col_bigint", T.BIGINT, "bigint(20)", -9223372036854775808),
    col("col_bigint_unsigned", T.BIGINT, "bigint(20) unsigned", 18446744073709551615, U),
    col("col_enum", T.ENUM, "enum('a','b','c')", 1),
    col("col_enum_invalid", T.ENUM, "enum('a','b','c')", 0),
    col("col_set", T.SET, "set('a','b','c')", 3),
    col("col_set_invalid", T.SET, "set('a','b','c')", 0),
    col("col_json", T.JSON, "json", '["foo"]', B),
)
INSERT = RowChangedEvent(1, "test", "foo", FOO_ROW, None)


def without_source_and_ts(doc: dict) -> dict:
    doc["payload"].pop("source")
    doc["payload"].pop("ts_ms")
    return doc


@pytest.mark.parametrize("disable_schema", [False, True], ids=["with-schema", "without-schema"])
def test_fifty_columns_encode_as_real_debezium_wrote_them(disable_schema: bool) -> None:
    key, value = encoded(encoder(cluster_id="dbserver1", disable_schema=disable_schema), INSERT)
    expected_key, expected_value = golden("datatype.dbz.key.json"), golden("datatype.dbz.json")
    if disable_schema:
        expected_key.pop("schema")
        expected_value.pop("schema")
    assert key == expected_key
    assert without_source_and_ts(value) == without_source_and_ts(expected_value)
