"""large-message-handle-option=claim-check: a row too large is stored whole in the claim-check
storage and replaced by its handle-key columns with ``_tidb.claimCheckLocation``; the reader
fetches it back by the location's file name from its own storage."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

import cdcwire
from cdcwire import (
    Column,
    ColumnFlag,
    ColumnType,
    DecodeError,
    MessageTooLargeError,
    RowChangedEvent,
    TransportError,
)
from cdcwire.sinks.sink import open_sink
from cdcwire.sinks.sink import protocol_config
from cdcwire.testing.conformance import columnar_and_event_decoding
from cdcwire_canal_json.encoder import CanalJSONEncoder
from cdcwire_canal_json.options import CanalOptions

from canal_cases import KEY

BIG = "x" * 2000
TS = 9 << 18


def _config(storage: Path, **params: str):
    return protocol_config("canal-json", **{
        "enable-tidb-extension": "true",
        "large-message-handle-option": "claim-check",
        "claim-check-storage-uri": f"file://{storage}",
        "max-message-bytes": "1024",
        **params,
    })


def _reader(storage: Path, **params: str):
    """A consumer's config: no large-message-handle-option, only where to fetch from."""
    return protocol_config("canal-json", **{
        "enable-tidb-extension": "true", "claim-check-storage-uri": f"file://{storage}", **params,
    })


def _row(kind: str = "insert", body: str = BIG, table: str = "t", key: object = 7) -> RowChangedEvent:
    row = (
        Column("id", ColumnType.INT, KEY, key, "int(11)"),
        Column("body", ColumnType.VARCHAR, ColumnFlag(0), body),
    )
    if kind == "delete":
        return RowChangedEvent(TS, "s", table, None, row)
    if kind == "update":
        return RowChangedEvent(TS, "s", table, row, row)
    return RowChangedEvent(TS, "s", table, row, None)


def _encode(config, event) -> bytes:
    (payload,) = CanalJSONEncoder(CanalOptions.from_config(config)).encode([event])
    return payload.value


def _decode(config, value: bytes) -> list[object]:
    return cdcwire.decode(config, [cdcwire.Message("t", 0, None, value, 5)])


def _stored(storage: Path) -> list[Path]:
    return sorted(p for p in storage.iterdir() if not p.name.startswith(".")) if storage.exists() else []


@pytest.mark.parametrize("kind", ["insert", "update", "delete"])
def test_a_row_too_large_is_sent_as_its_handle_key_with_the_claim_check_location(tmp_path, kind):
    pointer = json.loads(_encode(_config(tmp_path), _row(kind)))
    (stored,) = _stored(tmp_path)
    assert pointer["data"] == [{"id": "7"}]
    assert pointer["mysqlType"] == {"id": "int"}
    assert pointer["_tidb"] == {"commitTs": TS, "claimCheckLocation": f"file://{tmp_path}/{stored.name}"}
    assert list(pointer["_tidb"]) == ["commitTs", "claimCheckLocation"]
    assert stored.name.endswith(".json")
    assert len(stored.name) == len("12345678-1234-1234-1234-123456789abc.json")


def test_the_stored_object_is_the_json_of_a_null_key_and_the_whole_value_in_base64(tmp_path):
    config = _config(tmp_path)
    _encode(config, _row())
    (stored,) = _stored(tmp_path)
    doc = json.loads(stored.read_bytes())
    assert doc.keys() == {"key", "value"} and doc["key"] is None
    whole = json.loads(base64.b64decode(doc["value"]))
    assert whole["data"] == [{"id": "7", "body": BIG}]
    assert whole["_tidb"] == {"commitTs": TS}


@pytest.mark.parametrize("kind", ["insert", "update", "delete"])
def test_the_pointer_reads_back_as_the_whole_row_not_key_only(tmp_path, kind):
    config = _config(tmp_path)
    (back,) = _decode(_reader(tmp_path), _encode(config, _row(kind)))
    assert not back.handle_key_only
    assert [c.value for c in back.image] == [7, BIG]
    assert back == open_sink(config).codec.carrier(config)(_row(kind))


