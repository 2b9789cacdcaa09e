"""Paths stay inside the sink directory: topics that would leave it are refused by writers and
readers, and a path the file system refuses is a clear error."""

from __future__ import annotations

import re

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.sink_uri import parse_sink_uri
from cdcwire.transports.file import FileReader
from cdcwire.sink import open_sink

ESCAPING = [".", "..", "a/b", "../x", "/abs", "a\x00b", "a\\b", "", ".cdcwire", ".hidden"]


def sink(tmp_path):
    inner = tmp_path / "sink"
    inner.mkdir()
    return inner, f"file://{inner}/orders?protocol=echo-json&partition-num=1"


def everything_under(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize("topic", ESCAPING, ids=repr)
def test_a_writer_refuses_a_topic_that_is_not_one_plain_directory_name(tmp_path, topic):
    directory, uri = sink(tmp_path)
    refused = rf"topic {re.escape(repr(topic))} cannot be written or read under {re.escape(str(directory))}: "
    with pytest.raises(TransportError, match=refused):
        cdcwire.write(uri, [Message(topic, 0, None, b"v")])
    assert everything_under(tmp_path) == ["sink"]


@pytest.mark.parametrize("topic", ESCAPING, ids=repr)
def test_a_job_task_refuses_a_topic_that_is_not_one_plain_directory_name(tmp_path, topic):
    directory, uri = sink(tmp_path)
    config = parse_sink_uri(uri)
    job = open_sink(config).transport.begin_write(config, uri)
    with pytest.raises(TransportError, match="cannot be written or read under"):
        with job.task_writer() as w:
            w.write(Message(topic, 0, None, b"v"))
    job.discard()
    assert [p for p in everything_under(tmp_path) if not p.startswith("sink/.cdcwire")] == ["sink"]


@pytest.mark.parametrize("topic", ESCAPING, ids=repr)
def test_a_reader_refuses_a_topic_that_is_not_one_plain_directory_name(tmp_path, topic):
    directory, _ = sink(tmp_path)
    reader = FileReader(str(directory))
    with pytest.raises(TransportError, match="cannot be written or read under"):
        reader.partitions(topic)
    with pytest.raises(TransportError, match="cannot be written or read under"):
        list(reader.read(topic, 0))


def test_a_negative_partition_is_refused(tmp_path):
    _, uri = sink(tmp_path)
    with pytest.raises(TransportError, match="partition must be an integer >= 0, got -1"):
        cdcwire.write(uri, [Message("orders", -1, None, b"v")])


def test_cdcwire_bookkeeping_is_not_a_topic(tmp_path):
    directory, uri = sink(tmp_path)
    cdcwire.write(uri, [Message("orders", 0, None, b"v")])
    assert (directory / ".cdcwire").is_dir()
    assert FileReader(str(directory)).topics() == ["orders"]


def test_a_sink_directory_that_is_a_file_is_a_clear_error(tmp_path):
    (tmp_path / "sink").write_text("not a directory")
    with pytest.raises(TransportError, match=r"cannot write orders/0 under .*sink: .*\(.*sink\)"):
        cdcwire.write(f"file://{tmp_path}/sink/orders?protocol=echo-json", [Message("orders", 0, None, b"v")])
