"""max-message-bytes: a clear error, or the handle key alone with handle-key-only; the
handle-key-only mark (``_tidb.onlyHandleKey``, RowChangedEvent.handle_key_only) both ways;
which large-message parameter combinations validate refuses."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, MessageTooLargeError, RowChangedEvent, SinkURIError
from cdcwire.plugin_api import EventBatch
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.sinks.sink import open_sink
from cdcwire.testing.conformance import columnar_and_event_decoding

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
    assert back.handle_key_only
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


# -- the handle-key-only mark ---------------------------------------------------------------

def _message(tidb: dict, kind: str = "INSERT") -> bytes:
    image = [{"id": "7"}]
    return json.dumps({
        "id": 0, "database": "s", "table": "t", "pkNames": ["id"], "isDdl": False, "type": kind, "es": 9,
        "ts": 1, "sql": "", "sqlType": {"id": 4}, "mysqlType": {"id": "int"},
        "old": image if kind == "UPDATE" else None, "data": image, "_tidb": tidb,
    }).encode()


def _decode(config, value: bytes) -> list:
    return cdcwire.decode(config, [cdcwire.Message("t", 0, None, value)])


@pytest.mark.parametrize("kind", ["INSERT", "UPDATE", "DELETE"])
def test_a_message_marked_only_handle_key_decodes_as_a_key_only_row(kind):
    message = _message({"commitTs": 9 << 18, "onlyHandleKey": True}, kind)
    (row,) = _decode(canal_config(enable_tidb_extension=True), message)
    assert row.handle_key_only
    assert all(c.flags & ColumnFlag.HANDLE_KEY for c in row.image)


def test_only_handle_key_false_decodes_as_a_whole_row():
    message = _message({"commitTs": 9 << 18, "onlyHandleKey": False})
    (row,) = _decode(canal_config(enable_tidb_extension=True), message)
    assert not row.handle_key_only


def test_a_delete_cut_by_delete_only_output_handle_key_columns_is_not_marked():
    config = canal_config(enable_tidb_extension=True, delete_only_output_handle_key_columns=True)
    (row,) = round_trip(config, _big_row("delete"))
    assert [c.name for c in row.image] == ["id"]
    assert not row.handle_key_only


def test_columnar_decoding_appends_a_marked_row_with_its_mark():
    config = canal_config(enable_tidb_extension=True)
    messages = [cdcwire.Message("t", 0, None, _message({"commitTs": 9 << 18, "onlyHandleKey": True}), 0)]
    columnar, by_event = columnar_and_event_decoding(config, messages)
    assert columnar == by_event and by_event[0].handle_key_only


def _key_only_row(kind: str = "insert") -> RowChangedEvent:
    key = (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, 7, "int(11)"),)
    new, old = {"insert": (key, None), "update": (key, key), "delete": (None, key)}[kind]
    return RowChangedEvent(9 << 18, "s", "t", new, old, handle_key_only=True)


@pytest.mark.parametrize("kind", ["insert", "update", "delete"])
def test_a_row_that_arrived_key_only_is_sent_marked_and_reads_back_marked(kind):
    config = canal_config(enable_tidb_extension=True)
    doc = encode_one(config, _key_only_row(kind))
    assert doc["_tidb"] == {"commitTs": 9 << 18, "onlyHandleKey": True}
    (back,) = round_trip(config, _key_only_row(kind))
    assert back.handle_key_only
    assert back == open_sink(config).codec.carrier(config)(_key_only_row(kind))


def test_without_the_extension_a_key_only_row_reads_back_unmarked_as_the_carrier_says():
    config = canal_config()
    assert "_tidb" not in encode_one(config, _key_only_row())
    (back,) = round_trip(config, _key_only_row())
    carried = open_sink(config).codec.carrier(config)(_key_only_row())
    assert not back.handle_key_only and not carried.handle_key_only
    assert back == carried


def test_the_columnar_path_sends_key_only_rows_as_the_event_path_does():
    from cdcwire_canal_json.encoder import CanalJSONEncoder
    from cdcwire_canal_json.options import CanalOptions

    events = [_big_row(), _key_only_row("insert"), _big_row("update"), _key_only_row("delete")]
    batch = EventBatch.of_events(events)
    assert batch.key_only == {1, 3}
    options = CanalOptions.from_config(canal_config(enable_tidb_extension=True))
    columnar = list(CanalJSONEncoder(options, clock=lambda: 1).encode_batches([batch]))
    assert columnar == list(CanalJSONEncoder(options, clock=lambda: 1).encode(events))
    marks = [json.loads(p.value)["_tidb"].get("onlyHandleKey", False) for p in columnar]
    assert marks == [False, True, False, True]


# -- which combinations validate refuses ----------------------------------------------------

URI = "file:///tmp/x/t?protocol=canal-json"


def test_claim_check_without_the_extension_is_rejected_naming_the_parameter():
    with pytest.raises(SinkURIError, match="claim-check needs enable-tidb-extension") as caught:
        parse_sink_uri(f"{URI}&large-message-handle-option=claim-check&claim-check-storage-uri=file:///tmp/c")
    assert caught.value.parameter == "large-message-handle-option"


def test_claim_check_without_a_storage_uri_is_rejected_naming_the_storage_parameter():
    with pytest.raises(SinkURIError, match="claim-check-storage-uri") as caught:
        parse_sink_uri(f"{URI}&enable-tidb-extension=true&large-message-handle-option=claim-check")
    assert caught.value.parameter == "claim-check-storage-uri"


def test_a_storage_uri_of_an_unsupported_scheme_is_rejected_when_the_sink_is_parsed():
    with pytest.raises(SinkURIError, match="not supported") as caught:
        parse_sink_uri(f"{URI}&enable-tidb-extension=true&large-message-handle-option=claim-check"
                       "&claim-check-storage-uri=gcs://bucket/prefix")
    assert caught.value.parameter == "claim-check-storage-uri"


def test_an_unknown_compression_is_rejected_naming_the_parameter():
    with pytest.raises(SinkURIError) as caught:
        parse_sink_uri(f"{URI}&large-message-handle-compression=zstd")
    assert caught.value.parameter == "large-message-handle-compression"


def test_claim_check_raw_value_is_accepted_for_canal_json():
    config = parse_sink_uri(f"{URI}&enable-tidb-extension=true&large-message-handle-option=claim-check"
                            "&claim-check-storage-uri=file:///tmp/cc&claim-check-raw-value=true")
    assert config["claim-check-raw-value"] is True


def test_a_reader_may_name_a_storage_without_a_large_message_mode():
    config = parse_sink_uri(f"{URI}&claim-check-storage-uri=file:///c&large-message-handle-compression=lz4")
    assert config["large-message-handle-option"] == "none"
