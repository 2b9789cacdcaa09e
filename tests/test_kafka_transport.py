"""The kafka:// transport against a real Kafka-protocol broker (see fixtures/kafka_broker.py)."""

from __future__ import annotations

import ctypes
import logging
import sys
import threading
import time
from collections import Counter
from types import SimpleNamespace

import pytest
from confluent_kafka import KafkaError

from cdcwire import Message, SinkURIError, TransportError, parse_sink_uri
from cdcwire.transports.kafka.topics import ensure_topic, topic_partition_count
from cdcwire.transports.kafka.writer import KafkaWriter
from cdcwire.sinks.sink import open_sink

from fixtures.kafka_broker import free_port


def write(uri: str, messages: list[Message]) -> KafkaWriter:
    config = parse_sink_uri(uri)
    with open_sink(config).transport.writer(config) as writer:
        writer.write_all(messages)
    return writer


def read_partition(uri: str, partition: int, start: int | None = 0) -> list[Message]:
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    try:
        return list(reader.read(config.topic, partition, start))
    finally:
        reader.close()


def numbered(topic: str, count: int, partitions: int) -> list[Message]:
    """Messages whose value names them, spread over the partitions in turn."""
    return [Message(topic, i % partitions, b"key-%d" % (i % 7), b"value-%d" % i) for i in range(count)]


def test_messages_come_back_per_partition_in_order_with_offsets(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=3)
    written = numbered(kafka_topic, 300, 3)
    write(uri, written)
    for partition in range(3):
        got = read_partition(uri, partition)
        expected = [m for m in written if m.partition == partition]
        assert [(m.key, m.value) for m in got] == [(m.key, m.value) for m in expected]
        assert [m.offset for m in got] == list(range(len(expected)))
        assert {(m.topic, m.partition) for m in got} == {(kafka_topic, partition)}


