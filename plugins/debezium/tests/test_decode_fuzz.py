"""Fuzzing the debezium decoder at the JSON level: whatever a message's key and value say, the
core's decoder gives valid events (cdcwire.model.validation) or a DecodeError, nothing else.

Random byte edits (tests/test_decode_fuzz.py) mostly break the JSON syntax; these change
the parsed documents at any key (:mod:`cdcwire.testing.json_value_mutations`): a value of
every JSON kind where the Connect schema or the payload holds another, numbers past every
range, non-ASCII and lone-surrogate strings, keys deleted. The named cases below are what
such runs found, minimized.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, DecodeError, Message, RowChangedEvent
from cdcwire.api.codec_calls import decoder_for, encoder_for
from cdcwire.plugin_api import derive_table_schema
from cdcwire.testing.conformance import decoded_or_refused
from cdcwire.testing.json_value_mutations import json_value_mutated
from cdcwire.testing.mutations import json_token_mutated
from cdcwire.testing.strategies import all_types_table, event_batches, row_events

URI = "file:///tmp/cdcwire-debezium/t?protocol=debezium&enable-tidb-extension=true"
T = ColumnType
F = ColumnFlag
KEY = Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1, "int(11)")


def ddl_of(row: RowChangedEvent) -> DDLEvent:
    """A CREATE TABLE carrying the row's table schema: its message has a ``tableChanges`` table."""
    image = row.columns if row.columns is not None else row.pre_columns
    assert image is not None
    return DDLEvent(row.commit_ts, row.schema, row.table, f"CREATE TABLE {row.table} (id INT)",
                    DDLType.CREATE_TABLE, derive_table_schema(row.schema, row.table, image))


#: Mixed batches, rows of every column kind, and DDLs whose message holds the table's columns.
SEEDS = st.one_of(
    event_batches(max_size=3),
    row_events(all_types_table()).map(lambda row: [row]),
    row_events(all_types_table()).map(lambda row: [ddl_of(row)]),
)


@pytest.mark.parametrize("old_value", ["true", "false"])
def test_changed_json_values_decode_to_valid_events_or_a_decode_error(old_value):
    uri = f"{URI}&debezium-output-old-value={old_value}"
    decoder = decoder_for(uri)

    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(SEEDS, st.data())
    def check(events, data):
        for payload in encoder_for(uri, "t", 0).encode(events):
            key, value = payload.key, payload.value or b""
            edit = data.draw(st.sampled_from(("value", "key", "tokens")))
            if edit == "value":
                value = data.draw(json_value_mutated(value))
            elif edit == "key":
                key = data.draw(json_value_mutated(key or b"{}"))
            else:
                value = data.draw(json_token_mutated(value))
            decoded_or_refused(decoder, Message("t", 0, key, value, 0))

    check()


# -- what the fuzz runs found, minimized: each is a DecodeError naming the message ----------


def row_message(column: Column, edit: Callable[[dict[str, Any]], None]) -> Message:
    """The message of an insert of (KEY, column), its value document changed by ``edit``."""
    [message] = cdcwire.encode(URI, [RowChangedEvent(1, "s", "t", (KEY, column))])
    value = json.loads(message.value)
    edit(value)
    return Message("t", 0, message.key, json.dumps(value).encode(), 9)


def schema_of_c(part: str, to: Any) -> Callable[[dict[str, Any]], None]:
    def edit(value: dict[str, Any]) -> None:
        value["schema"]["fields"][1]["fields"][1][part] = to
    return edit


def after_c(to: Any) -> Callable[[dict[str, Any]], None]:
    def edit(value: dict[str, Any]) -> None:
        value["payload"]["after"]["c"] = to
    return edit


def ddl_message(edit: Callable[[dict[str, Any]], None]) -> Message:
    """The message of a CREATE TABLE carrying its table (KEY, INT), its value changed by ``edit``."""
    message = cdcwire.encode(URI, [ddl_of(RowChangedEvent(1, "s", "t", (KEY, INT)))])[0]  # one per partition
    value = json.loads(message.value)
    edit(value)
    return Message("t", 0, message.key, json.dumps(value).encode(), 9)


