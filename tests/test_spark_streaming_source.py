"""``spark.readStream.format("cdcwire")`` against a real broker, real files and a real Spark.

What a stream must promise: it gives what a batch read of the same messages gives (plus each
message's timestamp), starts where ``startingOffsets`` says, caps micro-batches, picks up new
partitions and topics, follows a ``file://`` partition being appended to, and, restarted from
its checkpoint while a producer keeps writing, reads every message exactly once.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pyspark.sql import functions as F

import cdcwire
from cdcwire import Message
from cdcwire import spark as cs
from cdcwire.spark.reader.message_ranges import MessageRange
from cdcwire.spark.reader.source_options import ending_offsets, starting_times
from cdcwire.spark.rows.schema import READ_EVENT_SCHEMA, SOURCE_READ_EVENT_SCHEMA
from cdcwire.spark.reader.stream_source import MessageEventsStreamReader, spread, starting_offsets
from cdcwire.transports.file.transport import partition_path
from cdcwire.transports.file.framing import frame
from cdcwire.workload import Workload

READ_COLUMNS = [f.name for f in READ_EVENT_SCHEMA.fields]


def events(n: int, seed: int = 3) -> list:
    return list(Workload(n, seed=seed, ddl_every=40))


def produce(uri: str, batch: list) -> list[Message]:
    messages = cdcwire.encode(uri, batch)
    cdcwire.write(uri, messages)
    return messages


def stream(spark, uri: str, **options: object):
    reader = spark.readStream.format("cdcwire").option("source-uri", uri)
    for name, value in options.items():
        reader = reader.option(name, value if isinstance(value, str) else json.dumps(value))
    return reader.load()


def run_available_now(df, checkpoint: Path, name: str):
    """Everything available now, into the memory table ``name``; the finished query."""
    query = (
        df.writeStream.format("memory").queryName(name).option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True).start()
    )
    query.awaitTermination(60)
    assert not query.isActive, "an availableNow query ends by itself"
    if query.exception() is not None:
        raise query.exception()
    return query


def run_into_parquet(df, checkpoint: Path, out: Path):
    """Everything available now, into Parquet files at ``out`` (a sink that, unlike the memory
    sink, restarts from its checkpoint); the finished query."""
    query = df.writeStream.format("parquet").option("path", str(out)).option("checkpointLocation", str(checkpoint))
    query = query.trigger(availableNow=True).start()
    query.awaitTermination(300)
    assert not query.isActive, "an availableNow query ends by itself"
    if query.exception() is not None:
        raise query.exception()
    return query


def rows(df) -> list[str]:
    """The rows as sorted JSON texts: a multiset compared in Python (these frames are small)."""
    return sorted(json.dumps(r.asDict(recursive=True), sort_keys=True, default=str) for r in df.collect())


def following(df, checkpoint: Path, name: str):
    """A running query into the memory table ``name``, triggered every 200 ms."""
    return (
        df.writeStream.format("memory").queryName(name).option("checkpointLocation", str(checkpoint))
        .trigger(processingTime="200 milliseconds").start()
    )


def same_rows(a, b) -> bool:
    return rows(a) == rows(b)


def places(df) -> Counter:
    return Counter(tuple(r) for r in df.select("topic", "partition", "offset").collect())


# -- without Spark ---------------------------------------------------------------------------


def test_the_cap_is_spread_by_backlog_deterministically_and_always_progresses():
    assert spread({"t/0": 10, "t/1": 30}, 100) == {"t/0": 10, "t/1": 30}
    assert spread({"t/0": 10, "t/1": 30}, 8) == {"t/0": 2, "t/1": 6}
    assert spread({"t/0": 1, "t/1": 1, "t/2": 1}, 2) == {"t/0": 1, "t/1": 1, "t/2": 0}
    assert spread({"t/0": 1000, "t/1": 1}, 1) == {"t/0": 1, "t/1": 0}
    assert sum(spread({f"t/{p}": 7 * p + 1 for p in range(9)}, 50).values()) == 50


def test_partitions_are_a_pure_function_of_the_offsets(tmp_path):
    reader = MessageEventsStreamReader({"source-uri": f"file://{tmp_path}/t?protocol=open-protocol"})
    start, end = {"t/0": 3, "t/1": 5, "u/0": 2}, {"t/0": 7, "t/1": 5, "t/2": 4, "u/0": 2, "u/1": 0}
    assert reader.partitions(start, end) == [MessageRange("t", 0, 3, 7), MessageRange("t", 2, None, 4)]
    assert reader.partitions(start, start) == []


# -- Kafka -------------------------------------------------------------------------------------


def test_a_stream_of_a_kafka_topic_equals_its_batch_read_with_timestamps(
    spark, kafka_broker, kafka_topic, tmp_path
):
    kafka_broker.create_topic(kafka_topic, 3)
    uri = kafka_broker.uri(kafka_topic, partition_num=3)
    before = datetime.now(timezone.utc) - timedelta(minutes=1)
    produce(uri, events(400))
    df = stream(spark, uri)
    assert df.isStreaming and df.schema == SOURCE_READ_EVENT_SCHEMA
    run_available_now(df, tmp_path / "ck", "kafka_whole")
    got = spark.table("kafka_whole")
    assert same_rows(got.select(*READ_COLUMNS), cs.read(spark, uri))
    stamps = [r["timestamp"] for r in got.select("timestamp").collect()]
    assert all(s is not None and before <= s.astimezone(timezone.utc) for s in stamps)


def test_a_query_restarted_from_its_checkpoint_reads_every_message_once(
    spark, kafka_broker, kafka_topic, tmp_path
):
    """Stopped mid-stream and started again from its checkpoint while a producer writes (before,
    across and after the restart): every event of the topic lands in the sink once, counted per
    offset (the parquet sink keeps what committed batches wrote)."""
    kafka_broker.create_topic(kafka_topic, 2)
    uri = kafka_broker.uri(kafka_topic, partition_num=2)
    workload = events(400, seed=11)
    produce(uri, workload[:100])
    rounds = [workload[i:i + 50] for i in range(100, len(workload), 50)]
    stopped = threading.Event()
    failures: list[BaseException] = []

    def producer() -> None:
        try:
            for n, batch in enumerate(rounds):
                if n == 3:
                    stopped.wait(30)  # the rest while the query restarts and after
                produce(uri, batch)
                time.sleep(0.1)
        except BaseException as exc:  # pragma: no cover - reported by the assertion below
            failures.append(exc)

    out, checkpoint = tmp_path / "out", tmp_path / "ck"

    def start():
        return (
            stream(spark, uri, maxOffsetsPerTrigger=40).writeStream.format("parquet")
            .option("path", str(out)).option("checkpointLocation", str(checkpoint))
            .trigger(processingTime="200 milliseconds").start()
        )

    thread = threading.Thread(target=producer, daemon=True)
    thread.start()
    query = start()
    deadline = time.monotonic() + 30
    while len(query.recentProgress) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    query.stop()
    stopped.set()
    first_run = sum(p.numInputRows for p in query.recentProgress)
    query = start()
    thread.join(30)
    assert not thread.is_alive() and not failures, failures
    query.processAllAvailable()
    query.stop()
    second_run = sum(p.numInputRows for p in query.recentProgress)
    assert first_run and second_run, "both runs read events"
    got = spark.read.parquet(str(out))
    expected = cs.read(spark, uri)
    assert places(got) == places(expected), "each message's events once, none missing"
    assert same_rows(got.select(*READ_COLUMNS), expected)


def test_a_partition_added_to_a_topic_is_read_from_its_first_message(
    spark, kafka_broker, kafka_topic, tmp_path
):
    from confluent_kafka.admin import NewPartitions

    kafka_broker.create_topic(kafka_topic, 1)
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    produce(uri, events(60))
    query = following(stream(spark, uri), tmp_path / "ck", "kafka_grown")
    try:
        query.processAllAvailable()
        admin = kafka_broker._admin()  # kept until the answer: a destroyed client never answers
        admin.create_partitions([NewPartitions(kafka_topic, 2)])[kafka_topic].result(timeout=30)
        grown = kafka_broker.uri(kafka_topic, partition_num=2)
        produce(grown, events(60, seed=5))
        query.processAllAvailable()
    finally:
        query.stop()
    got = spark.table("kafka_grown")
    assert same_rows(got.select(*READ_COLUMNS), cs.read(spark, grown))
    assert 0 in {o for (_, p, o) in places(got) if p == 1}


# -- file:// -------------------------------------------------------------------------------------


@pytest.fixture
def orders(tmp_path) -> str:
    """A file:// source of two partitions holding a small workload."""
    uri = f"file://{tmp_path}/src/orders?protocol=open-protocol&partition-num=2"
    produce(uri, events(200))
    return uri


