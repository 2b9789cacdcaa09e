"""Paths stay inside the sink directory: topics that would leave it are refused by writers and
readers, and a path the file system refuses is a clear error."""

from __future__ import annotations

import re

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.transports.file.transport import FileReader
from cdcwire.sinks.sink import open_sink

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


STRAYS = ["².cdcwire", "١.cdcwire", "01.cdcwire", "1x.cdcwire", "notes.txt"]


@pytest.mark.parametrize("stray", STRAYS)
def test_a_stray_file_in_a_topic_directory_is_not_a_partition(tmp_path, stray):
    inner, uri = sink(tmp_path)
    cdcwire.write(uri, [Message("orders", 0, None, b"kept")])
    (inner / "orders" / stray).write_bytes(b"not cdcwire's")
    assert FileReader(str(inner)).partitions("orders") == [0]
    assert [m.value for m in cdcwire.read(uri)] == [b"kept"]


def test_inspect_reads_past_a_stray_superscript_digit_file(tmp_path, capsys):
    from cdcwire.cli import main

    inner, uri = sink(tmp_path)
    cdcwire.write(uri, cdcwire.encode(uri, [cdcwire.ResolvedEvent(7)]))
    (inner / "orders" / "².cdcwire").write_bytes(b"")
    assert main(["inspect", uri]) == 0
    assert capsys.readouterr().out == '{"type":"resolved","ts":7}\n'


def test_a_stray_file_is_warned_about_once(tmp_path, caplog):
    inner, uri = sink(tmp_path)
    cdcwire.write(uri, [Message("orders", 0, None, b"kept")])
    (inner / "orders" / "١.cdcwire").write_bytes(b"")
    for _ in range(3):
        list(cdcwire.read(uri))
    warned = [r.getMessage() for r in caplog.records if "١.cdcwire" in r.getMessage()]
    assert len(warned) == 1 and "not a partition file" in warned[0]
