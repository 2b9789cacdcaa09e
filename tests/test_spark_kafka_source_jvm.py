"""The ``kafka://`` message source in the JVM (``io.cdcwire.spark.KafkaRecords``) against the
Python data source it stands in for: on the JVM decoding tier, a read of a PLAINTEXT broker gives
the same messages, offsets and order from either source, for every compression codec a producer
sets, across range boundaries and past a transaction's control records, and starts no Python
worker; a source with SASL, TLS or consumer settings is read by the Python data source."""

from __future__ import annotations

import pytest
from confluent_kafka import Producer

import cdcwire
from cdcwire import spark as cs
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.file_source import REST_END
from cdcwire.spark.reader.message_source import READING_SETTING, framed_messages, reading_tier
from cdcwire.spark.reader.message_ranges import MessageRange, plan_message_ranges, ranges_to_json
from cdcwire.spark.reader.pinned_read import read_ranges
from cdcwire.testing.jvm_tiers import rows_in_order

from cdcwire.workload import Workload
from test_spark_java_encoding import every_kind_rows
from test_spark_file_source_jvm import on_source, python_workers_asked

MESSAGE_COLUMNS = ("topic", "partition", "offset", "key", "value")
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


def kafka_sink(kafka_broker, topic: str, partitions: int = 3, count: int = 60, rows=None,
               protocol: str = "canal-json", **params) -> str:
    """A ``protocol`` (canal-json) topic of ``partitions`` partitions holding the messages of ``rows`` (else of
    ``count`` rows of several tables), written by cdcwire."""
    kafka_broker.create_topic(topic, partitions)
    uri = kafka_broker.uri(topic, protocol, partition_num=partitions, **params)
    cdcwire.write(uri, cdcwire.encode(uri, rows if rows is not None else list(Workload(count, seed=7))))
    return uri


def messages_from_both_sources(spark, uri: str, ranges: list[MessageRange]) -> tuple[list, list, list]:
    """(the Python data source's messages, Java's messages, Java's rest rows) of ``ranges``, in read order."""
    python = (spark.read.format("cdcwire").option("source-uri", uri).option("ranges", ranges_to_json(ranges))
              .option("output", "messages").load().select(*MESSAGE_COLUMNS).collect())
    java = framed_messages(spark, open_sink(uri), ranges)
    rest = java.filter(java[REST_END].isNotNull()).collect()
    return python, java.filter(java[REST_END].isNull()).select(*MESSAGE_COLUMNS).collect(), rest


def events_from_both_sources(spark, uri: str, **read) -> tuple[list, list]:
    """(the Python source's events, the Java source's events) of ``cs.read(spark, uri, **read)`` (the URI's topic)."""
    return tuple(on_source(spark, s, lambda: rows_in_order(cs.read(spark, uri, **read))) for s in ("python", "auto"))


def test_kafka_messages_are_read_in_the_jvm_from_a_plaintext_broker(spark, kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, "canal-json")
    assert reading_tier(open_sink(uri), spark) == ("jvm", "Kafka's record batches are read in the JVM")


def test_a_topic_of_several_partitions_gives_the_python_sources_messages_in_order(spark, kafka_broker, kafka_topic):
    uri = kafka_sink(kafka_broker, kafka_topic, partitions=3, count=300)
    python, java, rest = messages_from_both_sources(spark, uri, plan_message_ranges(uri))
    assert rest == []
    assert java == python
    assert {r.partition for r in java} == {0, 1, 2}


@pytest.mark.parametrize("codec", CODECS)
def test_each_compression_codec_gives_the_python_sources_messages(spark, kafka_broker, kafka_topic, codec):
    uri = kafka_sink(kafka_broker, kafka_topic, partitions=2, count=200, compression=codec)
    python, java, rest = messages_from_both_sources(spark, uri, plan_message_ranges(uri))
    assert rest == []
    assert java == python
    assert len(java) > 0


def test_ranges_cut_mid_partition_give_the_python_sources_messages(spark, kafka_broker, kafka_topic):
    uri = kafka_sink(kafka_broker, kafka_topic, partitions=1, count=120)
    ranges = [MessageRange(kafka_topic, 0, 3, 17), MessageRange(kafka_topic, 0, 17, 40)]
    python, java, rest = messages_from_both_sources(spark, uri, ranges)
    assert rest == []
    assert java == python
    assert [r.offset for r in java] == list(range(3, 40))