def test_null_key_null_value_and_empty_bytes_survive(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    written = [
        Message(kafka_topic, 0, None, b"no key"),
        Message(kafka_topic, 0, b"tombstone", None),
        Message(kafka_topic, 0, b"", b""),
        Message(kafka_topic, 0, None, None),
    ]
    write(uri, written)
    assert [(m.key, m.value) for m in read_partition(uri, 0)] == [(m.key, m.value) for m in written]


def test_read_starts_at_the_given_offset_and_ends_at_the_watermark_of_the_call(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    write(uri, numbered(kafka_topic, 10, 1))
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    try:
        tail = reader.read(kafka_topic, 0, 7)
        write(uri, numbered(kafka_topic, 5, 1))  # written after the call: not part of this read
        assert [m.offset for m in tail] == [7, 8, 9]
        assert [m.offset for m in reader.read(kafka_topic, 0, 3, 5)] == [3, 4]
        assert [m.offset for m in reader.read(kafka_topic, 0, None)] == list(range(15))
        assert list(reader.read(kafka_topic, 0, 15)) == []
    finally:
        reader.close()


def test_a_start_below_the_low_watermark_is_skipped_with_a_warning_and_counted(kafka_broker, kafka_topic, caplog):
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    write(uri, numbered(kafka_topic, 10, 1))
    kafka_broker.delete_records(kafka_topic, 0, before=4)
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    try:
        assert reader.watermarks(kafka_topic, 0) == (4, 10)
        with caplog.at_level(logging.WARNING, logger="cdcwire.kafka"):
            assert [m.offset for m in reader.read(kafka_topic, 0, 1)] == [4, 5, 6, 7, 8, 9]
            assert reader.skipped == {(kafka_topic, 0): 3}
            (warning,) = [r.getMessage() for r in caplog.records]
            assert warning.startswith(f"{kafka_topic}/0: offset 1 asked for")
            assert "low watermark 4" in warning and "3 offset(s) skipped" in warning
            caplog.clear()
            # From the earliest held offset, or from one still held: nothing asked for is missing.
            assert [m.offset for m in reader.read(kafka_topic, 0, None)] == [4, 5, 6, 7, 8, 9]
            assert [m.offset for m in reader.read(kafka_topic, 0, 6)] == [6, 7, 8, 9]
            assert caplog.records == []
            assert list(reader.read(kafka_topic, 0, 0, 2)) == []  # all of [0, 2) is gone
            assert reader.skipped == {(kafka_topic, 0): 5} and len(caplog.records) == 1
    finally:
        reader.close()


def test_the_writer_makes_an_idempotent_acks_all_producer_and_names_each_partition(
    kafka_broker, kafka_topic, monkeypatch
):
    from confluent_kafka import Producer

    from cdcwire.transports.kafka import writer as kafka_writer

    made, produced = [], []

    class RecordingProducer(Producer):
        """The real producer, noting the settings it is made with and where each message goes."""

        def __init__(self, conf):
            made.append(dict(conf))
            super().__init__(conf)

        def produce(self, topic, *args, **kwargs):
            produced.append((topic, kwargs.get("partition")))
            return super().produce(topic, *args, **kwargs)

    monkeypatch.setattr(kafka_writer, "Producer", RecordingProducer)
    uri = kafka_broker.uri(kafka_topic, partition_num=3, compression="lz4")
    # One key to three partitions: only an explicit partition puts them there.
    written = [Message(kafka_topic, p, b"one key", b"to %d" % p) for p in (2, 0, 1, 2)]
    write(uri, written)
    (conf,) = made
    assert (conf["enable.idempotence"], conf["acks"], conf["compression.type"]) == (True, "all", "lz4")
    assert produced == [(kafka_topic, 2), (kafka_topic, 0), (kafka_topic, 1), (kafka_topic, 2)]
    assert [[m.value for m in read_partition(uri, p)] for p in range(3)] == [[b"to 0"], [b"to 1"], [b"to 2"] * 2]


def test_a_delivery_the_broker_refuses_fails_flush_write_and_close_naming_topic_and_partition(
    kafka_broker, kafka_topic
):
    # The topic takes at most 1000 bytes a batch; the producer would send up to 1 MB: the
    # broker refuses the large message (MESSAGE_TOO_LARGE, not retriable) in its delivery report.
    kafka_broker.create_topic(kafka_topic, 2, max_message_bytes=1000)
    config = parse_sink_uri(kafka_broker.uri(kafka_topic))
    writer = open_sink(config).transport.writer(config)
    writer.write(Message(kafka_topic, 0, b"k", b"small"))
    writer.flush()
    writer.write(Message(kafka_topic, 1, b"k", b"x" * 5000))
    refused = f"1 message(s) not delivered to Kafka at {kafka_broker.bootstrap}; first: {kafka_topic}/1: "
    with pytest.raises(TransportError, match="Message size too large") as flushed:
        writer.flush()
    assert refused in str(flushed.value)
    with pytest.raises(TransportError) as written:
        writer.write(Message(kafka_topic, 0, b"k", b"small again"))
    with pytest.raises(TransportError) as closed:
        writer.close()
    assert refused in str(written.value) and refused in str(closed.value)
    assert writer.delivered == 1
    assert [m.value for m in read_partition(kafka_broker.uri(kafka_topic), 0)] == [b"small"]


def test_a_message_the_producer_refuses_names_topic_and_partition_and_fails_close(kafka_broker, kafka_topic):
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=2, max_message_bytes=1000))
    writer = open_sink(config).transport.writer(config)
    with pytest.raises(TransportError) as written:
        writer.write(Message(kafka_topic, 1, b"k", b"x" * 2_000_000))  # past the producer's message.max.bytes
    assert f"first: {kafka_topic}/1: Unable to produce message: Broker: Message size too large" in str(written.value)
    with pytest.raises(TransportError, match=f"{kafka_topic}/1"):
        writer.close()


def test_a_missing_topic_is_created_with_partition_num_partitions(kafka_broker, kafka_topic):
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=5))
    assert open_sink(config).transport.partition_count(config, kafka_topic) is None
    assert ensure_topic(config, kafka_topic) == 5
    assert topic_partition_count(config, kafka_topic) == 5
    reader = open_sink(config).transport.reader(config)
    assert reader.partitions(kafka_topic) == [0, 1, 2, 3, 4]
    assert kafka_topic in reader.topics()
    reader.close()


def test_the_writer_creates_its_topic_on_first_write(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=4)
    write(uri, [Message(kafka_topic, 3, b"k", b"v")])
    config = parse_sink_uri(uri)
    assert open_sink(config).transport.partition_count(config, kafka_topic) == 4
    assert [m.value for m in read_partition(uri, 3)] == [b"v"]


def test_partition_num_larger_than_the_existing_topic_is_an_error(kafka_broker, kafka_topic):
    ensure_topic(parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=2)), kafka_topic)
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=4))
    with pytest.raises(SinkURIError) as info:
        open_sink(config).transport.prepare_topic(config, kafka_topic)
    assert info.value.parameter == "partition-num"
    assert "partition-num=4" in str(info.value) and "the 2 partition(s)" in str(info.value)
    with pytest.raises(SinkURIError, match="partition-num=4"):
        KafkaWriter(config).write(Message(kafka_topic, 0, b"k", b"v"))


