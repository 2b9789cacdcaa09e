"""The Spark pipeline end to end: generated workload -> write -> read back equals the input
(per each protocol's Codec.carried), with the ordering promises, through files, Kafka and
the data source API."""

from __future__ import annotations

import threading
import time

import pytest

from cdcwire import spark as cs
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.spark.writer.encoding import EncodingTask, encode_routed
from cdcwire.spark.pipeline import WriteSummary
from cdcwire.spark.writer.routing import RoutePlan, UnplannedTopicError
from cdcwire.spark.writer.verify import compare
from cdcwire.workload import Workload
from cdcwire.sinks.sink import open_sink

from spark_cases import (
    PROTOCOLS,
    TaskAttempt,
    check_order,
    first_copies,
    protocol_query,
    routing_input,
    run_routing_task,
    shuffled,
    workload_file,
)


@pytest.fixture(scope="module")
def events(spark, tmp_path_factory):
    return cs.read_events(spark, workload_file(tmp_path_factory.mktemp("workload"))).cache()


@pytest.fixture
def registry_url(request) -> str:
    if "avro" not in PROTOCOLS:
        return ""
    return request.getfixturevalue("schema_registry").url


@pytest.mark.both_tiers
@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_file_sink_round_trip_equals_input_and_keeps_order(spark, events, tmp_path, protocol, registry_url):
    uri = f"file://{tmp_path}/events?{protocol_query(protocol, registry_url)}&partition-num=3"
    summary = cs.write(events, uri)
    assert summary.reconciles and summary.events_in == events.count()
    back = cs.read(spark, uri, topics="*")
    result = compare(events, back, uri)
    assert result.equal, result
    check_order(back.collect())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_kafka_round_trip_equals_input_and_keeps_order(spark, events, kafka_broker, kafka_topic, protocol, registry_url):
    uri = kafka_broker.uri(kafka_topic, partition_num=3) + "&" + protocol_query(protocol, registry_url, kafka_topic[:20])
    uri = uri.replace("protocol=open-protocol&", "", 1)  # the broker helper's default protocol
    summary = cs.write(events, uri)
    assert summary.reconciles
    assert summary.messages == sum(c.messages for c in summary.partitions.values())
    topics = None if protocol != "avro" else ",".join(sorted({t for t, _ in summary.partitions}))
    back = cs.read(spark, uri, topics=topics)
    result = compare(events, back, uri)
    assert result.equal, result
    check_order(back.collect())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_data_source_api_writes_prepared_frames_and_reads_back(spark, events, tmp_path, protocol, registry_url):
    uri = f"file://{tmp_path}/ds?{protocol_query(protocol, registry_url)}&partition-num=4"
    laid, _ = cs.prepare(events, uri)
    laid.write.format("cdcwire").option("sink-uri", uri).mode("append").save()
    back = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").load()
    result = compare(events, back, uri)
    assert result.equal, result
    check_order(back.collect())


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_data_source_api_writes_a_one_partition_event_frame_in_input_order(spark, events, tmp_path, protocol, registry_url):
    uri = f"file://{tmp_path}/ds1?{protocol_query(protocol, registry_url)}&partition-num=2"
    events.coalesce(1).write.format("cdcwire").option("sink-uri", uri).mode("append").save()
    back = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").load()
    result = compare(events, back, uri)
    assert result.equal, result
    check_order(back.collect())


def test_data_source_api_refuses_topic_rules_for_an_event_frame_it_would_dispatch(spark, events, tmp_path):
    uri = f"file://{tmp_path}/ds3?protocol=open-protocol&topic-rule=t_{{schema}}_{{table}}"
    with pytest.raises(Exception, match="cannot write an event DataFrame") as failure:
        events.coalesce(1).write.format("cdcwire").option("sink-uri", uri).mode("append").save()
    assert "resolved events" in str(failure.value) and "cdcwire.spark.write" in str(failure.value)


def test_data_source_api_refuses_a_topic_partition_fed_by_several_input_partitions(spark, events, tmp_path):
    uri = f"file://{tmp_path}/ds2?protocol=open-protocol&partition-num=2"
    with pytest.raises(Exception, match="from more than one input partition") as failure:
        events.repartition(3).write.format("cdcwire").option("sink-uri", uri).mode("append").save()
    assert "ds2/0" in str(failure.value) and "cdcwire.spark.write" in str(failure.value)


def test_transcode_open_protocol_to_canal_json_gives_the_input_events(spark, events, tmp_path):
    open_uri = f"file://{tmp_path}/open?protocol=open-protocol&partition-num=2"
    canal_uri = f"file://{tmp_path}/canal?protocol=canal-json&enable-tidb-extension=true&partition-num=3"
    cs.write(events, open_uri)
    summary = cs.transcode(spark, open_uri, canal_uri)
    assert summary.reconciles
    result = compare(events, cs.read(spark, canal_uri), canal_uri)
    assert result.equal, result