def test_raw_value_stores_the_value_bytes_alone_and_reads_back(tmp_path):
    config = _config(tmp_path, **{"claim-check-raw-value": "true"})
    _encode(config, _row())
    (stored,) = _stored(tmp_path)
    assert json.loads(stored.read_bytes())["data"] == [{"id": "7", "body": BIG}]
    (back,) = _decode(_reader(tmp_path, **{"claim-check-raw-value": "true"}), _encode(config, _row()))
    assert [c.value for c in back.image] == [7, BIG]


@pytest.mark.parametrize("compression", ["snappy", "lz4"])
@pytest.mark.parametrize("raw", ["false", "true"])
def test_with_compression_the_compressed_value_is_stored_and_reads_back(tmp_path, compression, raw):
    import cramjam

    big = os.urandom(1500).hex()  # compresses little: still too large compressed
    params = {"large-message-handle-compression": compression, "claim-check-raw-value": raw}
    value = _encode(_config(tmp_path, **params), _row(body=big))
    (stored,) = _stored(tmp_path)
    data = stored.read_bytes()
    if raw == "false":
        data = base64.b64decode(json.loads(data)["value"])
    plain = cramjam.snappy.decompress_raw(data) if compression == "snappy" else cramjam.lz4.decompress(data)
    assert json.loads(bytes(plain))["data"][0]["body"] == big
    (back,) = _decode(_reader(tmp_path, **params), value)
    assert [c.value for c in back.image] == [7, big]


def test_rows_that_fit_are_sent_whole_and_nothing_is_stored(tmp_path):
    doc = json.loads(_encode(_config(tmp_path), _row(body="small")))
    assert doc["data"] == [{"id": "7", "body": "small"}] and doc["_tidb"] == {"commitTs": TS}
    assert _stored(tmp_path) == []


def test_the_object_is_stored_before_its_pointer_is_yielded(tmp_path):
    payloads = CanalJSONEncoder(CanalOptions.from_config(_config(tmp_path))).encode([_row()])
    pointer = json.loads(next(payloads).value)
    assert Path(pointer["_tidb"]["claimCheckLocation"].removeprefix("file://")).exists()


def test_an_object_deleted_before_it_is_read_is_a_decode_error_naming_the_location(tmp_path):
    value = _encode(_config(tmp_path), _row())
    location = json.loads(value)["_tidb"]["claimCheckLocation"]
    for stored in _stored(tmp_path):
        stored.unlink()
    with pytest.raises(DecodeError, match="missing") as caught:
        _decode(_reader(tmp_path), value)
    assert location in str(caught.value)
    assert str(caught.value).startswith("t/0/5: ")


def test_a_location_in_another_directory_resolves_by_file_name_in_the_readers_storage(tmp_path):
    writer_storage, reader_storage = tmp_path / "written", tmp_path / "copied"
    value = _encode(_config(writer_storage), _row())
    reader_storage.mkdir()
    for stored in _stored(writer_storage):
        stored.rename(reader_storage / stored.name)
    (back,) = _decode(_reader(reader_storage), value)
    assert [c.value for c in back.image] == [7, BIG]


def test_a_location_climbing_out_of_the_storage_reads_only_from_the_storage(tmp_path):
    storage = tmp_path / "storage"
    value = _encode(_config(storage), _row())
    (stored,) = _stored(storage)
    stored.rename(storage / "passwd")  # the only "passwd" a reader may open: the storage's own
    pointer = json.loads(value)
    pointer["_tidb"]["claimCheckLocation"] = "../../etc/passwd"
    (back,) = _decode(_reader(storage), json.dumps(pointer).encode())
    assert [c.value for c in back.image] == [7, BIG]
    (storage / "passwd").unlink()
    with pytest.raises(DecodeError, match=r"'\.\./\.\./etc/passwd' is missing"):
        _decode(_reader(storage), json.dumps(pointer).encode())


