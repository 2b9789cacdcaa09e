"""The file transport's offset index: a read from offset N starts near N, and never anywhere the
walk from the start of the file would not put it."""

from __future__ import annotations

import logging
import os
import struct
import zlib

import cdcwire
from cdcwire import Message
from cdcwire.sinks.sink import open_sink, parse_sink_uri
from cdcwire.transports.file.framing import read_frames
from cdcwire.transports.file.offset_index import INTERVAL, index_path
from cdcwire.transports.file.transport import FileReader, partition_path

RECORDS = 4 * INTERVAL + 500
HEAD = 8 + 16  # the index's magic, inode, interval, count
ENTRY = 20


def uri(tmp_path):
    return f"file://{tmp_path}/orders?protocol=echo-json&partition-num=1"


def write(tmp_path, n=RECORDS, first=0, width=5):
    msgs = [Message("orders", 0, f"k{i % 7}".encode(), f"v{i:0{width}d}".encode()) for i in range(first, first + n)]
    cdcwire.write(uri(tmp_path), msgs)


def read(tmp_path, start=None, end=None):
    reader = FileReader(str(tmp_path))
    return [(m.offset, m.key, m.value) for m in reader.read("orders", 0, start, end)]


def walked(tmp_path):
    """Every record's (offset, byte, CRC) by the frame walk from the start of the file."""
    seen = []
    with open(partition_path(tmp_path, "orders", 0), "rb") as f:
        for _ in read_frames(f, "orders/0", note=lambda *entry: seen.append(entry)):
            pass
    return seen


def entries(tmp_path):
    data = index_path(tmp_path, "orders", 0).read_bytes()
    count = struct.unpack_from(">I", data, HEAD - 4)[0]
    return [struct.unpack_from(">QQI", data, HEAD + i * ENTRY) for i in range(count)]


def rewrite_entry(tmp_path, i, byte):
    """The index with entry ``i`` pointing at ``byte``, its own CRC made right again (a
    well-formed index that is wrong about its file)."""
    path = index_path(tmp_path, "orders", 0)
    body = bytearray(path.read_bytes()[:-4])
    offset, _, crc = struct.unpack_from(">QQI", body, HEAD + i * ENTRY)
    struct.pack_into(">QQI", body, HEAD + i * ENTRY, offset, byte, crc)
    path.write_bytes(bytes(body) + struct.pack(">I", zlib.crc32(bytes(body))))


