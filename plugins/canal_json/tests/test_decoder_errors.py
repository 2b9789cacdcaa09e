"""The decoder is strict: bad input is a DecodeError that says what and where, nothing else."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import DecodeError, Message
from cdcwire.sinks.sink import open_sink

from canal_cases import canal_config, tp_int_insert

_CONFIG = canal_config()


def _message(value: bytes | None) -> Message:
    return Message("t", 0, None, value, offset=3)


def _good() -> dict:
    config = canal_config()
    return json.loads(next(open_sink(config).codec.encoder(config, "t", 0).encode([tp_int_insert()])).value)


def _decode_doc(doc: object, **params: object) -> list:
    config = canal_config(**params)
    return cdcwire.decode(config, [_message(json.dumps(doc).encode())])


def test_malformed_json_names_the_byte_offset_and_the_message():
    with pytest.raises(DecodeError) as caught:
        cdcwire.decode("canal-json", [_message('{"id":0,"database":"é",'.encode())])
    assert caught.value.offset == len('{"id":0,"database":"é",'.encode())
    assert caught.value.part == "value"
    assert caught.value.where == "t/0/3"


def test_a_value_that_is_not_utf8_names_the_bad_byte():
    with pytest.raises(DecodeError, match="not UTF-8") as caught:
        cdcwire.decode("canal-json", [_message(b'{"id":0,"x":"\xff"}')])
    assert caught.value.offset == 13


def test_a_message_without_a_value_is_rejected():
    with pytest.raises(DecodeError, match="no value"):
        cdcwire.decode("canal-json", [_message(None)])


@pytest.mark.parametrize("text", ["[]", "null", "1", '"x"'])
def test_the_value_must_be_a_json_object(text):
    with pytest.raises(DecodeError, match="JSON object"):
        cdcwire.decode("canal-json", [_message(text.encode())])


def test_deeply_nested_json_is_a_decode_error_not_a_recursion_error():
    with pytest.raises(DecodeError, match="nests too deeply"):
        cdcwire.decode("canal-json", [_message(b"[" * 100_000)])


def test_nan_literals_are_not_json():
    with pytest.raises(DecodeError, match="NaN"):
        cdcwire.decode("canal-json", [_message(b'{"id":NaN}')])


@pytest.mark.parametrize("field", ["id", "database", "table", "pkNames", "isDdl", "type", "es", "ts", "sql",
                                   "sqlType", "mysqlType", "old", "data"])
def test_every_field_is_required(field):
    doc = _good()
    del doc[field]
    with pytest.raises(DecodeError, match=f"'{field}' is missing"):
        _decode_doc(doc)


@pytest.mark.parametrize(
    "field,bad,message",
    [
        ("isDdl", "false", "'isDdl' must be true or false"),
        ("es", "1", "'es' must be an unsigned integer"),
        ("es", -1, "'es' must be an unsigned integer"),
        ("es", True, "'es' must be an unsigned integer"),
        ("database", None, "'database' must be a string"),
        ("type", "UPSERT", "'type' must be INSERT, UPDATE, DELETE or TIDB_WATERMARK"),
        ("data", None, "'data' must be a list of one object"),
        ("data", [{}, {}], "'data' must be a list of one object"),
        ("old", [{"id": "1"}], "'old' must be null in an INSERT message"),
        ("mysqlType", ["int"], "'mysqlType' must be an object"),
        ("pkNames", "id", "'pkNames' must be a list of column names or null"),
        ("_tidb", [], "'_tidb' must be an object"),
    ],
)
def test_wrong_typed_fields_are_named(field, bad, message):
    doc = _good()
    doc[field] = bad
    with pytest.raises(DecodeError, match=message) as caught:
        _decode_doc(doc)
    assert caught.value.offset is not None


def test_a_value_that_does_not_parse_as_its_mysql_type_names_the_column():
    doc = _good()
    doc["data"][0]["c_int"] = "12x"
    with pytest.raises(DecodeError, match=r"'data\[0\].c_int' is not a INT value"):
        _decode_doc(doc)


_PAST_RANGE = [("float", 7, "FLOAT", text) for text in ("1e39", "-3.5e38", "1" + "0" * 40)] + [
    ("double", 8, "DOUBLE", text) for text in ("1e999", "-1e309", "1" + "0" * 400)
]


@pytest.mark.parametrize(("mysql_type", "sql_type", "name", "text"), _PAST_RANGE)
def test_a_number_text_past_its_type_range_names_the_column(mysql_type, sql_type, name, text):
    doc = _good()
    doc["mysqlType"]["c_int"] = mysql_type
    doc["sqlType"]["c_int"] = sql_type
    doc["data"][0]["c_int"] = text
    message = rf"'data\[0\].c_int' is not a {name} value: .* is beyond the {name} range"
    with pytest.raises(DecodeError, match=message):
        _decode_doc(doc)


def test_a_value_must_be_a_string_or_null():
    doc = _good()
    doc["data"][0]["c_int"] = 12
    with pytest.raises(DecodeError, match="must be a string or null, got a number"):
        _decode_doc(doc)


def test_a_column_without_mysql_type_is_rejected():
    doc = _good()
    del doc["mysqlType"]["c_int"]
    del doc["sqlType"]["c_int"]
    with pytest.raises(DecodeError, match=r"'data\[0\].c_int' has no mysqlType entry"):
        _decode_doc(doc)


def test_an_unknown_mysql_type_is_rejected():
    doc = _good()
    doc["mysqlType"]["c_int"] = "hugeint"
    with pytest.raises(DecodeError, match="unknown mysqlType 'hugeint'"):
        _decode_doc(doc)


def test_binary_text_above_u00ff_is_rejected():
    doc = _good()
    doc["mysqlType"]["c_int"] = "blob"
    doc["sqlType"]["c_int"] = 2004
    doc["data"][0]["c_int"] = "ĀB"
    with pytest.raises(DecodeError, match="U\\+0100"):
        _decode_doc(doc)


def test_with_the_extension_a_tidb_block_without_commit_ts_is_rejected():
    with pytest.raises(DecodeError, match="enable-tidb-extension"):
        _decode_doc(dict(_good(), _tidb={}), enable_tidb_extension=True)


def test_with_the_extension_a_row_without_a_tidb_block_reads_as_written_without_it():
    doc = _good()
    (event,) = _decode_doc(doc, enable_tidb_extension=True)
    assert event.commit_ts == doc["es"] << 18


def test_an_insert_with_old_null_in_a_list_reads_as_older_ticdc_wrote_it():
    (event,) = _decode_doc(dict(_good(), old=[None]))
    assert event.is_insert and event.pre_columns is None


def test_a_delete_whose_old_repeats_its_data_reads_as_older_ticdc_wrote_it():
    doc = dict(_good(), type="DELETE")
    doc["old"] = doc["data"]
    (event,) = _decode_doc(doc)
    assert event.is_delete and [c.name for c in event.pre_columns] == list(doc["data"][0])


def test_a_watermark_needs_its_watermark_ts():
    doc = dict(_good(), type="TIDB_WATERMARK", _tidb={"commitTs": 5})
    with pytest.raises(DecodeError, match="watermarkTs"):
        _decode_doc(doc)


def test_a_ddl_message_needs_a_canal_ddl_word():
    doc = dict(_good(), isDdl=True, type="INSERT", data=None)
    with pytest.raises(DecodeError, match="of a DDL message must be one of"):
        _decode_doc(doc)


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(0, 10_000), flip=st.integers(0, 10_000), byte=st.integers(0, 255))
def test_truncated_or_corrupted_messages_raise_only_decode_errors(cut, flip, byte):
    value = json.dumps(_good()).encode()
    damaged = bytearray(value[: cut % len(value)])
    if damaged:
        damaged[flip % len(damaged)] = byte
    try:
        cdcwire.decode("canal-json", [_message(bytes(damaged))])
    except DecodeError:
        pass


@settings(max_examples=150, deadline=None)
@given(field=st.sampled_from(sorted(_good())), junk=st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
def test_any_field_replaced_by_any_json_value_decodes_or_raises_a_decode_error(field, junk):
    doc = _good()
    doc[field] = junk
    try:
        _decode_doc(doc)
    except DecodeError:
        pass


def test_an_update_whose_data_lacks_a_column_its_old_has_is_refused():
    doc = dict(_good(), type="UPDATE")
    data = dict(doc["data"][0])
    del data["c_int"]
    doc["data"], doc["old"] = [data], [{"c_int": "1"}]
    with pytest.raises(DecodeError, match="data.*lacks column 'c_int' that old has"):
        _decode_doc(doc)


def test_an_update_whose_old_omits_unchanged_columns_takes_them_from_data():
    doc = dict(_good(), type="UPDATE", old=[{"c_int": "1"}])
    (event,) = _decode_doc(doc)
    assert [c.name for c in event.pre_columns] == [c.name for c in event.columns]
    assert {c.name: c.value for c in event.pre_columns}["c_int"] == 1


@pytest.mark.parametrize(
    "mysql_type", ["decimal(100000000,2)", "decimal(10,11)", "bit(65)", "varchar(70000)", "datetime(7)"]
)
def test_a_mysql_type_past_mysqls_limits_is_refused_naming_the_column(mysql_type):
    doc = _good()
    doc["mysqlType"] = dict(doc["mysqlType"], c_int=mysql_type)
    with pytest.raises(DecodeError, match=r"c_int.*(limit|more than)"):
        _decode_doc(doc)


def test_an_impossible_date_is_refused():
    doc = _good()
    doc["mysqlType"] = dict(doc["mysqlType"], c_int="date")
    doc["sqlType"] = dict(doc["sqlType"], c_int=91)
    doc["data"] = [dict(doc["data"][0], c_int="2024-02-30")]
    with pytest.raises(DecodeError, match="'2024-02-30' is not a DATE"):
        _decode_doc(doc)
