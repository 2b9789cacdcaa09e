"""``startingTimestamp`` and ``startingOffsetsByTimestamp`` of ``format("cdcwire")``, stream and
batch, as Spark's Kafka source takes them: each partition starts at its first message of that
time or later, looked up through the transport's OffsetsCapability (Kafka's time index); a
transport without one (``file://``) is refused naming it."""

from __future__ import annotations

import json
import time

import pytest

import cdcwire
from cdcwire.spark.reader.source_options import starting_times
from cdcwire.spark.reader.stream_source import MessageEventsStreamReader
from cdcwire.workload import Workload


def produce(uri: str, events: list) -> None:
    cdcwire.write(uri, cdcwire.encode(uri, events))


def written_in_two_parts(kafka_broker, topic: str) -> tuple[str, int, int]:
    """A topic of 2 partitions written twice; the URI, the ms between the two writes, and how
    many messages the second wrote."""
    kafka_broker.create_topic(topic, 2)
    uri = kafka_broker.uri(topic, partition_num=2)
    produce(uri, list(Workload(60, seed=1)))
    time.sleep(0.05)
    between = int(time.time() * 1000)
    time.sleep(0.05)
    second = cdcwire.encode(uri, list(Workload(40, seed=2)))
    cdcwire.write(uri, second)
    return uri, between, len(second)


def stream_rows(spark, uri: str, checkpoint, name: str, **options: str):
    reader = spark.readStream.format("cdcwire").option("source-uri", uri)
    for key, value in options.items():
        reader = reader.option(key, value)
    query = (
        reader.load().writeStream.format("memory").queryName(name).option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True).start()
    )
    query.awaitTermination(120)
    if query.exception() is not None:
        raise query.exception()
    return spark.table(name)


def test_a_stream_from_starting_timestamp_reads_only_the_messages_written_since(
    spark, kafka_broker, kafka_topic, tmp_path
):
    uri, between, later = written_in_two_parts(kafka_broker, kafka_topic)
    got = stream_rows(spark, uri, tmp_path / "ck", "since_ts", startingTimestamp=str(between))
    places = {(r["partition"], r["offset"]) for r in got.select("partition", "offset").collect()}
    assert len(places) == later
    assert all(r["timestamp"].timestamp() * 1000 >= between for r in got.select("timestamp").collect())


def test_a_batch_read_from_starting_offsets_by_timestamp_takes_each_partition_from_its_time(
    spark, kafka_broker, kafka_topic
):
    uri, between, later = written_in_two_parts(kafka_broker, kafka_topic)
    by_partition = json.dumps({kafka_topic: {"0": between, "1": 0}})
    got = spark.read.format("cdcwire").option("source-uri", uri).option("startingOffsetsByTimestamp", by_partition).load()
    offsets = {p: {r["offset"] for r in got.where(f"partition = {p}").select("offset").collect()} for p in (0, 1)}
    messages = list(cdcwire.read(uri))
    assert offsets[0] == {m.offset for m in messages if m.partition == 0 and m.timestamp >= between}
    assert offsets[1] == {m.offset for m in messages if m.partition == 1}
    assert 0 < len(offsets[0]) < len([m for m in messages if m.partition == 0])


def test_starting_timestamp_on_file_is_refused_naming_the_transport(tmp_path):
    uri = f"file://{tmp_path}/orders?protocol=open-protocol&partition-num=1"
    produce(uri, list(Workload(5, seed=1)))
    reader = MessageEventsStreamReader({"source-uri": uri, "startingTimestamp": "1700000000000"})
    with pytest.raises(cdcwire.CdcwireError, match=r"^file:// has no consumer groups or message times, so option startingTimestamp"):
        reader.initialOffset()


def test_starting_offsets_by_timestamp_must_name_every_partition(kafka_broker, kafka_topic):
    uri, between, _ = written_in_two_parts(kafka_broker, kafka_topic)
    reader = MessageEventsStreamReader(
        {"source-uri": uri, "startingOffsetsByTimestamp": json.dumps({kafka_topic: {"0": between}})}
    )
    with pytest.raises(cdcwire.CdcwireError, match=rf"gives no time for {kafka_topic}/1: give every partition one"):
        reader.initialOffset()


def test_one_start_is_taken_not_two():
    with pytest.raises(cdcwire.CdcwireError, match="give one of startingTimestamp, startingOffsets"):
        starting_times({"startingtimestamp": "1", "startingoffsets": "earliest"})


def test_a_starting_timestamp_that_is_not_ms_is_refused():
    with pytest.raises(cdcwire.CdcwireError, match="startingTimestamp must be milliseconds since the epoch"):
        starting_times({"startingTimestamp": "2024-01-01"})