def test_starting_offsets_latest_reads_only_what_comes_after(spark, orders, tmp_path):
    before = places(cs.read(spark, orders))
    query = following(stream(spark, orders, startingOffsets="latest"), tmp_path / "ck", "latest")
    try:
        query.processAllAvailable()
        assert spark.table("latest").isEmpty()
        produce(orders, events(100, seed=9))
        query.processAllAvailable()
    finally:
        query.stop()
    after = places(spark.table("latest"))
    assert after and after == places(cs.read(spark, orders)) - before
    assert spark.table("latest").where(F.col("timestamp").isNotNull()).isEmpty(), "file:// keeps none"


def test_starting_offsets_json_per_partition_with_earliest(spark, orders, tmp_path):
    starting = {"orders": {"0": 3, "1": -2}}
    run_available_now(stream(spark, orders, startingOffsets=starting), tmp_path / "ck", "json_start")
    expected = {k: n for k, n in places(cs.read(spark, orders)).items() if k[1] == 1 or k[2] >= 3}
    assert places(spark.table("json_start")) == expected
    with pytest.raises(Exception, match=r"startingOffsets gives no offset for orders/1"):
        run_available_now(
            stream(spark, orders, startingOffsets={"orders": {"0": 3}}), tmp_path / "ck2", "json_missing"
        )


