"""A file:// topic has a fixed partition count, as a Kafka topic has: recorded when the topic is
created, never grown by a stray write, never shrunk to the partitions written so far."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Message, SinkURIError, TransportError
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.transports.file.transport import FileReader, partition_path
from cdcwire.transports.file.paths import topic_file
from cdcwire.sinks.sink import open_sink


def uri(tmp_path: Path, partitions: int | None = 2) -> str:
    num = "" if partitions is None else f"&partition-num={partitions}"
    return f"file://{tmp_path}/orders?protocol=echo-json{num}"


def prepare(tmp_path: Path, partitions: int | None = 2) -> int:
    config = parse_sink_uri(uri(tmp_path, partitions))
    return open_sink(config).transport.prepare_topic(config, "orders")


def count(tmp_path: Path) -> int | None:
    config = parse_sink_uri(uri(tmp_path, None))
    return open_sink(config).transport.partition_count(config, "orders")


def older_cdcwire_topic(tmp_path: Path, partitions: list[int]) -> None:
    """A topic as an older cdcwire left it: partition files and no recorded count."""
    for p in partitions:
        cdcwire.write(uri(tmp_path, p + 1), [Message("orders", p, None, b"old %d" % p)])
        topic_file(tmp_path, "orders").unlink()


def test_prepare_topic_records_the_partition_count_of_a_new_topic(tmp_path: Path) -> None:
    """The count must outlive the call: it is written into the topic's directory at once."""
    assert prepare(tmp_path, 4) == 4
    assert json.loads(topic_file(tmp_path, "orders").read_text()) == {"partitions": 4}
    assert count(tmp_path) == 4


def test_a_write_outside_the_partition_count_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    """partition-num=2 and a message for partition 7: the topic must not silently grow, and the
    writer's other messages must not be published either (all or nothing)."""
    prepare(tmp_path)
    outside = r"partition 7 is outside the 2 partition\(s\) of topic 'orders' \(0-1\) under "
    with pytest.raises(TransportError, match=outside):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"in"), Message("orders", 7, None, b"out")])
    assert not partition_path(tmp_path, "orders", 0).exists()
    assert not partition_path(tmp_path, "orders", 7).exists()
    assert count(tmp_path) == 2


def test_a_write_to_an_unprepared_new_topic_is_held_to_partition_num(tmp_path: Path) -> None:
    """A writer used without prepare_topic gives a new topic the URI's partition-num, as a
    Kafka writer creates the topic: partition 2 of partition-num=2 is refused."""
    outside = r"partition 2 is outside the 2 partition\(s\) of topic 'orders'"
    with pytest.raises(TransportError, match=outside):
        cdcwire.write(uri(tmp_path), [Message("orders", 2, None, b"out")])
    assert not (tmp_path / "orders").exists()


def test_a_job_task_refuses_a_partition_outside_the_count_before_staging(tmp_path: Path) -> None:
    """Spark tasks write through task writers: they are held to the count as writers are."""
    prepare(tmp_path)
    config = parse_sink_uri(uri(tmp_path))
    job = open_sink(config).transport.begin_write(config, config.uri)
    try:
        writer = job.task_writer()
        with pytest.raises(TransportError, match=r"partition 3 is outside the 2 partition\(s\) of topic"):
            writer.write(Message("orders", 3, None, b"out"))
        writer.abort()
    finally:
        job.discard()
    assert count(tmp_path) == 2


def test_a_failed_writer_records_no_partition_count(tmp_path: Path) -> None:
    """A writer records a new topic's count when it publishes: one that fails leaves nothing."""
    config = parse_sink_uri(uri(tmp_path))
    writer = open_sink(config).transport.writer(config)
    writer.write(Message("orders", 0, None, b"never published"))
    writer.abort()
    assert not (tmp_path / "orders").exists()


def test_of_two_writers_creating_a_topic_the_second_obeys_the_first_count(tmp_path: Path) -> None:
    """Two writers of a new topic with different partition-num: the first to publish records
    its count; the other, staged for a partition outside it, publishes nothing."""
    small, large = parse_sink_uri(uri(tmp_path, 2)), parse_sink_uri(uri(tmp_path, 5))
    first, second = open_sink(small).transport.writer(small), open_sink(large).transport.writer(large)
    first.write(Message("orders", 0, None, b"first"))
    second.write(Message("orders", 1, None, b"second, inside"))
    second.write(Message("orders", 4, None, b"second, outside"))
    first.close()
    recorded = r"partition 4 is outside the 2 partition\(s\) of topic 'orders' .*nothing was published"
    with pytest.raises(TransportError, match=recorded):
        second.close()
    assert [m.value for m in cdcwire.read(uri(tmp_path))] == [b"first"]