def test_kafka_broker_restart_mid_write_loses_nothing(spark, tmp_path, kafka_broker, kafka_topic):
    bigger = cs.read_events(spark, workload_file(tmp_path, events=6000, seed=11))
    uri = kafka_broker.uri(kafka_topic, partition_num=3)
    restarted: list[float] = []
    began: list[float] = []

    def restart() -> None:
        time.sleep(2.5)
        began.append(time.monotonic())
        restarted.append(kafka_broker.restart(down_seconds=1.0))

    thread = threading.Thread(target=restart)
    thread.start()
    summary = cs.write(bigger, uri)
    finished = time.monotonic()
    thread.join()
    assert restarted and began[0] < finished, "the broker restart must happen while the job writes"
    assert summary.reconciles
    back = cs.read(spark, uri)
    result = compare(bigger, back, uri)
    assert result.nothing_lost, result
    print(f"broker down {restarted[0]:.1f}s; duplicates read back: {result.duplicates}")
    assert result.actual == result.expected + result.duplicates
    check_order(first_copies(back.collect()))


def test_a_kafka_read_takes_the_messages_there_when_it_is_called(spark, tmp_path, kafka_broker, kafka_topic):
    """read() pins each partition's range at the call: what producers add later is in no action
    over that DataFrame (and a write with topic rules, which reads its input twice, sees one input)."""
    uri = kafka_broker.uri(kafka_topic, partition_num=2)
    some = cs.read_events(spark, workload_file(tmp_path, events=300, seed=5))
    cs.write(some, uri)
    there = cs.read(spark, uri).count()
    back = cs.read(spark, uri)
    cs.write(some, uri)  # a producer goes on after the read
    assert back.count() == there
    assert back.count() == there
    assert cs.read(spark, uri).count() == 2 * there


def test_a_route_plan_shows_its_sink_without_the_password():
    plan = RoutePlan("kafka://alice:SeCrEt@127.0.0.1:9092/t?protocol=open-protocol", {"t": 1}, (("t", 0),), (0,), None)
    assert "SeCrEt" not in repr(plan) and "alice:***@127.0.0.1:9092" in repr(plan)


def test_a_routing_task_run_twice_is_counted_once(tmp_path, monkeypatch):
    """Spark may run a routing task again (a retry, a recomputed stage, a speculative copy).
    Only one attempt's output goes through the shuffle, and the counts ride in it, so the
    summary built from the encoding stage's results still reconciles."""
    uri = f"file://{tmp_path}/twice?protocol=open-protocol&partition-num=2"
    plan = RoutePlan(uri, {"twice": 2}, (("twice", 0), ("twice", 1)), (0, 1), None)
    events = list(Workload(300, seed=2))
    batch = routing_input(events)
    run_routing_task(plan, [batch], TaskAttempt(0, attempt=0), monkeypatch)  # its output is lost
    kept = run_routing_task(plan, [batch], TaskAttempt(0, attempt=1), monkeypatch)
    config = parse_sink_uri(uri)
    job = open_sink(config).transport.begin_write(config, uri)
    encoded = encode_routed(EncodingTask(job, uri), iter(shuffled(kept)))
    results = [row for result in encoded for row in result.to_pylist()]
    job.discard()
    summary = WriteSummary.from_results(uri, results, seconds=1.0)
    assert summary.events_in == len(events)
    assert summary.reconciles, summary.report()


def test_an_event_of_an_unplanned_topic_fails_the_task_even_with_a_dead_letter_path(tmp_path, monkeypatch):
    """The planning action saw other tables than routing does (an input that changed between
    the two reads): a job error, never a dead letter."""
    uri = f"file://{tmp_path}/x?protocol=open-protocol&topic-rule=t_{{schema}}_{{table}}&partition-num=1"
    plan = RoutePlan(uri, {"x": 1, "t_shop_orders": 1}, (("t_shop_orders", 0), ("x", 0)), (0, 1), str(tmp_path / "dead"))
    events = [e for e in Workload(200, seed=2) if getattr(e, "table", "") in ("orders", "customers")]
    with pytest.raises(UnplannedTopicError, match="'t_shop_customers', which was not planned"):
        run_routing_task(plan, [routing_input(events)], TaskAttempt(0, attempt=0), monkeypatch)


def test_with_output_raw_change_event_key_changing_updates_travel_whole(spark, events, tmp_path):
    split_uri = f"file://{tmp_path}/split/t?protocol=canal-json&enable-tidb-extension=true&partition-num=3"
    raw_uri = f"file://{tmp_path}/raw/t?protocol=canal-json&enable-tidb-extension=true&partition-num=3&output-raw-change-event=true"
    split, raw = cs.write(events, split_uri), cs.write(events, raw_uri)
    assert raw.reconciles and raw.copies < split.copies  # the workload changes keys; each such update is one copy
    back = cs.read(spark, raw_uri, topics="*")
    assert compare(events, back, raw_uri).equal
    updates_in = events.where("kind = 'update'").count()
    assert back.where("kind = 'update'").count() == updates_in