def test_max_offsets_per_trigger_splits_the_backlog_into_capped_batches(spark, orders, tmp_path):
    cap = 7
    query = run_available_now(stream(spark, orders, maxOffsetsPerTrigger=cap), tmp_path / "ck", "capped")
    sizes = []
    for progress in query.recentProgress:
        source = progress.sources[0]
        begin = json.loads(source.startOffset or "null") or {}  # the first batch: none (all at 0)
        end = json.loads(source.endOffset)
        sizes.append(sum(end[k] - begin.get(k, 0) for k in end))
    messages = len(list(cdcwire.read(orders)))
    assert sum(sizes) == messages and len([s for s in sizes if s]) >= messages // cap
    assert max(sizes) == cap and all(s <= cap for s in sizes)
    assert places(spark.table("capped")) == places(cs.read(spark, orders))


def test_a_new_topic_matching_the_pattern_is_picked_up(spark, tmp_path):
    base = f"file://{tmp_path}/src"
    produce(f"{base}/app_a?protocol=open-protocol&partition-num=1", events(50))
    df = stream(spark, f"{base}/app_a?protocol=open-protocol", topics="app_*")
    query = following(df, tmp_path / "ck", "pattern")
    try:
        query.processAllAvailable()
        produce(f"{base}/app_b?protocol=open-protocol&partition-num=2", events(50, seed=4))
        query.processAllAvailable()
    finally:
        query.stop()
    got = places(spark.table("pattern"))
    assert {t for t, _, _ in got} == {"app_a", "app_b"}
    assert got == places(cs.read(spark, f"{base}/app_a?protocol=open-protocol", topics="app_*"))


def test_a_file_partition_is_followed_across_an_incomplete_last_record(spark, tmp_path):
    uri = f"file://{tmp_path}/src/follow?protocol=open-protocol&partition-num=1"
    messages = cdcwire.encode(uri, events(120))
    assert len(messages) >= 4
    cdcwire.write(uri, messages[:-1])
    path = partition_path(tmp_path / "src", "follow", 0)
    last = frame(messages[-1].key, messages[-1].value)
    with open(path, "ab") as f:
        f.write(last[:20])  # another process is appending the last message: half of it is there
    query = following(stream(spark, uri), tmp_path / "ck", "follow")
    try:
        query.processAllAvailable()
        assert {o for _, _, o in places(spark.table("follow"))} == set(range(len(messages) - 1))
        with open(path, "ab") as f:
            f.write(last[20:])
        query.processAllAvailable()
    finally:
        query.stop()
    assert places(spark.table("follow")) == places(cs.read(spark, uri))


