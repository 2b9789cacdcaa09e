"""``kafka.*`` options of ``spark.readStream.format("cdcwire")`` reach the Kafka consumer, as in
Spark's Kafka source, through the ``kafka://`` URI parameter ``consumer-settings``; settings
cdcwire decides itself, and a transport without a Kafka client, are refused naming the option."""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire.spark.reader.stream_source import MessageEventsStreamReader
from cdcwire.workload import Workload


def stream_reader(uri: str, **options: str) -> MessageEventsStreamReader:
    return MessageEventsStreamReader({"source-uri": uri, **options})


def test_a_kafka_option_reaches_the_consumer(kafka_broker, kafka_topic):
    kafka_broker.create_topic(kafka_topic, 1)
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    reader = stream_reader(uri, **{"kafka.fetch.wait.max.ms": "not-a-number"})
    with pytest.raises(cdcwire.CdcwireError, match=r"cannot set up a Kafka client .*fetch\.wait\.max\.ms"):
        reader.initialOffset()


def test_a_stream_with_kafka_options_reads_every_message(kafka_broker, kafka_topic):
    kafka_broker.create_topic(kafka_topic, 1)
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    messages = cdcwire.encode(uri, list(Workload(30, seed=1)))
    cdcwire.write(uri, messages)
    reader = stream_reader(uri, **{"kafka.max.partition.fetch.bytes": "1024", "kafka.isolation.level": "read_committed"})
    try:
        start = reader.initialOffset()
        assert reader.latestOffset(start, reader.getDefaultReadLimit()) == {f"{kafka_topic}/0": len(messages)}
    finally:
        reader.stop()


def test_a_kafka_option_cdcwire_sets_itself_is_refused_naming_where_to_set_it(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    with pytest.raises(cdcwire.CdcwireError, match=r"'bootstrap\.servers' is cdcwire's to set: use the URI's host:port list"):
        stream_reader(uri, **{"kafka.bootstrap.servers": "elsewhere:9092"})


def test_a_kafka_login_option_is_refused_for_the_uri_parameters(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    with pytest.raises(cdcwire.CdcwireError, match=r"'sasl\.password' is cdcwire's to set: use the URI's TLS and SASL") as caught:
        stream_reader(uri, **{"kafka.sasl.password": "hunter2"})
    assert "hunter2" not in str(caught.value)


def test_a_kafka_option_on_file_is_refused_naming_it(tmp_path):
    uri = f"file://{tmp_path}/orders?protocol=open-protocol"
    with pytest.raises(cdcwire.CdcwireError, match=r"^option kafka\.fetch\.max\.bytes: file:// has no Kafka client"):
        stream_reader(uri, **{"kafka.fetch.max.bytes": "1024"})
