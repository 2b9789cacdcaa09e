"""What the debezium encoder refuses, each with a one-line error naming the table and column."""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire.plugin_api import Column, ColumnFlag, ColumnType, EncodeError, MessageTooLargeError, RowChangedEvent
from debezium_cases import encoder

KEY = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")


def row(*columns: Column) -> RowChangedEvent:
    return RowChangedEvent(1, "db", "t", (KEY, *columns), None)


def test_an_enum_without_its_elements_is_refused_naming_the_column() -> None:
    with pytest.raises(EncodeError) as caught:
        encoder().encode_event(row(Column("e", ColumnType.ENUM, ColumnFlag.NULLABLE, 1)))
    text = str(caught.value)
    assert "db.t column 'e'" in text and "mysql_type" in text and "\n" not in text


def test_a_double_that_is_not_a_number_is_refused() -> None:
    with pytest.raises(EncodeError, match="column 'd': DOUBLE nan has no JSON number"):
        encoder().encode_event(row(Column("d", ColumnType.DOUBLE, ColumnFlag.NULLABLE, float("nan"))))


def test_a_message_over_max_message_bytes_is_refused() -> None:
    big = row(Column("s", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "x" * 2000, "varchar(4000)"))
    with pytest.raises(MessageTooLargeError, match="> max-message-bytes 1000"):
        cdcwire.encode("file:///tmp/dbz/t?protocol=debezium&max-message-bytes=1000&partition-num=1", [big])


def test_a_bit_without_its_width_is_written_64_bits_wide() -> None:
    key, value = encoder(disable_schema=True).encode_event(row(Column("b", ColumnType.BIT, ColumnFlag.NULLABLE, 5)))
    assert b'"b":"BQAAAAAAAAA="' in value


def test_names_are_sanitized_as_debeziums_schema_name_adjuster() -> None:
    from cdcwire_debezium.names import sanitize_name, table_schema_prefix

    assert sanitize_name("1st-db") == "_1st_db"
    assert table_schema_prefix("tidb-1", "my db", "t.x-y") == "tidb_1.my_db.t.x_y"
