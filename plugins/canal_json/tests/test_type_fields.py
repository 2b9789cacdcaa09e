"""sqlType and mysqlType as the spec's tables give them, with unsigned promotion by value."""

from __future__ import annotations

import pytest

from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent

from canal_cases import KEY, canal_config, encode_one

T, F = ColumnType, ColumnFlag
U, B = F.UNSIGNED, F.BINARY


def _types_of(column: Column, **params: object) -> tuple[int, str]:
    event = RowChangedEvent(1 << 30, "test", "t", (Column("id", T.INT, KEY, 1, "int(11)"), column), None)
    doc = encode_one(canal_config(**params), event)
    return doc["sqlType"][column.name], doc["mysqlType"][column.name]


# (type, flags, value, full type text) -> (sqlType, mysqlType): the spec's "SQL Type" tables.
SPEC_MATRIX = [
    (T.TINYINT, F(0), 1, "tinyint(1)", -6, "tinyint"),  # Boolean
    (T.FLOAT, F(0), 1.5, "float", 7, "float"),
    (T.DOUBLE, F(0), 1.5, "double", 8, "double"),
    (T.DECIMAL, F(0), "123.4560", "decimal(10,4)", 3, "decimal"),
    (T.CHAR, F(0), "abc", "char(16)", 1, "char"),
    (T.VARCHAR, F(0), "abc", "varchar(16)", 12, "varchar"),
    (T.CHAR, B, b"abc", "binary(16)", 2004, "binary"),
    (T.VARCHAR, B, b"abc", "varbinary(16)", 2004, "varbinary"),
    (T.TINYBLOB, F(0), "t", "tinytext", 2005, "tinytext"),
    (T.BLOB, F(0), "t", "text", 2005, "text"),
    (T.MEDIUMBLOB, F(0), "t", "mediumtext", 2005, "mediumtext"),
    (T.LONGBLOB, F(0), "t", "longtext", 2005, "longtext"),
    (T.TINYBLOB, B, b"b", "tinyblob", 2004, "tinyblob"),
    (T.BLOB, B, b"b", "blob", 2004, "blob"),
    (T.MEDIUMBLOB, B, b"b", "mediumblob", 2004, "mediumblob"),
    (T.LONGBLOB, B, b"b", "longblob", 2004, "longblob"),
    (T.DATE, B, "2021-12-16", "date", 91, "date"),
    (T.DATETIME, B, "2021-12-16 12:00:00", "datetime", 93, "datetime"),
    (T.TIMESTAMP, B, "2021-12-16 12:00:00", "timestamp", 93, "timestamp"),
    (T.TIME, B, "12:00:00", "time", 92, "time"),
    (T.YEAR, U, 2021, "year(4)", 12, "year"),
    (T.ENUM, F(0), 1, "enum('a','b','c')", 4, "enum"),
    (T.SET, F(0), 3, "set('a','b','c')", -7, "set"),
    (T.BIT, U, 65, "bit(64)", -7, "bit"),
    (T.JSON, B, '{"a": 1}', "json", 12, "json"),
    (T.TINYINT, F(0), -128, "tinyint(4)", -6, "tinyint"),
    (T.SMALLINT, F(0), -32768, "smallint(6)", 5, "smallint"),
    (T.MEDIUMINT, F(0), -8388608, "mediumint(9)", 4, "mediumint"),
    (T.INT, F(0), -2147483648, "int(11)", 4, "int"),
    (T.BIGINT, F(0), -9223372036854775808, "bigint(20)", -5, "bigint"),
    (T.MEDIUMINT, U, 16777215, "mediumint(8) unsigned", 4, "mediumint unsigned"),
]


@pytest.mark.parametrize("ctype,flags,value,full,sql_type,mysql_type", SPEC_MATRIX)
def test_sql_type_and_mysql_type_follow_the_spec_tables(ctype, flags, value, full, sql_type, mysql_type):
    assert _types_of(Column("c", ctype, flags, value, full)) == (sql_type, mysql_type)


