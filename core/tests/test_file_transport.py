from __future__ import annotations

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.transports.file import partition_path


def uri(tmp_path, topic="orders"):
    return f"file://{tmp_path}/{topic}?protocol=echo-json&partition-num=2"


def test_messages_read_back_equal_with_offsets_in_order(tmp_path):
    msgs = [Message("orders", i % 2, f"k{i}".encode(), f"v{i}".encode()) for i in range(6)]
    assert cdcwire.write(uri(tmp_path), msgs) == 6
    back = list(cdcwire.read(uri(tmp_path)))
    assert [(m.partition, m.key, m.value) for m in back] == [
        (0, b"k0", b"v0"), (0, b"k2", b"v2"), (0, b"k4", b"v4"),
        (1, b"k1", b"v1"), (1, b"k3", b"v3"), (1, b"k5", b"v5"),
    ]
    assert [m.offset for m in back] == [0, 1, 2, 0, 1, 2]


def test_null_and_empty_keys_and_values_are_kept_apart(tmp_path):
    msgs = [Message("orders", 0, None, b""), Message("orders", 0, b"", None)]
    cdcwire.write(uri(tmp_path), msgs)
    assert [(m.key, m.value) for m in cdcwire.read(uri(tmp_path))] == [(None, b""), (b"", None)]


def test_writes_append_like_a_log(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a")])
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"b")])
    assert [(m.offset, m.value) for m in cdcwire.read(uri(tmp_path))] == [(0, b"a"), (1, b"b")]


def test_a_torn_record_is_reported_with_its_place(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, b"k", b"v" * 10), Message("orders", 0, b"k", b"w")])
    path = partition_path(tmp_path, "orders", 0)
    path.write_bytes(path.read_bytes()[:-3])
    with pytest.raises(TransportError, match=r"orders/0: record 1 at byte \d+ is truncated"):
        list(cdcwire.read(uri(tmp_path)))


def test_a_flipped_byte_fails_the_crc_check(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, b"k", b"value")])
    path = partition_path(tmp_path, "orders", 0)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(TransportError, match="record 0 .* fails its CRC check"):
        list(cdcwire.read(uri(tmp_path)))


def test_a_foreign_file_is_rejected(tmp_path):
    path = partition_path(tmp_path, "orders", 0)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"hello world")
    with pytest.raises(TransportError, match="not a cdcwire message file"):
        list(cdcwire.read(uri(tmp_path)))


def test_reading_a_missing_topic_is_a_clear_error(tmp_path):
    with pytest.raises(TransportError, match="topic 'orders' does not exist"):
        list(cdcwire.read(uri(tmp_path)))


TORN_IN_HEADER = b"\x00\x00\x00"
TORN_IN_BODY = b"\x00\x00\x00\x01\x00\x00\x00\x09\x00\x00\x00\x00kvv"


@pytest.mark.parametrize("torn", [TORN_IN_HEADER, TORN_IN_BODY], ids=["in-header", "in-body"])
def test_appending_after_a_torn_write_drops_the_torn_record_and_keeps_the_log_readable(
    tmp_path, torn, caplog
):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a")])
    path = partition_path(tmp_path, "orders", 0)
    path.write_bytes(path.read_bytes() + torn)  # a writer died in the middle of a record
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"b")])
    assert [(m.offset, m.value) for m in cdcwire.read(uri(tmp_path))] == [(0, b"a"), (1, b"b")]
    assert f"dropping {len(torn)} bytes of a torn record" in caplog.text


def test_a_flip_between_no_key_and_empty_key_fails_the_crc_check(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"v")])
    path = partition_path(tmp_path, "orders", 0)
    data = bytearray(path.read_bytes())
    data[8:12] = b"\x00\x00\x00\x00"  # key length: "none" becomes "empty"
    path.write_bytes(bytes(data))
    with pytest.raises(TransportError, match="record 0 .* fails its CRC check"):
        list(cdcwire.read(uri(tmp_path)))


def test_appending_to_a_foreign_file_is_refused(tmp_path):
    path = partition_path(tmp_path, "orders", 0)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"hello world")
    refused = r"not a cdcwire message file \(bad magic .*\); refusing to append"
    with pytest.raises(TransportError, match=refused):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"v")])
    assert path.read_bytes() == b"hello world"