def first_table_column(part: str, to: Any) -> Callable[[dict[str, Any]], None]:
    def edit(value: dict[str, Any]) -> None:
        value["payload"]["tableChanges"][0]["table"]["columns"][0][part] = to
    return edit


INT = Column("c", T.INT, F.NULLABLE, 1, "int(11)")
VARBINARY = Column("c", T.VARCHAR, F.BINARY | F.NULLABLE, b"x", "varbinary(10)")
FLOAT = Column("c", T.FLOAT, F.NULLABLE, 1.5, "float")
BIT = Column("c", T.BIT, F.NULLABLE, 5, "bit(5)")
INT_UNSIGNED = Column("c", T.INT, F.NULLABLE | F.UNSIGNED, 1, "int(10) unsigned")
TIMESTAMP = Column("c", T.TIMESTAMP, F.NULLABLE, "2024-01-02 03:04:05", "timestamp")


@pytest.mark.parametrize(
    "message, words",
    [
        (row_message(INT, schema_of_c("optional", {})), "'optional' must be a boolean, got dict {}"),
        (row_message(INT, schema_of_c("type", [])), "'type' must be a string, got list []"),
        (row_message(INT, schema_of_c("parameters", {"length": {}})), "'parameters' must be an object of strings"),
        (row_message(BIT, schema_of_c("parameters", {"length": "\u00b2"})), "no length parameter of 2 to 64"),
        (row_message(VARBINARY, after_c("\u00e9")), "payload.after.c: VARCHAR is not base64: it holds non-ASCII"),
        (row_message(FLOAT, after_c(3.5e38)), "payload.after.c: FLOAT 3.5e+38 is beyond the float32 range"),
        (row_message(TIMESTAMP, after_c("\u0662024-01-02T03:04:05Z")), "is not YYYY-MM-DDTHH:MM:SS[.f]Z"),
        (ddl_message(first_table_column("enumValues", 1)), "columns[0].enumValues must be an array of strings"),
        (ddl_message(first_table_column("enumValues", ["'a'", 2])), "columns[0].enumValues must be an array of strings"),
        (ddl_message(first_table_column("optional", "no")), "columns[0].optional must be a boolean or null, got str"),
        (ddl_message(first_table_column("length", True)), "columns[0].length must be an integer or null, got bool"),
        (ddl_message(lambda v: v["payload"].update(tableChanges={})), "tableChanges must be an array of objects"),
        (ddl_message(lambda v: v["payload"]["tableChanges"][0].update(type=1)), "tableChanges[0].type must be a string"),
    ],
    ids=["optional-object", "type-array", "parameter-object", "bit-length-superscript-digit",
         "base64-non-ascii", "float-3.5e38", "timestamp-arabic-digit",
         "ddl-enum-values-number", "ddl-enum-values-holding-a-number",
         "ddl-optional-string", "ddl-length-boolean", "ddl-table-changes-object", "ddl-change-type-number"],
)
def test_a_value_of_the_wrong_kind_is_a_decode_error_naming_the_message(message, words):
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(URI, [message])
    assert str(info.value).startswith("t/0/9: debezium ")
    assert words in str(info.value)
    str(info.value).encode()  # printable: cdcwire inspect prints it


def test_an_unsigned_int_below_zero_is_refused_as_the_wire_says_it_not_wrapped_past_2_64():
    # only BIGINT UNSIGNED is written as int64 (2^64-1 as -1); an INT UNSIGNED -1 is out of range
    with pytest.raises(DecodeError) as info:
        cdcwire.decode(URI, [row_message(INT_UNSIGNED, after_c(-1))])
    assert str(info.value).startswith("t/0/9: the message decodes to an invalid event: s.t@1: ")
    assert "-1 is outside 0..4294967295, the range of INT UNSIGNED" in str(info.value)
