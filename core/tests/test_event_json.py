from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdcwire import (
    Column, ColumnFlag, ColumnType, DDLEvent, DDLType, EventJSONError, ResolvedEvent, RowChangedEvent,
    from_json, read_jsonl, to_json,
)
from cdcwire.testing.strategies import all_types_table, ddl_events, resolved_events, row_events


@settings(max_examples=150, deadline=None)
@given(st.one_of(row_events(all_types_table()), row_events(), ddl_events, resolved_events))
def test_every_event_survives_a_json_round_trip(event):
    assert from_json(to_json(event)) == event


def test_extreme_values_survive_exactly():
    cols = (
        Column("u", ColumnType.BIGINT, ColumnFlag.UNSIGNED, 2**64 - 1),
        Column("i", ColumnType.BIGINT, ColumnFlag(0), -(2**63)),
        Column("f", ColumnType.FLOAT, ColumnFlag(0), 3.4028234663852886e38),
        Column("b", ColumnType.BLOB, ColumnFlag.BINARY, bytes(range(256))),
        Column("e", ColumnType.VARCHAR, ColumnFlag(0), ""),
        Column("z", ColumnType.VARCHAR, ColumnFlag.NULLABLE, None),
    )
    event = RowChangedEvent(2**64 - 1, "s", "t", cols)
    assert from_json(to_json(event)) == event


def test_bytes_are_written_as_base64_objects():
    event = RowChangedEvent(1, "s", "t", (Column("b", ColumnType.VARCHAR, ColumnFlag.BINARY, b"\x89PNG"),))
    assert json.loads(to_json(event))["columns"][0]["value"] == {"base64": "iVBORw=="}


def test_float32_values_are_written_with_their_shortest_digits():
    event = RowChangedEvent(1, "s", "t", (Column("f", ColumnType.FLOAT, ColumnFlag(0), 153.12300109863281),))
    assert '"value":153.123' in to_json(event)


def test_a_float_given_for_a_float_column_is_rounded_to_float32():
    line = '{"type":"row","commit_ts":1,"schema":"s","table":"t","columns":[{"name":"f","type":"FLOAT","value":0.1}]}'
    assert from_json(line).columns[0].value == 0.10000000149011612


def test_type_codes_and_names_are_both_accepted():
    a = from_json('{"type":"row","commit_ts":1,"schema":"s","table":"t","columns":[{"name":"x","type":3,"value":1}]}')
    b = from_json('{"type":"row","commit_ts":1,"schema":"s","table":"t","columns":[{"name":"x","type":"int","value":1}]}')
    assert a == b and a.columns[0].type is ColumnType.INT


def test_ddl_and_resolved_lines():
    assert from_json('{"type":"resolved","ts":9}') == ResolvedEvent(9)
    ddl = from_json('{"type":"ddl","commit_ts":3,"schema":"s","table":"t","ddl_type":"CREATE_TABLE","query":"q"}')
    assert ddl == DDLEvent(3, "s", "t", "q", DDLType.CREATE_TABLE)


def test_read_jsonl_skips_blank_lines_and_numbers_lines_from_one():
    text = '{"type":"resolved","ts":1}\n\n{"type":"resolved","ts":"x"}\n'
    events = read_jsonl(io.StringIO(text))
    assert next(events) == ResolvedEvent(1)
    with pytest.raises(EventJSONError) as info:
        next(events)
    assert (info.value.line, info.value.field) == (3, "ts")


ROW = '{"type":"row","commit_ts":1,"schema":"s","table":"t","columns":[%s]}'


@pytest.mark.parametrize(
    "line, field, words",
    [
        ("{not json", None, "not valid JSON"),
        ("[1]", None, "must be a JSON object"),
        ('{"type":"upsert"}', "type", "must be 'row', 'ddl' or 'resolved'"),
        ('{"type":"resolved"}', "ts", "is missing"),
        ('{"type":"resolved","ts":-1}', "ts", "0..2^64-1"),
        ('{"type":"resolved","ts":18446744073709551616}', "ts", "0..2^64-1"),
        ('{"type":"resolved","ts":1,"extra":2}', "extra", "unknown field"),
        ('{"type":"row","commit_ts":1,"schema":"s","table":"t"}', "columns", "needs columns"),
        (ROW % '{"name":"x","type":"WIDEINT","value":1}', "columns[0].type", "unknown column type"),
        (ROW % '{"name":"x","type":"INT","value":"1"}', "columns[0].value", "must be an integer"),
        (ROW % '{"name":"x","type":"TINYINT","value":18446744073709551616}', "columns[0].value", "outside -128..127"),
        (ROW % '{"name":"x","type":"TINYINT","value":128}', "columns[0].value", "outside -128..127, the range of TINYINT"),
        (ROW % '{"name":"x","type":"TINYINT","flags":128,"value":256}', "columns[0].value", "outside 0..255"),
        (ROW % '{"name":"x","type":"INT","value":2147483648}', "columns[0].value", "the range of INT"),
        (ROW % '{"name":"x","type":"BIGINT","value":-1,"flags":128}', "columns[0].value", "range of BIGINT UNSIGNED"),
        (ROW % '{"name":"x","type":"YEAR","value":2156}', "columns[0].value", "outside 0..2155"),
        (ROW % '{"name":"x","type":"FLOAT","value":1e39}', "columns[0].value", "outside the range of FLOAT"),
        (ROW % '{"name":"x","type":"DOUBLE","value":1e400}', "columns[0].value", "must be finite"),
        ('{"type":"row","commit_ts":1,"schema":"s","table":"t","table_id":9223372036854775808,"columns":[]}',
         "table_id", "signed 64-bit"),
        ("[" * 100000 + "]" * 100000, None, "nested too deeply"),
        (ROW % '{"name":"x","type":"DOUBLE","value":NaN}', None, "NaN is not allowed"),
        (ROW % '{"name":"x","type":"BLOB","flags":1,"value":"text"}', "columns[0].value", "BINARY flag"),
        (ROW % '{"name":"x","type":"BLOB","value":{"base64":"AA=="}}', "columns[0].value", "without the BINARY flag"),
        (ROW % '{"name":"x","type":"BLOB","flags":1,"value":{"base64":"!!"}}', "columns[0].value", "not valid base64"),
        (ROW % '{"name":"x","type":"INT","value":1},{"name":"x","type":"INT","value":2}', "columns[1].name", "twice"),
        (ROW % '{"type":"INT","value":1}', "columns[0].name", "is missing"),
        ('{"type":"ddl","commit_ts":1,"ddl_type":"MAKE_TABLE","query":"q"}', "ddl_type", "unknown DDL type"),
    ],
)
def test_malformed_line_names_the_line_and_the_field(line, field, words):
    with pytest.raises(EventJSONError) as info:
        from_json(line, line=7)
    assert info.value.line == 7
    assert info.value.field == field
    assert words in str(info.value)
    assert str(info.value).startswith("line 7")
