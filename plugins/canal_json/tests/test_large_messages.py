"""max-message-bytes: a clear error, or the handle key alone with handle-key-only."""

from __future__ import annotations

import json

import pytest

from cdcwire import Column, ColumnFlag, ColumnType, MessageTooLargeError, RowChangedEvent, SinkURIError
from cdcwire.sink_uri import parse_sink_uri
from cdcwire.sink import open_sink

from canal_cases import KEY, canal_config, encode_one, round_trip

BIG = "x" * 2000


def _big_row(kind: str = "insert") -> RowChangedEvent:
    row = (Column("id", ColumnType.INT, KEY, 7, "int(11)"), Column("body", ColumnType.BLOB, ColumnFlag(0), BIG, "text"))
    if kind == "delete":
        return RowChangedEvent(9 << 18, "s", "t", None, row)
    if kind == "update":
        return RowChangedEvent(9 << 18, "s", "t", row, row)
    return RowChangedEvent(9 << 18, "s", "t", row, None)


def test_a_row_larger_than_max_message_bytes_is_a_clear_error():
    config = canal_config(max_message_bytes=1024)
    with pytest.raises(MessageTooLargeError, match=r"max-message-bytes 1024.*large-message-handle-option"):
        encode_one(config, _big_row())


def test_the_limit_counts_36_bytes_of_overhead_beside_the_value():
    sized = canal_config(enable_tidb_extension=True)
    value_length = len(json.dumps(encode_one(sized, _big_row()), separators=(",", ":"), ensure_ascii=False))
    assert encode_one(canal_config(enable_tidb_extension=True, max_message_bytes=value_length + 36), _big_row())
    with pytest.raises(MessageTooLargeError):
        encode_one(canal_config(enable_tidb_extension=True, max_message_bytes=value_length + 35), _big_row())


@pytest.mark.parametrize("kind", ["insert", "update", "delete"])
def test_handle_key_only_sends_the_key_columns_and_marks_the_message(kind):
    config = canal_config(enable_tidb_extension=True, large_message_handle_option="handle-key-only",
                          max_message_bytes=1024)
    doc = encode_one(config, _big_row(kind))
    assert doc["data"] == [{"id": "7"}]
    assert doc["sqlType"] == {"id": 4} and doc["mysqlType"] == {"id": "int"}
    assert doc["_tidb"] == {"commitTs": 9 << 18, "onlyHandleKey": True}
    (back,) = round_trip(config, _big_row(kind))
    assert [c.name for c in back.image] == ["id"]
    assert back.image[0].flags == KEY
    assert back == open_sink(config).codec.carrier(config)(_big_row(kind))


def test_handle_key_only_leaves_rows_that_fit_whole():
    config = canal_config(enable_tidb_extension=True, large_message_handle_option="handle-key-only")
    doc = encode_one(config, _big_row())
    assert doc["_tidb"] == {"commitTs": 9 << 18}
    assert doc["data"][0]["body"] == BIG


def test_handle_key_only_still_fails_when_the_key_alone_is_too_large():
    config = canal_config(enable_tidb_extension=True, large_message_handle_option="handle-key-only",
                          max_message_bytes=64)
    with pytest.raises(MessageTooLargeError, match="even with only its handle-key columns"):
        encode_one(config, _big_row())


def test_carried_raises_like_the_encoder_for_a_row_that_cannot_be_sent():
    config = canal_config(max_message_bytes=1024)
    with pytest.raises(MessageTooLargeError):
        open_sink(config).codec.carrier(config)(_big_row())


def test_handle_key_only_without_the_extension_is_rejected_naming_the_parameter():
    with pytest.raises(SinkURIError, match="enable-tidb-extension") as caught:
        parse_sink_uri("file:///tmp/x/t?protocol=canal-json&large-message-handle-option=handle-key-only")
    assert caught.value.parameter == "large-message-handle-option"


def test_max_batch_size_is_not_a_canal_json_parameter():
    with pytest.raises(SinkURIError) as caught:
        parse_sink_uri("file:///tmp/x/t?protocol=canal-json&max-batch-size=4")
    assert caught.value.parameter == "max-batch-size"