@pytest.mark.parametrize("ctype,flags,value,full,sql_type,mysql_type", SPEC_MATRIX)
def test_content_compatible_writes_the_full_type_text_and_the_same_sql_type(
    ctype, flags, value, full, sql_type, mysql_type
):
    assert _types_of(Column("c", ctype, flags, value, full), content_compatible=True) == (sql_type, full)


# (type, value) -> sqlType: unsigned integers promoted just past the signed maximum, and 0.
PROMOTIONS = [
    (T.TINYINT, 0, -6), (T.TINYINT, 127, -6), (T.TINYINT, 128, 5), (T.TINYINT, 255, 5),
    (T.SMALLINT, 0, 5), (T.SMALLINT, 32767, 5), (T.SMALLINT, 32768, 4), (T.SMALLINT, 65535, 4),
    (T.MEDIUMINT, 0, 4), (T.MEDIUMINT, 8388607, 4), (T.MEDIUMINT, 8388608, 4), (T.MEDIUMINT, 16777215, 4),
    (T.INT, 0, 4), (T.INT, 2147483647, 4), (T.INT, 2147483648, -5), (T.INT, 4294967295, -5),
    (T.BIGINT, 0, -5), (T.BIGINT, 9223372036854775807, -5), (T.BIGINT, 9223372036854775808, 3),
    (T.BIGINT, 18446744073709551615, 3),
]


@pytest.mark.parametrize("ctype,value,sql_type", PROMOTIONS)
def test_unsigned_integers_are_promoted_by_value_at_the_signed_maximum(ctype, value, sql_type):
    got_sql, got_mysql = _types_of(Column("c", ctype, U, value, None))
    assert got_sql == sql_type
    assert got_mysql.endswith(" unsigned")


@pytest.mark.parametrize("ctype,value", [(T.TINYINT, 128), (T.SMALLINT, 32768), (T.INT, 2147483648)])
def test_signed_integers_and_null_values_are_never_promoted(ctype, value):
    signed_sql, _ = _types_of(Column("c", ctype, F(0), -1, None))
    null_sql, _ = _types_of(Column("c", ctype, U, None, None))
    assert null_sql == signed_sql


def test_unsigned_value_text_of_the_bigint_maximum_is_decimal():
    event = RowChangedEvent(1, "test", "t", (Column("c", T.BIGINT, U, 18446744073709551615, None),), None)
    assert encode_one(canal_config(), event)["data"] == [{"c": "18446744073709551615"}]


def test_mysql_type_says_unsigned_but_not_for_bit_and_year():
    assert _types_of(Column("c", T.INT, U, 1, "int(10) unsigned"))[1] == "int unsigned"
    assert _types_of(Column("c", T.BIT, U, 1, "bit(1)"))[1] == "bit"
    assert _types_of(Column("c", T.YEAR, U, 2000, "year(4)"))[1] == "year"


def test_mysql_type_says_zerofill_when_the_full_type_text_does():
    column = Column("c", T.INT, U, 7, "int(10) unsigned zerofill")
    assert _types_of(column)[1] == "int unsigned zerofill"


def test_sql_type_of_an_update_follows_the_new_values():
    new = (Column("id", T.INT, KEY, 1), Column("c", T.TINYINT, U, 200))
    old = (Column("id", T.INT, KEY, 1), Column("c", T.TINYINT, U, 5))
    doc = encode_one(canal_config(), RowChangedEvent(1, "s", "t", new, old))
    assert doc["sqlType"] == {"id": 4, "c": 5}


def test_sql_type_of_a_delete_follows_the_deleted_values():
    old = (Column("id", T.INT, KEY, 1), Column("c", T.INT, U, 4294967295))
    doc = encode_one(canal_config(), RowChangedEvent(1, "s", "t", None, old))
    assert doc["sqlType"] == {"id": 4, "c": -5}