def test_a_claim_checked_message_without_a_storage_configured_is_a_clear_decode_error(tmp_path):
    value = _encode(_config(tmp_path), _row())
    reader = protocol_config("canal-json", **{"enable-tidb-extension": "true"})
    with pytest.raises(DecodeError, match="claim-checked.*claim-check-storage-uri"):
        _decode(reader, value)


def test_a_storage_that_cannot_be_written_is_a_transport_error_naming_the_storage(tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    expected = f"claim-check storage: cannot write .* to file://{blocked}"
    with pytest.raises(TransportError, match=expected) as caught:
        _encode(_config(blocked), _row())
    assert not isinstance(caught.value, cdcwire.EncodeError)  # the storage failed, not the event


def test_a_pointer_too_large_is_a_message_too_large_error(tmp_path):
    row = (
        Column("id", ColumnType.VARCHAR, KEY, "k" * 1500),
        Column("body", ColumnType.VARCHAR, ColumnFlag(0), BIG),
    )
    with pytest.raises(MessageTooLargeError, match=r"s\.t .* even as a claim-check pointer"):
        _encode(_config(tmp_path), RowChangedEvent(TS, "s", "t", row, None))


def test_a_stored_message_of_another_row_is_refused(tmp_path):
    config = _config(tmp_path)
    pointer = json.loads(_encode(config, _row(table="t")))
    other = json.loads(_encode(config, _row(table="u")))
    pointer["_tidb"]["claimCheckLocation"] = other["_tidb"]["claimCheckLocation"]
    with pytest.raises(DecodeError, match="not the one the pointer stands for"):
        _decode(_reader(tmp_path), json.dumps(pointer).encode())


def test_a_stored_object_that_is_not_a_claim_check_object_is_a_decode_error(tmp_path):
    value = _encode(_config(tmp_path), _row())
    (stored,) = _stored(tmp_path)
    stored.write_bytes(b"[1, 2]")
    with pytest.raises(DecodeError, match="not a claim-check object"):
        _decode(_reader(tmp_path), value)


def test_a_bare_pointer_as_ticdc_7_wrote_it_resolves(tmp_path):
    value = _encode(_config(tmp_path), _row())
    bare = {"_tidb": {"claimCheckLocation": json.loads(value)["_tidb"]["claimCheckLocation"]}}
    (back,) = _decode(_reader(tmp_path), json.dumps(bare).encode())
    assert [c.value for c in back.image] == [7, BIG]


def test_the_carrier_reads_a_claim_checked_row_back_whole_and_stores_nothing(tmp_path):
    config = _config(tmp_path)
    back = open_sink(config).codec.carrier(config)(_row())
    assert not back.handle_key_only and [c.value for c in back.image] == [7, BIG]
    assert _stored(tmp_path) == []


def test_the_carrier_raises_for_a_pointer_too_large_as_the_encoder_does(tmp_path):
    config = _config(tmp_path)
    row = (
        Column("id", ColumnType.VARCHAR, KEY, "k" * 1500),
        Column("body", ColumnType.VARCHAR, ColumnFlag(0), BIG),
    )
    with pytest.raises(MessageTooLargeError, match="even as a claim-check pointer"):
        open_sink(config).codec.carrier(config)(RowChangedEvent(TS, "s", "t", row, None))


def test_columnar_decoding_of_pointers_gives_the_event_paths_events(tmp_path):
    config = _config(tmp_path)
    events = [_row("insert"), _row("update", body="small"), _row("delete")]
    messages = [
        cdcwire.Message("t", 0, None, p.value, i)
        for i, p in enumerate(CanalJSONEncoder(CanalOptions.from_config(config)).encode(events))
    ]
    columnar, by_event = columnar_and_event_decoding(_reader(tmp_path), messages)
    assert columnar == by_event and len(by_event) == 3
