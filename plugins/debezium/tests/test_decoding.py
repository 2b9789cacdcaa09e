"""Reading debezium back: rows from the value's schema (with the TiDB extension) and the key's
payload, DDL and watermarks; and the refusals of messages a reader cannot read rows from."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire.plugin_api import (
    ColumnFlag,
    DDLEvent,
    DDLType,
    DecodeError,
    Message,
    ResolvedEvent,
    RowChangedEvent,
    SinkURIError,
)
from test_datatype_golden import INSERT

URI = "file:///tmp/dbz/t?protocol=debezium&enable-tidb-extension=true&partition-num=1"


def round_trip(uri: str, *events):
    return cdcwire.decode(uri, cdcwire.encode(uri, list(events)))


def by_name(row: RowChangedEvent) -> dict:
    return {c.name: c for c in row.image}


def test_the_fifty_columns_read_back_with_ticdcs_lossy_mappings_said() -> None:
    [row] = round_trip(URI, INSERT)
    cols = by_name(row)
    assert cols["col_bigint_unsigned"].value == 18446744073709551615  # written -1
    assert cols["col_decimal"].value == "12345.12345"  # written as a double
    assert cols["col_d_0000"].value is None  # an invalid date has no day number
    assert cols["col_dt_fsp_4"].value == "2023-11-30 12:34:56.123500"  # MicroTimestamp reads as fsp 6
    assert cols["col_dt_fsp_1"].value == "2023-11-30 12:34:56.100"  # Timestamp keeps milliseconds
    assert cols["col_ts_fsp_5"].value == "2023-11-30 12:34:56.12346"
    assert cols["col_t_neg"].value == "-12:34:56.123456"
    assert cols["col_enum_invalid"].value == 0 and cols["col_set"].value == 3
    assert cols["col_bit_5"].value == 16 and cols["col_bit_5"].mysql_type == "bit(5)"
    assert cols["col_binary"].value == b"foo" + bytes(97)
    assert cols["col_enum"].mysql_type == "enum('a','b','c')"


def test_the_key_columns_read_back_as_the_handle_key() -> None:
    [row] = round_trip(URI, INSERT)
    keys = [c.name for c in row.image if c.flags & ColumnFlag.HANDLE_KEY]
    assert keys == ["pk"]
    assert by_name(row)["col_int_unsigned"].flags == ColumnFlag.NULLABLE | ColumnFlag.UNSIGNED


def test_rows_without_the_schema_part_are_refused_naming_the_parameter() -> None:
    uri = URI + "&debezium-disable-schema=true"
    messages = cdcwire.encode(uri, [INSERT])
    with pytest.raises(DecodeError) as caught:
        cdcwire.decode(uri, messages)
    text = str(caught.value)
    assert "debezium-disable-schema=false" in text and "\n" not in text


def test_rows_without_the_extension_are_refused_naming_the_parameter() -> None:
    uri = "file:///tmp/dbz/t?protocol=debezium&partition-num=1"
    messages = cdcwire.encode(uri, [INSERT])
    with pytest.raises(DecodeError, match="enable-tidb-extension=true"):
        cdcwire.decode(uri, messages)


def test_an_update_without_old_value_reads_back_as_an_insert() -> None:
    update = RowChangedEvent(7, "test", "foo", INSERT.columns, INSERT.columns)
    [row] = round_trip(URI + "&debezium-output-old-value=false", update)
    assert row.is_insert and row.commit_ts == 7


def test_ddl_reads_back_with_the_type_its_statement_says() -> None:
    ddl = DDLEvent(5, "test", "foo", "ALTER TABLE foo ADD COLUMN c INT", DDLType.ADD_COLUMN)
    [back] = round_trip(URI, ddl)
    assert back == ddl


def test_a_watermark_reads_back_as_a_resolved_event() -> None:
    assert round_trip(URI, ResolvedEvent(1 << 40)) == [ResolvedEvent(1 << 40)]


def test_a_value_that_is_not_json_is_a_decode_error() -> None:
    bad = Message("t", 0, b"{}", b"{not json")
    with pytest.raises(DecodeError, match="not JSON"):
        cdcwire.decode(URI, [bad])


def test_include_start_ts_is_refused_for_want_of_a_start_ts() -> None:
    with pytest.raises(SinkURIError, match="no start ts"):
        cdcwire.encode(URI + "&debezium-include-start-ts=true", [INSERT])


def test_the_cluster_id_names_the_source_and_the_schemas() -> None:
    [message] = cdcwire.encode(URI + "&debezium-cluster-id=tidb-1", [INSERT])
    doc = json.loads(message.value)
    assert doc["payload"]["source"]["name"] == "tidb-1"
    assert doc["schema"]["name"] == "tidb_1.test.foo.Envelope"


def test_debezium_is_a_protocol() -> None:
    assert "debezium" in cdcwire.protocols()


def test_ddl_and_watermarks_read_back_without_the_schema_part() -> None:
    uri = URI + "&debezium-disable-schema=true"
    ddl = DDLEvent(5, "test", "", "CREATE DATABASE test", DDLType.CREATE_SCHEMA)
    assert round_trip(uri, ddl, ResolvedEvent(9)) == [ddl, ResolvedEvent(9)]


def test_a_reader_needs_no_parameters_for_what_the_message_itself_says() -> None:
    messages = cdcwire.encode(URI, [INSERT])
    [row] = cdcwire.decode("debezium", messages)
    assert row.commit_ts == 1 and len(row.columns) == len(INSERT.columns)