def test_a_whole_read_writes_an_index_whose_entries_are_where_the_frame_walk_finds_them(tmp_path):
    write(tmp_path)
    assert not index_path(tmp_path, "orders", 0).exists()
    assert len(read(tmp_path)) == RECORDS
    walk = walked(tmp_path)
    assert entries(tmp_path) == [walk[k * INTERVAL] for k in range(1, RECORDS // INTERVAL + 1)]


def test_reads_from_any_offset_with_an_index_equal_the_walk_from_the_start(tmp_path):
    write(tmp_path)
    everything = read(tmp_path)
    assert index_path(tmp_path, "orders", 0).exists()
    for start in (0, 1, INTERVAL - 1, INTERVAL, INTERVAL + 1, 3 * INTERVAL + 7, 4 * INTERVAL, RECORDS - 1):
        assert read(tmp_path, start, start + 3) == everything[start : start + 3], start
        assert read(tmp_path, start) == everything[start:], start


def test_a_read_from_an_indexed_offset_starts_at_its_entry_not_at_the_first_record(tmp_path):
    write(tmp_path)
    read(tmp_path)
    path = partition_path(tmp_path, "orders", 0)
    data = bytearray(path.read_bytes())
    data[walked(tmp_path)[10][1] + 14] ^= 1  # record 10 fails its CRC now
    path.write_bytes(bytes(data))  # same inode: written in place
    tail = read(tmp_path, 3 * INTERVAL)
    assert [o for o, _, _ in tail] == list(range(3 * INTERVAL, RECORDS))


def test_watermarks_with_an_index_count_as_the_walk_does_and_appends_extend_it(tmp_path):
    write(tmp_path)
    read(tmp_path)
    write(tmp_path, 2 * INTERVAL, first=RECORDS)
    assert FileReader(str(tmp_path)).watermarks("orders", 0) == (0, RECORDS + 2 * INTERVAL)
    everything = read(tmp_path, 0)
    assert [o for o, _, _ in everything] == list(range(RECORDS + 2 * INTERVAL))
    walk = walked(tmp_path)
    assert entries(tmp_path) == [walk[k * INTERVAL] for k in range(1, (RECORDS + 2 * INTERVAL) // INTERVAL + 1)]


def test_a_damaged_index_is_ignored_and_written_again(tmp_path):
    write(tmp_path)
    everything = read(tmp_path)
    path = index_path(tmp_path, "orders", 0)
    data = bytearray(path.read_bytes())
    data[HEAD + 9] ^= 0x10  # a byte position, the index's own CRC now fails
    path.write_bytes(bytes(data))
    assert read(tmp_path, 2 * INTERVAL + 5) == everything[2 * INTERVAL + 5 :]
    walk = walked(tmp_path)
    assert entries(tmp_path) == [walk[k * INTERVAL] for k in range(1, RECORDS // INTERVAL + 1)]


def test_an_entry_that_does_not_match_its_file_drops_the_index_with_a_warning(tmp_path, caplog):
    write(tmp_path)
    everything = read(tmp_path)
    walk = walked(tmp_path)
    rewrite_entry(tmp_path, 1, walk[2 * INTERVAL + 1][1])  # a real record, but not record 2 * INTERVAL
    with caplog.at_level(logging.WARNING, logger="cdcwire.file"):
        assert read(tmp_path, 2 * INTERVAL + 3) == everything[2 * INTERVAL + 3 :]
    assert "does not match its file at record 2048" in caplog.text
    assert entries(tmp_path) == [walk[k * INTERVAL] for k in range(1, RECORDS // INTERVAL + 1)]


def test_an_index_left_by_an_overwritten_file_is_not_used_for_the_new_one(tmp_path):
    write(tmp_path)
    read(tmp_path)
    stale = index_path(tmp_path, "orders", 0).read_bytes()
    msgs = [Message("orders", 0, None, f"longer value {i:06d}".encode()) for i in range(RECORDS)]
    config = parse_sink_uri(uri(tmp_path))
    job = open_sink(config).transport.begin_write(config, uri(tmp_path), overwrite=True)
    with job.task_writer() as w:
        w.write_all(msgs)
    job.publish([w.receipt])
    assert not index_path(tmp_path, "orders", 0).exists()  # the publisher removed it
    index_path(tmp_path, "orders", 0).write_bytes(stale)  # as a reader of the old file might have
    start = 3 * INTERVAL + 2
    assert [(o, v) for o, _, v in read(tmp_path, start, start + 2)] == [
        (start, f"longer value {start:06d}".encode()), (start + 1, f"longer value {start + 1:06d}".encode())
    ]


def test_a_file_cut_and_written_again_in_place_never_gets_a_position_from_its_old_index(tmp_path):
    write(tmp_path)
    read(tmp_path)
    path = partition_path(tmp_path, "orders", 0)
    walk = walked(tmp_path)
    os.truncate(path, walk[2 * INTERVAL + 100][1])  # same inode, records from 2148 on gone
    assert read(tmp_path, 2 * INTERVAL) == read(tmp_path)[2 * INTERVAL :]  # entries past the end unused
    write(tmp_path, 2 * INTERVAL, first=0, width=9)  # other records, other lengths, after the cut
    everything = [(o, v) for o, _, v in read(tmp_path, 0)]
    start = 3 * INTERVAL + 1
    assert [(o, v) for o, _, v in read(tmp_path, start, start + 1)] == everything[start : start + 1]


def test_a_directory_that_cannot_keep_an_index_is_still_read(tmp_path):
    write(tmp_path)
    index_path(tmp_path, "orders", 0).parent.parent.mkdir(parents=True, exist_ok=True)
    index_path(tmp_path, "orders", 0).parent.write_text("not a directory")
    assert [o for o, _, _ in read(tmp_path, RECORDS - 2)] == [RECORDS - 2, RECORDS - 1]
