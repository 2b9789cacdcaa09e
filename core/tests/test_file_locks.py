"""One writer per partition file: a second writer fails at once, naming the file; nothing is lost."""

from __future__ import annotations

import multiprocessing
import threading

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.transports.file.transport import partition_path
from cdcwire.sinks.sink import open_sink


def uri(tmp_path):
    return f"file://{tmp_path}/orders?protocol=echo-json&partition-num=2"


def writer(tmp_path):
    config = parse_sink_uri(uri(tmp_path))
    return open_sink(config).transport.writer(config)


def test_a_second_writer_of_a_partition_fails_naming_the_file(tmp_path):
    with writer(tmp_path) as first:
        first.write(Message("orders", 0, None, b"first"))
        second = writer(tmp_path)
        held = rf"{partition_path(tmp_path, 'orders', 0)}: another writer holds this partition file"
        with pytest.raises(TransportError, match=held):
            second.write(Message("orders", 0, None, b"second"))
        second.abort()
    assert [m.value for m in cdcwire.read(uri(tmp_path))] == [b"first"]


def test_writers_of_different_partitions_of_one_topic_work_side_by_side(tmp_path):
    with writer(tmp_path) as a, writer(tmp_path) as b:
        a.write(Message("orders", 0, None, b"a"))
        b.write(Message("orders", 1, None, b"b"))
    assert [(m.partition, m.value) for m in cdcwire.read(uri(tmp_path))] == [(0, b"a"), (1, b"b")]


def test_a_closed_writer_lets_the_next_one_write(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"a")])
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"b")])
    assert [m.value for m in cdcwire.read(uri(tmp_path))] == [b"a", b"b"]


def test_a_job_cannot_publish_to_a_partition_a_writer_holds(tmp_path):
    config = parse_sink_uri(uri(tmp_path))
    job = open_sink(config).transport.begin_write(config, uri(tmp_path))
    with job.task_writer() as task:
        task.write(Message("orders", 0, None, b"job"))
    with writer(tmp_path) as w:
        w.write(Message("orders", 0, None, b"writer"))
        with pytest.raises(TransportError, match="another writer holds this partition file"):
            job.publish([task.receipt])
    assert [m.value for m in cdcwire.read(uri(tmp_path))] == [b"writer"]


def _write_with_retries(sink_uri: str, name: str, batches: int, size: int) -> int:
    """Write ``batches`` batches to partition 0, retrying a batch whenever the partition is held;
    returns how many attempts found it held."""
    held = 0
    for b in range(batches):
        msgs = [Message("orders", 0, None, f"{name}-{b}-{i}".encode()) for i in range(size)]
        while True:
            try:
                cdcwire.write(sink_uri, msgs)
                break
            except TransportError as exc:
                if "another writer holds" not in str(exc):
                    raise
                held += 1
    return held


def _check_everything_arrived_once(tmp_path, writers, batches, size):
    values = [m.value for m in cdcwire.read(uri(tmp_path))]
    assert len(values) == writers * batches * size
    assert len(set(values)) == len(values)


def test_threads_racing_on_one_partition_lose_nothing(tmp_path):
    errors: list = []

    def run(name):
        try:
            _write_with_retries(uri(tmp_path), name, 10, 200)
        except BaseException as exc:  # surfaced below: a thread's exception would only be a warning
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(f"t{n}",)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    _check_everything_arrived_once(tmp_path, 4, 10, 200)


def test_processes_racing_on_one_partition_lose_nothing(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    craft_uri = f"file://{tmp_path}/orders?protocol=craft"  # a spawned process sees the installed codecs
    procs = [ctx.Process(target=_write_with_retries, args=(craft_uri, f"p{n}", 10, 300)) for n in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    _check_everything_arrived_once(tmp_path, 3, 10, 300)