def test_smaller_partition_num_uses_only_the_first_partitions(kafka_broker, kafka_topic):
    ensure_topic(parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=4)), kafka_topic)
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=2))
    assert ensure_topic(config, kafka_topic) == 2
    writer = KafkaWriter(config)
    writer.write(Message(kafka_topic, 1, b"k", b"v"))
    with pytest.raises(TransportError, match="partition 3 is outside topic .*'s 2 partition"):
        writer.write(Message(kafka_topic, 3, b"k", b"v"))
    writer.close()


def test_without_partition_num_an_existing_topic_keeps_its_real_count(kafka_broker, kafka_topic):
    ensure_topic(parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=6)), kafka_topic)
    assert ensure_topic(parse_sink_uri(kafka_broker.uri(kafka_topic)), kafka_topic) == 6


def test_auto_create_topic_false_refuses_a_missing_topic(kafka_broker, kafka_topic):
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, auto_create_topic=False))
    with pytest.raises(TransportError, match="does not exist .* auto-create-topic is false"):
        ensure_topic(config, kafka_topic)


def test_replication_factor_the_cluster_cannot_meet_is_named(kafka_broker, kafka_topic):
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, replication_factor=99))
    with pytest.raises(SinkURIError, match="replication-factor=99") as info:
        ensure_topic(config, kafka_topic)
    assert info.value.parameter == "replication-factor"


def test_reading_a_missing_topic_is_a_clear_error(kafka_broker, kafka_topic):
    config = parse_sink_uri(kafka_broker.uri(kafka_topic))
    reader = open_sink(config).transport.reader(config)
    with pytest.raises(TransportError, match=f"topic '{kafka_topic}' does not exist at {kafka_broker.bootstrap}"):
        reader.partitions(kafka_topic)
    reader.close()


@pytest.mark.parametrize("compression", ["gzip", "lz4", "zstd", "snappy"])
def test_compressed_messages_round_trip(kafka_broker, kafka_topic, compression):
    uri = kafka_broker.uri(kafka_topic, partition_num=2, compression=compression)
    written = [Message(kafka_topic, i % 2, b"k%d" % i, (b"row %d " % i) * 50) for i in range(200)]
    write(uri, written)
    for partition in range(2):
        assert [m.value for m in read_partition(uri, partition)] == [
            m.value for m in written if m.partition == partition
        ]


def test_a_broker_that_is_not_running_is_a_clear_error():
    address = f"127.0.0.1:{free_port()}"
    config = parse_sink_uri(f"kafka://{address}/t?protocol=open-protocol&dial-timeout=1s")
    with pytest.raises(TransportError, match=f"cannot reach Kafka at {address} within 1s"):
        open_sink(config).transport.writer(config)
    with pytest.raises(TransportError, match=f"cannot reach Kafka at {address} within 1s"):
        open_sink(config).transport.reader(config)
    with pytest.raises(TransportError, match=f"cannot reach Kafka at {address}"):
        open_sink(config).transport.partition_count(config, "t")


def test_sasl_plain_credentials_from_the_uri_reach_the_broker(kafka_broker, kafka_topic):
    # noida-db accepts SASL/PLAIN with any user; this proves the settings make a working client.
    uri = (
        f"kafka://alice:uri-s3cret@{kafka_broker.bootstrap}/{kafka_topic}?protocol=open-protocol"
        "&partition-num=1"
    )
    writer = write(uri, [Message(kafka_topic, 0, b"k", b"over sasl")])
    assert "uri-s3cret" not in repr(writer)
    assert [m.value for m in read_partition(uri, 0)] == [b"over sasl"]


