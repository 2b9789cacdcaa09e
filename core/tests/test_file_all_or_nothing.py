"""A write to file:// lands whole or not at all: an aborted writer, a crash in the middle of a
publish (rolled back by the next writer) and a failed publish leave the partition files as they were."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.sinks.sink import open_sink
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.transports.file import checks as file_checks
from cdcwire.transports.file.transport import FileReader, partition_path
from cdcwire.transports.file.paths import internal_dir


def uri(tmp_path):
    return f"file://{tmp_path}/orders?protocol=echo-json&partition-num=2"


def contents(tmp_path):
    return [(m.partition, m.offset, m.value) for m in cdcwire.read(uri(tmp_path))]


def test_a_write_that_fails_halfway_publishes_nothing(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"before")])

    def messages():
        yield Message("orders", 0, None, b"a")
        yield Message("orders", 1, None, b"b")
        raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError):
        cdcwire.write(uri(tmp_path), messages())
    assert contents(tmp_path) == [(0, 0, b"before")]
    assert not partition_path(tmp_path, "orders", 1).exists()


def test_an_aborted_writer_leaves_no_staging_and_no_lock_held(tmp_path):
    config = parse_sink_uri(uri(tmp_path))
    w = open_sink(config).transport.writer(config)
    w.write(Message("orders", 0, None, b"a"))
    w.abort()
    assert list(internal_dir(tmp_path, "staging").iterdir()) == []
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"b")])
    assert contents(tmp_path) == [(0, 0, b"b")]


CRASH = """
import os, sys
from cdcwire import Message
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.transports.file import publish as file_publish
from cdcwire.sinks.sink import open_sink
directory, mode = sys.argv[1], sys.argv[2]
overwrite = mode == "overwrite"
real_apply, done = file_publish._apply, []

def apply_then_die(*args):
    if done:  # the first partition is written whole, the second half-way: then the process dies
        real_copy = file_publish._copy_records
        def half(src, out):
            data = open(src, "rb").read()
            out.write(data[8 : 8 + (len(data) - 8) // 2]); out.flush(); os._exit(3)
        file_publish._copy_records = half
        if mode != "append":  # die between the first partition and the second
            os._exit(3)
    real_apply(*args)
    done.append(1)

file_publish._apply = apply_then_die
c = parse_sink_uri(f"file://{directory}/orders?protocol=craft")
msgs = [Message("orders", p, None, b"crashed-%d" % i) for p in (0, 1) for i in range(50)]
if overwrite:
    job = open_sink(c).transport.begin_write(c, c.uri, overwrite=True)
    w = job.task_writer(); w.write_all(msgs); w.close(); job.publish([w.receipt])
else:
    with open_sink(c).transport.writer(c) as w:
        w.write_all(msgs)
"""


def crash_in_publish(tmp_path, mode="append"):
    """Run a write in another process that dies in the middle of its publish."""
    done = subprocess.run([sys.executable, "-c", CRASH, str(tmp_path), mode])
    assert done.returncode == 3
    assert list(internal_dir(tmp_path, "journal").glob("*.journal"))


def test_a_crash_mid_publish_is_rolled_back_by_the_next_writer(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"p0"), Message("orders", 1, None, b"p1")])
    crash_in_publish(tmp_path)
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"next")])
    assert contents(tmp_path) == [(0, 0, b"p0"), (0, 1, b"next"), (1, 0, b"p1")]
    assert list(internal_dir(tmp_path, "journal").iterdir()) == []


def test_a_crash_mid_publish_into_new_partition_files_is_rolled_back(tmp_path):
    crash_in_publish(tmp_path, "between")
    cdcwire.write(uri(tmp_path), [Message("orders", 1, None, b"next")])
    assert contents(tmp_path) == [(1, 0, b"next")]


def test_readers_do_not_see_a_publish_that_crashed(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"p0"), Message("orders", 1, None, b"p1")])
    crash_in_publish(tmp_path)
    assert partition_path(tmp_path, "orders", 0).stat().st_size > 100  # the crashed append is in the file
    assert contents(tmp_path) == [(0, 0, b"p0"), (1, 0, b"p1")]


def test_a_crashed_overwrite_is_rolled_back_to_the_old_files(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"p0"), Message("orders", 1, None, b"p1")])
    crash_in_publish(tmp_path, "overwrite")
    assert contents(tmp_path)[0] == (0, 0, b"crashed-0")  # the crash came after the first rename
    cdcwire.write(uri(tmp_path), [Message("orders", 1, None, b"next")])
    assert contents(tmp_path) == [(0, 0, b"p0"), (1, 0, b"p1"), (1, 1, b"next")]


def test_a_job_publish_refused_for_one_partition_changes_no_other(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"p0"), Message("orders", 1, None, b"p1")])
    path = partition_path(tmp_path, "orders", 1)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    config = parse_sink_uri(uri(tmp_path))
    job = open_sink(config).transport.begin_write(config, uri(tmp_path))
    with job.task_writer() as w:
        w.write_all([Message("orders", 0, None, b"new0"), Message("orders", 1, None, b"new1")])
    with pytest.raises(TransportError, match=r"orders/1\.cdcwire: record 0 at byte 8 fails its CRC check"):
        job.publish([w.receipt])
    assert [m.value for m in FileReader(str(tmp_path)).read("orders", 0)] == [b"p0"]
    assert path.read_bytes() == bytes(data)


def test_a_remembered_check_is_not_trusted_once_the_file_changed(tmp_path, monkeypatch):
    monkeypatch.setattr(file_checks, "RACY_NS", 0)
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a"), Message("orders", 0, None, b"b")])
    time.sleep(0.05)  # past the file system's clock tick
    path = partition_path(tmp_path, "orders", 0)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(TransportError, match="record 1 .* fails its CRC check"):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"c")])


def test_a_reader_racing_with_a_writer_sees_whole_writes_only(tmp_path):
    seen: list[int] = []
    errors: list[BaseException] = []
    writing = threading.Event()
    writing.set()

    def read_until_done():
        while writing.is_set():
            try:
                if partition_path(tmp_path, "orders", 0).exists():
                    seen.append(len(list(cdcwire.read(uri(tmp_path), partitions=[0]))))
            except BaseException as exc:  # surfaced below
                errors.append(exc)

    reader = threading.Thread(target=read_until_done)
    reader.start()
    try:
        for b in range(30):
            cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"%d-%d" % (b, i)) for i in range(100)])
    finally:
        writing.clear()
        reader.join()
    assert errors == []
    assert seen and all(n % 100 == 0 for n in seen)
