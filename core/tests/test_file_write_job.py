"""FileTransport.begin_write: task writers stage, the driver publishes once, all or nothing."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.transports.file.transport import partition_path
from cdcwire.transports.file.job import FileWriteJob
from cdcwire.transports.file.staging import JOB_GRACE_S, staging_dir
from cdcwire.sinks.sink import open_sink


def uri(tmp_path, topic="orders", partitions=2):
    return f"file://{tmp_path}/{topic}?protocol=echo-json&partition-num={partitions}"


def begin(tmp_path, overwrite=False) -> FileWriteJob:
    config = parse_sink_uri(uri(tmp_path))
    return open_sink(config).transport.begin_write(config, uri(tmp_path), overwrite=overwrite)


def stage(job, messages) -> str:
    with job.task_writer() as w:
        w.write_all(messages)
    return w.receipt


def values(tmp_path, topic="orders"):
    return [(m.partition, m.offset, m.value) for m in cdcwire.read(uri(tmp_path, topic))]


def test_a_job_publishes_every_successful_task_at_once(tmp_path):
    job = begin(tmp_path)
    r0 = stage(job, [Message("orders", 0, None, b"a"), Message("orders", 0, None, b"b")])
    r1 = stage(job, [Message("orders", 1, None, b"c")])
    job.publish([r0, r1])
    assert values(tmp_path) == [(0, 0, b"a"), (0, 1, b"b"), (1, 0, b"c")]


def test_a_run_of_values_is_staged_as_the_same_messages_written_one_by_one(tmp_path):
    runs = [b"a", b"", b"c" * 70000]
    job = begin(tmp_path)
    with job.task_writer() as w:
        w.write_values("orders", 0, runs)
        w.write(Message("orders", 0, None, b"after"))
        w.write_values("orders", 1, [b"d"])
    job.publish([w.receipt])
    one_by_one = tmp_path / "one"
    one_by_one.mkdir()
    cdcwire.write(uri(one_by_one), [Message("orders", 0, None, v) for v in [*runs, b"after"]] + [Message("orders", 1, None, b"d")])
    assert values(tmp_path) == values(one_by_one) == [(0, 0, b"a"), (0, 1, b""), (0, 2, b"c" * 70000), (0, 3, b"after"), (1, 0, b"d")]
    for p in (0, 1):
        assert partition_path(tmp_path, "orders", p).read_bytes() == partition_path(one_by_one, "orders", p).read_bytes()


def test_a_run_of_values_to_a_partition_outside_the_topic_is_refused_before_staging(tmp_path):
    job = begin(tmp_path)
    with pytest.raises(TransportError, match="partition 5"):
        with job.task_writer() as w:
            w.write_values("orders", 5, [b"x"])


def test_nothing_is_visible_before_publish(tmp_path):
    job = begin(tmp_path)
    stage(job, [Message("orders", 0, None, b"a")])
    assert not partition_path(tmp_path, "orders", 0).exists()
    assert cdcwire.transports.file.transport.FileReader(str(tmp_path)).topics() == []


def test_publish_appends_to_what_the_topic_held(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"old")])
    job = begin(tmp_path)
    job.publish([stage(job, [Message("orders", 0, None, b"new")])])
    assert values(tmp_path) == [(0, 0, b"old"), (0, 1, b"new")]


def test_an_attempt_whose_receipt_is_not_published_leaves_nothing(tmp_path):
    job = begin(tmp_path)
    stage(job, [Message("orders", 0, None, b"lost executor")])  # a retried attempt: receipt never passed
    retry = stage(job, [Message("orders", 0, None, b"retry")])
    job.publish([retry])
    assert values(tmp_path) == [(0, 0, b"retry")]
    assert list(staging_dir(tmp_path).iterdir()) == []


def test_discard_removes_the_staging_of_every_attempt(tmp_path):
    job = begin(tmp_path)
    stage(job, [Message("orders", 0, None, b"a")])
    stage(job, [Message("orders", 1, None, b"b")])
    job.discard()
    job.discard()  # safe twice
    assert list(staging_dir(tmp_path).iterdir()) == []
    assert not (tmp_path / "orders").exists()


def test_a_job_travels_by_pickle_and_its_copies_stage_for_the_driver(tmp_path):
    job = begin(tmp_path)
    copy = pickle.loads(pickle.dumps(job))
    receipt = stage(copy, [Message("orders", 1, b"k", b"v")])
    job.publish([receipt])
    assert values(tmp_path) == [(1, 0, b"v")]


def test_a_copy_publishes_in_another_process_and_removes_the_staging(tmp_path):
    job = begin(tmp_path)  # Spark's data source commits in a worker process, not where the job began
    receipt = stage(pickle.loads(pickle.dumps(job)), [Message("orders", 0, None, b"v")])
    script = "import pickle, sys; job = pickle.loads(sys.stdin.buffer.read()); job.publish(sys.argv[1:])"
    subprocess.run([sys.executable, "-c", script, receipt], input=pickle.dumps(job), check=True)
    assert values(tmp_path) == [(0, 0, b"v")]
    assert list(staging_dir(tmp_path).iterdir()) == []


def test_a_copy_discards_the_job(tmp_path):
    job = begin(tmp_path)
    stage(job, [Message("orders", 0, None, b"v")])
    pickle.loads(pickle.dumps(job)).discard()
    assert list(staging_dir(tmp_path).iterdir()) == []


def test_the_repr_names_the_sink_and_the_job(tmp_path):
    job = begin(tmp_path)
    assert repr(job) == f"FileWriteJob({uri(tmp_path)!r}, {job.job})"
    assert job.all_or_nothing


def test_overwrite_replaces_the_topic_with_exactly_what_the_job_wrote(tmp_path):
    cdcwire.write(uri(tmp_path, partitions=4), [Message("orders", p, None, b"old") for p in range(4)])
    cdcwire.write(uri(tmp_path, "other"), [Message("other", 0, None, b"kept")])
    job = begin(tmp_path, overwrite=True)
    job.publish([stage(job, [Message("orders", 0, None, b"new0"), Message("orders", 1, None, b"new1")])])
    assert values(tmp_path) == [(0, 0, b"new0"), (1, 0, b"new1")]  # partitions 2 and 3 are empty now
    assert values(tmp_path, "other") == [(0, 0, b"kept")]


def test_overwrite_replaces_a_damaged_file(tmp_path):
    path = partition_path(tmp_path, "orders", 0)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"CDCWIRE1" + b"\x00" * 40)
    job = begin(tmp_path, overwrite=True)
    job.publish([stage(job, [Message("orders", 0, None, b"fresh")])])
    assert values(tmp_path) == [(0, 0, b"fresh")]


def test_a_receipt_whose_staged_file_changed_publishes_nothing(tmp_path):
    job = begin(tmp_path)
    good = stage(job, [Message("orders", 0, None, b"a")])
    bad = stage(job, [Message("orders", 1, None, b"b")])
    staged = next(staging_dir(tmp_path).glob(f"{job.job}/*/orders/1.cdcwire"))
    staged.write_bytes(staged.read_bytes()[:-1])
    with pytest.raises(TransportError, match=r"staged file .*1\.cdcwire holds \d+ bytes, its task wrote \d+"):
        job.publish([good, bad])
    assert not (tmp_path / "orders").exists()


def lose_a_driver(tmp_path):
    """A driver that began a job, had a task stage into it, and died without publish or discard."""
    script = (
        "import sys; from cdcwire.sinks.sink import open_sink, parse_sink_uri\n"
        "from cdcwire import Message\n"
        f"c = parse_sink_uri({'file://' + str(tmp_path) + '/orders?protocol=craft'!r})\n"
        "job = open_sink(c).transport.begin_write(c, c.uri)\n"
        "w = job.task_writer(); w.write(Message('orders', 0, None, b'x')); w.close()\n"
        "import os; os._exit(0)  # the driver dies: no publish, no discard\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    assert len(list(staging_dir(tmp_path).iterdir())) == 2  # the job's area and its lock file


def test_staging_a_lost_driver_left_is_swept_by_a_later_write_once_idle(tmp_path):
    lose_a_driver(tmp_path)
    day_ago = time.time() - JOB_GRACE_S - 60
    for path in staging_dir(tmp_path).rglob("*"):
        os.utime(path, (day_ago, day_ago))
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"y")])
    assert list(staging_dir(tmp_path).iterdir()) == []
    assert values(tmp_path) == [(0, 0, b"y")]


def test_an_unowned_job_staging_that_is_still_fresh_is_kept(tmp_path):
    lose_a_driver(tmp_path)  # or a job whose copies (in Spark workers) are still at work
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"y")])
    assert len(list(staging_dir(tmp_path).iterdir())) == 2


def kill_a_driver_while_it_publishes(tmp_path):
    """A driver killed after its publish appended to partition 0 and before it reached partition 1."""
    script = (
        "import os; from cdcwire.sinks.sink import open_sink, parse_sink_uri\n"
        "from cdcwire import Message; from cdcwire.transports.file import publish as file_publish\n"
        f"c = parse_sink_uri({'file://' + str(tmp_path) + '/orders?protocol=craft&partition-num=2'!r})\n"
        "job = open_sink(c).transport.begin_write(c, c.uri)\n"
        "w = job.task_writer()\n"
        "w.write(Message('orders', 0, None, b'x')); w.write(Message('orders', 1, None, b'x')); w.close()\n"
        "apply, applied = file_publish._apply, []\n"
        "def apply_then_die(*args):\n"
        "    if applied: os._exit(0)  # killed mid-publish: no commit, no discard\n"
        "    applied.append(apply(*args))\n"
        "file_publish._apply = apply_then_die\n"
        "job.publish([w.receipt])\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    assert list((tmp_path / ".cdcwire" / "journal").glob("*.journal"))  # the publish never committed


def test_staging_of_a_job_killed_while_publishing_is_swept_by_a_later_write_once_idle(tmp_path):
    cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"before")])
    kill_a_driver_while_it_publishes(tmp_path)
    day_ago = time.time() - JOB_GRACE_S - 60
    for path in staging_dir(tmp_path).rglob("*"):
        os.utime(path, (day_ago, day_ago))
    cdcwire.write(uri(tmp_path), [Message("orders", 1, None, b"after")])
    assert list(staging_dir(tmp_path).iterdir()) == []
    assert list((tmp_path / ".cdcwire" / "journal").iterdir()) == []
    assert values(tmp_path) == [(0, 0, b"before"), (1, 0, b"after")]