@pytest.mark.parametrize(
    "userinfo, query, secret",
    [
        ("alice:uri-s3cret@", "sasl-mechanism=scram-sha-256", "uri-s3cret"),
        ("", "sasl-mechanism=scram-sha-512&sasl-user=bob&sasl-password=p4ram-s3cret", "p4ram-s3cret"),
    ],
    ids=["password-in-userinfo", "password-parameter"],
)
def test_a_failed_login_names_the_cause_but_never_the_secret(kafka_broker, kafka_topic, caplog, userinfo, query, secret):
    # noida-db cannot complete SCRAM: the login fails, as with a wrong password.
    uri = f"kafka://{userinfo}{kafka_broker.bootstrap}/{kafka_topic}?protocol=open-protocol&dial-timeout=1s&{query}"
    config = parse_sink_uri(uri)
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(TransportError) as writer_error:
            open_sink(config).transport.writer(config)
        with pytest.raises(TransportError) as reader_error:
            open_sink(config).transport.reader(config)
    from cdcwire.transports.kafka.settings import KafkaSettings

    settings = KafkaSettings.of(config)
    assert settings.security["sasl.password"] == secret  # handed to librdkafka ...
    for error in (writer_error.value, reader_error.value):
        assert f"cannot reach Kafka at {kafka_broker.bootstrap}" in str(error)
        assert "SASL authentication error" in str(error)
    shown = [str(writer_error.value), str(reader_error.value), repr(settings), repr(config), caplog.text]
    assert all(secret not in text for text in shown)  # ... and shown nowhere


class SilentConsumer:
    """A Consumer stand-in: topic metadata failing with ``error``, fetches that never bring anything."""

    def __init__(self, error: KafkaError) -> None:
        self.error = error

    def list_topics(self, topic=None, timeout=None):
        return SimpleNamespace(topics={topic: SimpleNamespace(error=self.error, partitions={})})

    def get_watermark_offsets(self, partition, timeout=None):
        return (0, 5)

    def assign(self, partitions):
        pass

    def consume(self, num_messages, timeout):
        time.sleep(timeout)
        return []

    def unassign(self):
        pass


def test_reader_errors_never_show_the_secret(kafka_broker, kafka_topic):
    uri = (
        f"kafka://alice:uri-s3cret@{kafka_broker.bootstrap}/{kafka_topic}?protocol=open-protocol"
        "&dial-timeout=1s&request-timeout-ms=100"
    )
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    echo = KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED, "denied for alice:uri-s3cret")
    real, reader._consumer = reader._consumer, SilentConsumer(echo)
    reader._errors(echo)  # what librdkafka's error_cb would hand the reader
    try:
        with pytest.raises(TransportError) as described:
            reader.partitions(kafka_topic)
        with pytest.raises(TransportError) as idle:
            list(reader.read(kafka_topic, 0))
    finally:
        reader._consumer = real
        reader.close()
    assert f"cannot describe topic '{kafka_topic}'" in str(described.value)
    assert f"no data from Kafka at {kafka_broker.bootstrap} for {kafka_topic}/0" in str(idle.value)
    for error in (described.value, idle.value):
        assert "denied for alice:***" in str(error) and "uri-s3cret" not in str(error)


def test_the_writer_survives_a_broker_restart_in_the_middle_of_a_write(kafka_broker, kafka_topic):
    kafka_broker.require_restartable()
    uri = kafka_broker.uri(kafka_topic, partition_num=3)
    written = numbered(kafka_topic, 60_000, 3)
    config = parse_sink_uri(uri)
    restarted = threading.Event()
    restart = threading.Thread(target=lambda: (kafka_broker.restart(down_seconds=1.0), restarted.set()))
    written_during_restart = 0
    with open_sink(config).transport.writer(config) as writer:
        for i, message in enumerate(written):
            writer.write(message)
            if i == 10_000:
                restart.start()
            elif restart.is_alive():
                written_during_restart += 1
    restart.join()
    assert restarted.is_set() and written_during_restart > 0

    duplicates = 0
    for partition in range(3):
        got = [m.value for m in read_partition(uri, partition)]
        expected = [m.value for m in written if m.partition == partition]
        first_seen = list(dict.fromkeys(got))  # order of first occurrences
        assert first_seen == expected  # nothing lost, per-partition order kept
        duplicates += len(got) - len(first_seen)
    print(f"restart mid-write: {written_during_restart} writes while restarting, {duplicates} duplicates")


def test_the_writer_keeps_working_across_a_restart_between_batches(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=2)
    first, second = numbered(kafka_topic, 500, 2), numbered(kafka_topic, 500, 2)
    config = parse_sink_uri(uri)
    with open_sink(config).transport.writer(config) as writer:
        writer.write_all(first)
        writer.flush()
        kafka_broker.restart()
        writer.write_all(second)
    for partition in range(2):
        values = Counter(m.value for m in read_partition(uri, partition))
        expected = Counter(m.value for m in first + second if m.partition == partition)
        assert values == expected


