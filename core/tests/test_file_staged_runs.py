"""A file:// task writer takes runs of messages staged outside Python (Spark's Java tier) as its
own: the first run adopted in place, a later one appended after what the writer wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

import cdcwire
from cdcwire import CdcwireError, Message, TransportError
from cdcwire.contract.transport import StagedRun
from cdcwire.sinks.sink import open_sink, parse_sink_uri
from cdcwire.transports.file.framing import MAGIC, frame
from cdcwire.transports.file.job import FileWriteJob


def uri(tmp_path, topic="orders"):
    return f"file://{tmp_path}/{topic}?protocol=echo-json&partition-num=2"


def begin(tmp_path) -> FileWriteJob:
    config = parse_sink_uri(uri(tmp_path))
    return open_sink(config).transport.begin_write(config, uri(tmp_path))


def staged_elsewhere(job: FileWriteJob, attempt: str, segment: int, partition: int, values: list[bytes]) -> StagedRun:
    """What FramedStaging.java stages: segment 0 the attempt's file (magic first), a later one a piece."""
    area = Path(job.staging_area()) / attempt
    if segment:
        area = area / f".java-{segment}"
    path = area / "orders" / f"{partition}.cdcwire"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (MAGIC if segment == 0 else b"") + b"".join(frame(None, v) for v in values)
    path.write_bytes(data)
    return StagedRun("orders", partition, attempt, segment, len(data))


def values(tmp_path):
    return [(m.partition, m.value) for m in cdcwire.read(uri(tmp_path))]


def test_a_first_run_staged_elsewhere_is_adopted_as_the_writers_own_file(tmp_path):
    job = begin(tmp_path)
    with job.task_writer() as w:
        w.take_staged(staged_elsewhere(job, "a1", 0, 0, [b"a", b"b"]))
        w.write(Message("orders", 0, None, b"c"))
    job.publish([w.receipt])
    assert values(tmp_path) == [(0, b"a"), (0, b"b"), (0, b"c")]


def test_a_later_run_is_appended_after_what_the_writer_wrote(tmp_path):
    job = begin(tmp_path)
    with job.task_writer() as w:
        w.take_staged(staged_elsewhere(job, "a1", 0, 0, [b"a"]))
        w.write(Message("orders", 0, None, b"ddl"))
        w.take_staged(staged_elsewhere(job, "a1", 1, 0, [b"b", b"c"]))
        w.take_staged(staged_elsewhere(job, "a1", 1, 1, [b"x"]))
    job.publish([w.receipt])
    assert values(tmp_path) == [(0, b"a"), (0, b"ddl"), (0, b"b"), (0, b"c"), (1, b"x")]


def test_a_run_staged_after_the_writers_own_messages_is_appended_to_its_file(tmp_path):
    job = begin(tmp_path)
    with job.task_writer() as w:
        w.write(Message("orders", 0, None, b"first"))
        w.take_staged(staged_elsewhere(job, "java", 1, 0, [b"second"]))
    job.publish([w.receipt])
    assert values(tmp_path) == [(0, b"first"), (0, b"second")]


def test_a_piece_of_another_size_than_its_run_says_is_refused(tmp_path):
    job = begin(tmp_path)
    run = staged_elsewhere(job, "a1", 1, 0, [b"a"])
    with pytest.raises(TransportError, match=r"cannot stage orders/0 .* holds \d+ bytes, not 999"):
        with job.task_writer() as w:
            w.take_staged(StagedRun("orders", 0, run.attempt, 1, 999))


def test_a_run_outside_the_topics_partition_count_is_refused_as_a_message_is(tmp_path):
    job = begin(tmp_path)
    with pytest.raises(TransportError, match="partition 5"):
        with job.task_writer() as w:
            w.take_staged(StagedRun("orders", 5, "a1", 0, 8))


def test_a_failed_task_removes_the_attempt_it_adopted(tmp_path):
    job = begin(tmp_path)
    run = staged_elsewhere(job, "a1", 0, 0, [b"a"])
    with pytest.raises(RuntimeError):
        with job.task_writer() as w:
            w.take_staged(run)
            raise RuntimeError("the task failed")
    assert not (Path(job.staging_area()) / "a1").exists()


def test_only_a_job_that_stages_offers_a_staging_area(tmp_path):
    assert begin(tmp_path).staging_area().startswith(str(tmp_path))
    kafka_like = open_sink(parse_sink_uri(uri(tmp_path))).transport.writer(parse_sink_uri(uri(tmp_path)))
    with pytest.raises(CdcwireError, match="takes no messages staged elsewhere"):
        kafka_like.take_staged(StagedRun("orders", 0, "a1", 0, 8))