@pytest.mark.parametrize("protocol", ["canal-json", "open-protocol", "craft"])
def test_a_read_from_a_mid_partition_start_gives_the_python_sources_events(spark, kafka_broker, kafka_topic, protocol):
    uri = kafka_sink(kafka_broker, kafka_topic, partitions=2, count=80, protocol=protocol)
    python, java = events_from_both_sources(spark, uri, start_offset=5)
    assert java == python
    assert len(java) > 0


def test_a_transactions_control_records_are_passed_over_as_the_python_source_passes_them(
    spark, kafka_broker, kafka_topic
):
    kafka_broker.create_topic(kafka_topic, 1)
    uri = kafka_broker.uri(kafka_topic, "canal-json", partition_num=1)
    producer = Producer({"bootstrap.servers": kafka_broker.bootstrap, "transactional.id": f"{kafka_topic}-tx"})
    producer.init_transactions(10)
    for n, commit in enumerate((True, False, True)):
        producer.begin_transaction()
        for i in range(5):
            producer.produce(kafka_topic, value=f"tx{n}-{i}".encode(), key=b"k", partition=0)
        producer.commit_transaction(10) if commit else producer.abort_transaction(10)
    producer.flush(10)
    del producer
    python, java, rest = messages_from_both_sources(spark, uri, plan_message_ranges(uri))
    assert rest == []
    assert java == python
    assert [bytes(r.value) for r in java] == [f"tx{n}-{i}".encode() for n in (0, 2) for i in range(5)]


def test_a_clean_kafka_read_through_the_java_source_starts_no_python_worker(spark, kafka_broker, kafka_topic):
    uri = kafka_sink(kafka_broker, kafka_topic, partitions=2, rows=every_kind_rows(20))  # none pending
    assert not python_workers_asked(spark, lambda: cs.read(spark, uri).collect())


@pytest.mark.parametrize("params, why", [
    ("sasl-user=u&sasl-password=p&sasl-mechanism=plain", "Java reads PLAINTEXT Kafka brokers only, not SASL_PLAINTEXT"),
    ("enable-tls=true", "Java reads PLAINTEXT Kafka brokers only, not SSL"),
])
def test_a_sasl_or_tls_source_is_read_by_the_python_source(spark, kafka_broker, kafka_topic, params, why):
    uri = f"{kafka_broker.uri(kafka_topic, 'canal-json')}&{params}"
    assert reading_tier(open_sink(uri), spark) == ("python", why)


def test_the_python_reading_setting_keeps_the_python_source_for_kafka(spark, kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, "canal-json")
    spark.conf.set(READING_SETTING, "python")
    try:
        assert reading_tier(open_sink(uri), spark) == ("python", f"{READING_SETTING}=python")
    finally:
        spark.conf.unset(READING_SETTING)


def test_a_source_with_consumer_settings_is_read_by_the_python_source(spark, kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, "canal-json", consumer_settings='{"fetch.max.bytes":"1048576"}')
    assert reading_tier(open_sink(uri), spark) == (
        "python", "Java does not read with consumer-settings: the Python consumer applies them")


def test_a_range_starting_below_the_low_watermark_is_the_python_readers_to_skip(spark, kafka_broker, kafka_topic):
    from confluent_kafka import TopicPartition
    from confluent_kafka.admin import AdminClient

    uri = kafka_sink(kafka_broker, kafka_topic, partitions=1, count=60)
    admin = AdminClient({"bootstrap.servers": kafka_broker.bootstrap})
    for done in admin.delete_records([TopicPartition(kafka_topic, 0, 10)], request_timeout=10).values():
        done.result(10)
    ranges = [MessageRange(kafka_topic, 0, 4, 30)]
    python, java, rest = messages_from_both_sources(spark, uri, ranges)
    assert [r.offset for r in rest] == [4]  # the whole range: the Python reader warns and counts
    assert [r.offset for r in python] == list(range(10, 30))
    events = [on_source(spark, s, lambda: rows_in_order(read_ranges(spark, uri, ranges))) for s in ("python", "auto")]
    assert events[1] == events[0]