def test_a_larger_partition_num_for_an_existing_topic_is_refused_naming_it(tmp_path: Path) -> None:
    """As for Kafka: a topic does not grow, so asking for more partitions than it has is an error."""
    prepare(tmp_path, 3)
    with pytest.raises(SinkURIError, match=r"partition-num=5 is larger than the 3 partition\(s\)") as error:
        prepare(tmp_path, 5)
    assert error.value.parameter == "partition-num"
    assert count(tmp_path) == 3


def test_a_topic_written_only_in_partition_0_keeps_the_count_it_was_created_with(tmp_path: Path) -> None:
    """partition-num=3 and writes that reached only partition 0: the topic still has 3
    partitions (the others empty), not 1, so a later URI without partition-num uses 3."""
    prepare(tmp_path, 3)
    cdcwire.write(uri(tmp_path, 3), [Message("orders", 0, None, b"only in 0")])
    assert count(tmp_path) == 3
    assert prepare(tmp_path, None) == 3
    reader = FileReader(str(tmp_path))
    assert reader.partitions("orders") == [0, 1, 2]
    assert reader.watermarks("orders", 2) == (0, 0)
    assert list(reader.read("orders", 2)) == []


def test_a_topic_an_older_cdcwire_wrote_counts_its_partition_files(tmp_path: Path) -> None:
    """No recorded count: the files give it (as before), so an old sink stays readable and
    appendable, within that count."""
    older_cdcwire_topic(tmp_path, [0, 1])
    assert count(tmp_path) == 2
    cdcwire.write(uri(tmp_path, None), [Message("orders", 1, None, b"new")])
    assert [m.value for m in cdcwire.read(uri(tmp_path, None))] == [b"old 0", b"old 1", b"new"]
    assert json.loads(topic_file(tmp_path, "orders").read_text()) == {"partitions": 2}


def test_a_topic_an_older_cdcwire_wrote_takes_a_larger_partition_num_once(tmp_path: Path) -> None:
    """An older cdcwire never fixed a count (partition-num=3 whose writes reached 0 and 1 left two
    files), so its old URI must still work: the first prepare records the larger partition-num."""
    older_cdcwire_topic(tmp_path, [0, 1])
    assert prepare(tmp_path, 3) == 3
    cdcwire.write(uri(tmp_path, 3), [Message("orders", 2, None, b"new")])
    assert count(tmp_path) == 3


def test_an_unreadable_partition_count_is_an_error_naming_its_file(tmp_path: Path) -> None:
    """A damaged record of the count must not be guessed around: the error names the file."""
    prepare(tmp_path)
    path = topic_file(tmp_path, "orders")
    path.write_text("{not json")
    unreadable = rf"{path}: the partition count of topic 'orders' cannot be read"
    with pytest.raises(TransportError, match=unreadable):
        cdcwire.write(uri(tmp_path), [Message("orders", 0, None, b"v")])
    with pytest.raises(TransportError, match=unreadable):
        FileReader(str(tmp_path)).partitions("orders")


def test_a_partition_num_beyond_what_a_file_topic_holds_is_refused_naming_the_limit(tmp_path):
    many = f"file://{tmp_path}/orders?protocol=echo-json&partition-num=1048576"
    with pytest.raises(SinkURIError, match=r"^parameter 'partition-num': 1048576 is more .* \(at most 1024") as info:
        cdcwire.write(many, [Message("orders", 0, None, b"x")])
    assert info.value.parameter == "partition-num"
    assert not (tmp_path / "orders").exists()


def test_a_write_to_every_partition_does_not_take_a_descriptor_per_partition(tmp_path):
    """Locks and staged files of 300 partitions under a limit of 100 open files."""
    script = (
        "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (100, 100))\n"
        "import cdcwire; from cdcwire import Message\n"
        f"uri = 'file://{tmp_path}/orders?protocol=canal-json&partition-num=300'\n"
        "print(cdcwire.write(uri, [Message('orders', p, None, b'tick') for p in range(300)] * 2))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (0, "600\n", "")
    back = list(cdcwire.read(f"file://{tmp_path}/orders?protocol=echo-json"))
    assert sorted((m.partition, m.offset) for m in back) == [(p, o) for p in range(300) for o in range(2)]