def test_failfast_fails_the_query_naming_the_message_and_permissive_keeps_it(spark, tmp_path):
    uri = f"file://{tmp_path}/src/bad?protocol=open-protocol&partition-num=1"
    good = cdcwire.encode(uri, events(30))
    cdcwire.write(uri, [*good, Message("bad", 0, b"not a key", b"not a value")])
    with pytest.raises(Exception, match=rf"bad/0/{len(good)}"):
        run_available_now(stream(spark, uri), tmp_path / "ck", "failfast")
    run_available_now(stream(spark, uri, mode="PERMISSIVE"), tmp_path / "ck2", "permissive")
    bad = spark.table("permissive").where(F.col("_malformed").isNotNull()).collect()
    assert [(r["offset"], r["_malformed"]["source"]) for r in bad] == [(len(good), f"bad/0/{len(good)}")]


def test_write_stream_is_refused_pointing_to_write_stream(spark, tmp_path):
    uri = f"file://{tmp_path}/out/t?protocol=open-protocol"
    rate = spark.readStream.format("rate").load()
    with pytest.raises(Exception, match=r"cdcwire\.spark\.write_stream\(df, uri, checkpoint\)"):
        query = (
            rate.writeStream.format("cdcwire").option("sink-uri", uri)
            .option("checkpointLocation", str(tmp_path / "ck")).start()
        )
        try:
            query.awaitTermination(30)
            if query.exception() is not None:
                raise query.exception()
        finally:
            query.stop()


def test_starting_offsets_refuse_a_partition_in_other_than_ascii_digits():
    with pytest.raises(cdcwire.CdcwireError, match=r"orders/²: 0 is not an offset"):
        starting_offsets('{"orders": {"²": 0}}')


@pytest.mark.parametrize("option, value, reads", [
    ("endingOffsets", '{"orders": {"²": 5}}', ending_offsets),
    ("startingOffsetsByTimestamp", '{"orders": {"١": 1700000000000}}',
     lambda text: starting_times({"startingOffsetsByTimestamp": text})),
])
def test_every_per_partition_option_refuses_a_partition_in_other_than_ascii_digits(option, value, reads):
    with pytest.raises(cdcwire.CdcwireError, match=rf"option {option}: orders/.: \d+ is not an? "):
        reads(value)


# -- data loss ----------------------------------------------------------------------------------


def recreate(tmp_path: Path, uri: str, n: int) -> None:
    """Delete the topic ``orders`` and write it again with ``n`` events: its offsets restart."""
    import shutil

    shutil.rmtree(tmp_path / "src" / "orders")
    produce(uri, events(n, seed=11))


def test_a_topic_recreated_under_a_checkpoint_fails_the_query_naming_both_offsets(spark, orders, tmp_path):
    run_into_parquet(stream(spark, orders), tmp_path / "ck", tmp_path / "out")
    recreate(tmp_path, orders, 20)
    with pytest.raises(Exception, match=r"orders/\d: the stored offset \d+ is past the partition's end \d+.*failOnDataLoss"):
        run_into_parquet(stream(spark, orders), tmp_path / "ck", tmp_path / "out")


def test_fail_on_data_loss_false_reads_a_recreated_topic_from_its_earliest(spark, orders, tmp_path):
    run_into_parquet(stream(spark, orders), tmp_path / "ck", tmp_path / "out")
    before = spark.read.parquet(str(tmp_path / "out")).count()
    recreate(tmp_path, orders, 20)
    run_into_parquet(stream(spark, orders, failOnDataLoss="false"), tmp_path / "ck", tmp_path / "out")
    everything = places(spark.read.parquet(str(tmp_path / "out")))
    new_topic = places(cs.read(spark, orders))
    assert new_topic and sum(everything.values()) == before + sum(new_topic.values())
    assert all(everything[place] >= count for place, count in new_topic.items())


def test_an_unknown_stream_option_is_refused_naming_it_and_the_accepted_ones(spark, orders, tmp_path):
    with pytest.raises(Exception, match=r"has no option 'startingoffset'; it takes source-uri, topics, startingOffsets"):
        run_available_now(stream(spark, orders, startingOffset="earliest"), tmp_path / "ck", "unknown_option")