def test_a_read_survives_a_broker_restart(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=1)
    write(uri, numbered(kafka_topic, 5000, 1))
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    try:
        stream = reader.read(kafka_topic, 0)
        head = [next(stream) for _ in range(10)]
        kafka_broker.restart()
        rest = list(stream)
    finally:
        reader.close()
    assert [m.offset for m in head + rest] == list(range(5000))


def test_the_writer_replaces_its_producer_when_the_broker_forgets_its_sequence_numbers(kafka_broker, kafka_topic):
    # A crashed broker forgets the batches it acknowledged since its last save, and with them
    # the idempotent producer's sequence numbers: the producer gets a fatal out-of-order error.
    # The writer must start a new producer and send everything unacknowledged again, in order.
    uri = kafka_broker.uri(kafka_topic, partition_num=3)
    config = parse_sink_uri(uri)
    before, after = numbered(kafka_topic, 3000, 3), numbered(kafka_topic, 6000, 3)[3000:]
    with open_sink(config).transport.writer(config) as writer:
        writer.partition_count(kafka_topic)  # creates the topic
        kafka_broker.wait_saved(kafka_topic)  # so that the crash keeps the topic itself
        writer.write_all(before)
        writer.flush()
        kafka_broker.crash()
        writer.write_all(after)
    assert writer.restarts >= 1
    for partition in range(3):
        got = [m.value for m in read_partition(uri, partition)]
        survivors = [v for v in got if v in {m.value for m in after}]
        assert list(dict.fromkeys(survivors)) == [m.value for m in after if m.partition == partition]


def raise_as_confluent_kafka_does_on_python_311(error: KafkaError) -> None:
    """Raise ``error`` as confluent-kafka re-raises a fatal error met in a callback on Python < 3.12:
    the KafkaError object itself, which is no BaseException, so no typed ``except`` matches it."""
    set_object = ctypes.pythonapi.PyErr_SetObject
    set_object.argtypes = [ctypes.py_object, ctypes.py_object]
    set_object.restype = None
    set_object(KafkaError, error)


class FatalOnFirstFlush:
    """The writer's real producer, except that its first flush fails with a fatal error raised like that."""

    def __init__(self, producer) -> None:
        self.producer, self.failed = producer, False

    def __getattr__(self, name: str):
        return getattr(self.producer, name)

    def flush(self, timeout: float) -> int:
        if not self.failed:
            self.failed = True
            raise_as_confluent_kafka_does_on_python_311(
                KafkaError(KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER, "sequence desynchronization", fatal=True)
            )
        return self.producer.flush(timeout)


def test_a_fatal_error_raised_as_a_bare_kafka_error_object_replaces_the_producer(kafka_broker, kafka_topic):
    uri = kafka_broker.uri(kafka_topic, partition_num=2)
    written = numbered(kafka_topic, 100, 2)
    config = parse_sink_uri(uri)
    writer = open_sink(config).transport.writer(config)
    writer.partition_count(kafka_topic)
    writer._producer = FatalOnFirstFlush(writer._producer)
    escaped = None
    try:
        writer.write_all(written)
        writer.close()
    except:  # noqa: E722 -- that object escapes every typed clause, pytest's own included
        escaped = sys.exc_info()[1]
    assert escaped is None, f"the writer let {escaped!r} escape"  # failed outside: no such object in the chain
    assert writer.restarts == 1
    for partition in range(2):
        got = [m.value for m in read_partition(uri, partition)]
        assert list(dict.fromkeys(got)) == [m.value for m in written if m.partition == partition]


def test_the_writer_confirms_what_it_sent_at_most_every_confirm_every_messages(kafka_broker, kafka_topic, monkeypatch):
    # Successes get no delivery report each (a callback per message cost as much as producing it):
    # the writer confirms the messages it sent in whole, at a flush, and flushes every
    # CONFIRM_EVERY messages, so what it keeps to send again stays bounded.
    from cdcwire.transports.kafka import writer as kafka_writer

    monkeypatch.setattr(kafka_writer, "CONFIRM_EVERY", 4)
    config = parse_sink_uri(kafka_broker.uri(kafka_topic, partition_num=2))
    writer = open_sink(config).transport.writer(config)
    try:
        confirmed = []
        for message in numbered(kafka_topic, 10, 2):
            writer.write(message)
            confirmed.append(writer.delivered)
    finally:
        writer.close()
    assert confirmed == [0, 0, 0, 4, 4, 4, 4, 8, 8, 8] and writer.delivered == 10
