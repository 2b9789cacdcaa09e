"""A damaged partition file: writers refuse it and leave it as it was; readers can skip damage."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.transports.file.transport import FileReader, partition_path

RECORD = 12 + 2 + 5  # header, key "kN"-sized, value "vNNNN"


def uri(tmp_path, extra="", partitions=1):
    return f"file://{tmp_path}/orders?protocol=echo-json&partition-num={partitions}{extra}"


def records(tmp_path, n, partitions=1):
    """Partition 0 of a topic holding records ``v0000``.. (``RECORD`` bytes each), written."""
    msgs = [Message("orders", 0, f"k{i % 10}".encode(), f"v{i:04d}".encode()) for i in range(n)]
    cdcwire.write(uri(tmp_path, partitions=partitions), msgs)
    path = partition_path(tmp_path, "orders", 0)
    assert path.stat().st_size == 8 + n * RECORD
    return path


def thousand_records(tmp_path, partitions=1):
    return records(tmp_path, 1000, partitions)


def damage(path, at, change):
    data = bytearray(path.read_bytes())
    data[at] = change(data[at])
    path.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize(
    "length_byte", [8, 11, 12, 15], ids=["key-len-high", "key-len-low", "value-len-high", "value-len-low"]
)
def test_a_damaged_length_in_record_0_stops_the_writer_and_keeps_all_1000_records(tmp_path, length_byte):
    path = thousand_records(tmp_path)
    before = damage(path, length_byte, lambda b: b ^ 0x40)
    with pytest.raises(TransportError, match=rf"{path}: record 0 at byte 8 .*damaged; refusing to append"):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"new")])
    assert path.read_bytes() == before


def test_a_crc_bad_record_mid_file_stops_the_writer_and_leaves_the_file_as_it_was(tmp_path):
    path = thousand_records(tmp_path)
    before = damage(path, 8 + 500 * RECORD + 14, lambda b: b ^ 0x01)  # a key byte of record 500
    with pytest.raises(TransportError, match=rf"record 500 at byte {8 + 500 * RECORD} fails its CRC check"):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"new")])
    assert path.read_bytes() == before


def test_a_writer_refused_for_damage_publishes_its_other_partitions_nothing(tmp_path):
    path = thousand_records(tmp_path, partitions=2)
    damage(path, 8 + 3 * RECORD + 14, lambda b: b ^ 0x01)
    with pytest.raises(TransportError, match="record 3"):
        cdcwire.write(
            uri(tmp_path, partitions=2),
            [Message("orders", 1, None, b"fine"), Message("orders", 0, None, b"new")],
        )
    assert not partition_path(tmp_path, "orders", 1).exists()


def test_a_strict_reader_stops_at_the_damaged_record_and_says_how_to_skip_it(tmp_path):
    path = thousand_records(tmp_path)
    damage(path, 8 + 500 * RECORD + 14, lambda b: b ^ 0x01)
    where = rf"orders/0: record 500 at byte {8 + 500 * RECORD}"
    with pytest.raises(TransportError, match=rf"{where} fails its CRC check \(read with skip-damaged=true"):
        list(cdcwire.read(uri(tmp_path)))


def test_skip_damaged_skips_a_crc_bad_record_and_later_records_keep_their_offsets(tmp_path, caplog):
    path = thousand_records(tmp_path)
    damage(path, 8 + 500 * RECORD + 14, lambda b: b ^ 0x01)
    reader = FileReader(str(tmp_path), skip_damaged=True)
    with caplog.at_level(logging.WARNING, "cdcwire.file"):
        back = list(reader.read("orders", 0))
    assert [m.offset for m in back] == [i for i in range(1000) if i != 500]
    assert back[500].value == b"v0501"
    assert [(d.record, d.byte, d.length, d.reason) for d in reader.damaged] == [
        (500, 8 + 500 * RECORD, RECORD, "fails its CRC check")
    ]
    assert "skipping damaged record: orders/0: record 500" in caplog.text


def test_skip_damaged_resynchronises_after_a_damaged_length(tmp_path):
    path = thousand_records(tmp_path)
    damage(path, 8, lambda b: b ^ 0x40)  # record 0's key length now runs past the end of the file
    reader = FileReader(str(tmp_path), skip_damaged=True)
    back = list(reader.read("orders", 0))
    assert [m.offset for m in back] == list(range(1, 1000))
    assert [(d.record, d.byte, d.reason) for d in reader.damaged] == [(0, 8, "is truncated (body)")]


def test_skip_damaged_is_a_uri_parameter(tmp_path):
    path = thousand_records(tmp_path)
    damage(path, 8 + 10 * RECORD + 14, lambda b: b ^ 0x01)
    assert len(list(cdcwire.read(uri(tmp_path, "&skip-damaged=true")))) == 999


def test_a_torn_tail_is_no_damage_and_reads_end_before_it(tmp_path):
    """An incomplete last record is a record not written yet: strict and skipping reads end
    before it and list no damage."""
    path = thousand_records(tmp_path)
    path.write_bytes(path.read_bytes()[:-5])
    reader = FileReader(str(tmp_path), skip_damaged=True)
    assert len(list(reader.read("orders", 0))) == 999
    assert reader.damaged == []
    assert len(list(FileReader(str(tmp_path)).read("orders", 0))) == 999


def test_an_incomplete_last_record_is_the_only_thing_a_writer_cuts(tmp_path, caplog):
    path = thousand_records(tmp_path)
    path.write_bytes(path.read_bytes()[:-5])  # the last record's write never finished
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"new")])
    back = list(cdcwire.read(uri(tmp_path)))
    assert len(back) == 1000 and back[-1].value == b"new" and back[-2].value == b"v0998"
    assert "dropping 14 bytes of a torn record" in caplog.text


def test_a_damaged_last_record_of_full_length_is_damage_not_a_torn_tail(tmp_path):
    path = thousand_records(tmp_path)
    before = damage(path, path.stat().st_size - 1, lambda b: b ^ 0x01)
    with pytest.raises(TransportError, match="record 999 .* fails its CRC check"):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"new")])
    assert path.read_bytes() == before


def test_strict_watermarks_stop_at_a_damaged_length_naming_file_record_and_byte(tmp_path: Path) -> None:
    """A length that runs past the end breaks the framing watermarks walk: they must not guess a
    count, but stop as a strict read stops, saying where and how to read past it."""
    path = thousand_records(tmp_path)
    damage(path, 8 + 700 * RECORD, lambda b: b ^ 0x40)  # record 700's key length, high byte
    where = rf"orders/0: record 700 at byte {8 + 700 * RECORD} is truncated \(body\)"
    with pytest.raises(TransportError, match=rf"{where} \(read with skip-damaged=true"):
        FileReader(str(tmp_path)).watermarks("orders", 0)


def test_skipping_watermarks_count_a_damaged_length_as_the_skipping_read_does(tmp_path: Path) -> None:
    """With skip-damaged the watermarks must bound what the skipping read gives: the damaged
    record keeps its one offset and every later record its own."""
    path = thousand_records(tmp_path)
    damage(path, 8, lambda b: b ^ 0x40)  # record 0's key length now runs past the end of the file
    reader = FileReader(str(tmp_path), skip_damaged=True)
    low, high = reader.watermarks("orders", 0)
    assert (low, high) == (0, 1000)
    assert [m.offset for m in reader.read("orders", 0, low, high)] == list(range(1, 1000))


def test_watermarks_end_before_a_torn_tail(tmp_path: Path) -> None:
    """A torn tail is not a record (the next write cuts it): high is where the next one goes."""
    path = thousand_records(tmp_path)
    path.write_bytes(path.read_bytes()[:-5])
    assert FileReader(str(tmp_path), skip_damaged=True).watermarks("orders", 0) == (0, 999)
    assert FileReader(str(tmp_path)).watermarks("orders", 0) == (0, 999)


def read_until_stopped(reader):
    """The records a skipping read gives, and the error it stops with (None: read to the end)."""
    back = []
    try:
        for m in reader.read("orders", 0):
            back.append(m)
    except TransportError as exc:
        return back, str(exc)
    return back, None


AT = 8 + 500 * RECORD  # where record 500 starts
DAMAGES = {  # a damage of record 500's neighbourhood, and the records it destroys
    "a byte inserted between records": (lambda d: d[:AT] + b"\x00" + d[AT:], []),
    "a byte inserted inside a record": (lambda d: d[:AT + 14] + b"\x00" + d[AT + 14:], [500]),
    "bytes deleted inside a record": (lambda d: d[:AT + 4] + d[AT + 12:], [500]),  # 11 bytes of it left
    "a record's length deleted across two": (lambda d: d[:AT + 10] + d[AT + 10 + RECORD:], [500, 501]),
}


@pytest.mark.parametrize("change", [change for change, _ in DAMAGES.values()], ids=DAMAGES.keys())
def test_without_an_offset_index_a_skipping_read_stops_where_it_cannot_tell_the_offsets_after(tmp_path, change):
    path = thousand_records(tmp_path)
    path.write_bytes(change(path.read_bytes()))
    back, error = read_until_stopped(FileReader(str(tmp_path), skip_damaged=True))
    assert [(m.offset, m.value) for m in back] == [(i, f"v{i:04d}".encode()) for i in range(500)]
    assert error.startswith(f"orders/0: record 500 at byte {AT} ") and "cannot be given their own offsets" in error


@pytest.mark.parametrize("change, lost", DAMAGES.values(), ids=DAMAGES.keys())
def test_with_an_offset_index_every_record_after_inserted_or_deleted_bytes_keeps_its_offset(tmp_path, change, lost):
    path = records(tmp_path, 3000)
    assert len(list(cdcwire.read(uri(tmp_path)))) == 3000  # a clean read writes the offset index
    path.write_bytes(change(path.read_bytes()))
    reader = FileReader(str(tmp_path), skip_damaged=True)
    back = list(reader.read("orders", 0))
    assert [(m.offset, m.value) for m in back] == [(i, f"v{i:04d}".encode()) for i in range(3000) if i not in lost]
    assert [(d.record, d.byte) for d in reader.damaged] == [(500, AT)]
    assert reader.watermarks("orders", 0) == (0, 3000)


def test_bytes_deleted_inside_record_17_never_give_record_18_offset_17(tmp_path):
    path = thousand_records(tmp_path)
    at = 8 + 17 * RECORD
    path.write_bytes(path.read_bytes()[:at + 2] + path.read_bytes()[at + 12:])  # 9 bytes of record 17 left
    back, error = read_until_stopped(FileReader(str(tmp_path), skip_damaged=True))
    assert [m.offset for m in back] == list(range(17)) and "cannot be given their own offsets" in error


def test_a_flipped_bit_anywhere_in_a_record_is_proven_one_record_and_later_offsets_kept(tmp_path):
    path = thousand_records(tmp_path)
    written = path.read_bytes()
    for byte in range(RECORD):  # its lengths, CRC, key and value
        path.write_bytes(written[:AT + byte] + bytes([written[AT + byte] ^ 0x10]) + written[AT + byte + 1:])
        back = list(FileReader(str(tmp_path), skip_damaged=True).read("orders", 0))
        assert [m.offset for m in back] == [i for i in range(1000) if i != 500], f"bit 4 of byte {byte}"


def test_a_read_that_meets_damage_leaves_the_offset_index_for_a_skipping_read_to_tell_offsets_with(tmp_path):
    path = records(tmp_path, 3000)
    assert len(list(cdcwire.read(uri(tmp_path)))) == 3000  # a clean read writes the offset index
    path.write_bytes(path.read_bytes()[:AT] + b"\x00" + path.read_bytes()[AT:])
    with pytest.raises(TransportError, match=rf"record 500 at byte {AT} "):
        list(FileReader(str(tmp_path)).read("orders", 0, 2500))  # its entry at 2048 has moved: walked, and stopped
    back = list(FileReader(str(tmp_path), skip_damaged=True).read("orders", 0, 2500))
    assert [(m.offset, m.value) for m in back] == [(i, f"v{i:04d}".encode()) for i in range(2500, 3000)]
