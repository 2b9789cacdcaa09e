from __future__ import annotations

import gc
import warnings
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.transports.file.transport import FileReader, partition_path


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


def test_a_torn_last_record_is_not_written_yet_and_a_damaged_length_before_records_is_damage(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, b"k", b"v" * 10), Message("orders", 0, b"k", b"w")])
    path = partition_path(tmp_path, "orders", 0)
    whole = path.read_bytes()
    path.write_bytes(whole[:-3])  # the last record's write has not finished (or never will)
    assert [m.value for m in cdcwire.read(uri(tmp_path))] == [b"v" * 10]
    damaged = bytearray(whole)
    damaged[8] ^= 0x40  # record 0's key length now runs past the end, with record 1 intact after it
    path.write_bytes(bytes(damaged))
    with pytest.raises(TransportError, match=r"orders/0: record 0 at byte 8 is truncated"):
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


def test_a_read_ends_where_the_partition_ended_when_read_was_called(tmp_path: Path) -> None:
    """A read planned once must give the same messages however late it is consumed: the end is
    taken at the call, not at the first next() (a generator would take it there)."""
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a"), Message("orders", 0, None, b"b")])
    reader = FileReader(str(tmp_path))
    pending = reader.read("orders", 0)
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"written after the call")])
    assert [m.value for m in pending] == [b"a", b"b"]


def test_a_read_dropped_unconsumed_closes_its_file(tmp_path: Path) -> None:
    """read() opens the file at the call; a result never consumed must not leak it (an unstarted
    generator holding the file could not close it, and Python would warn of an unclosed file)."""
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pending = FileReader(str(tmp_path)).read("orders", 0)
        del pending
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_watermarks_are_low_0_and_high_the_record_count(tmp_path: Path) -> None:
    """watermarks() bounds a read: [low, high) holds every record, high is the next offset."""
    cdcwire.write(uri(tmp_path), [Message("orders", 0, b"k", b"v" * i) for i in range(5)])
    reader = FileReader(str(tmp_path))
    assert reader.watermarks("orders", 0) == (0, 5)
    assert [m.offset for m in reader.read("orders", 0, 0, 5)] == [0, 1, 2, 3, 4]


def test_watermarks_count_records_by_their_headers_and_leave_crc_checks_to_the_read(
    tmp_path: Path,
) -> None:
    """watermarks() must not read every payload: it walks the record headers, so a value whose
    CRC fails still counts as its record, and the read (which checks every CRC) names it."""
    cdcwire.write(uri(tmp_path), [Message("orders", 0, b"k", b"value %d" % i) for i in range(3)])
    path = partition_path(tmp_path, "orders", 0)
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # a byte of the last value: its lengths, and so the framing, are intact
    path.write_bytes(bytes(data))
    reader = FileReader(str(tmp_path))
    assert reader.watermarks("orders", 0) == (0, 3)
    with pytest.raises(TransportError, match=r"orders/0: record 2 at byte \d+ fails its CRC check"):
        list(reader.read("orders", 0))


def test_watermarks_of_a_missing_partition_are_an_error_naming_it(tmp_path: Path) -> None:
    """A partition past the topic's count does not exist: watermarks() says so, as read() does."""
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a")])
    with pytest.raises(TransportError, match=r"partition orders/5 does not exist"):
        FileReader(str(tmp_path)).watermarks("orders", 5)
