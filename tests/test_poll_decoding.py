"""PollDecoder: what a real TiCDC-style topic gives a plain confluent-kafka poll loop, decoded."""

from __future__ import annotations

import logging

import pytest
from confluent_kafka import Consumer

import cdcwire
from cdcwire import DecodeError, Message, PollDecoder
from cdcwire.workload import Workload


def poll_all(bootstrap: str, topic: str, expected: int) -> list:
    consumer = Consumer({
        "bootstrap.servers": bootstrap, "group.id": f"poll-{topic}", "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
    })
    consumer.subscribe([topic])
    got = []
    try:
        for _ in range(200):
            msg = consumer.poll(0.5)
            if msg is not None and msg.error() is None:
                got.append(msg)
            if len(got) >= expected:
                break
    finally:
        consumer.close()
    return got


@pytest.mark.parametrize("protocol", ["open-protocol", "canal-json"])
def test_a_poll_loop_decodes_what_cdcwire_wrote_to_kafka(kafka_broker, kafka_topic, protocol):
    uri = kafka_broker.uri(kafka_topic, partition_num=1, protocol=protocol)
    events = list(Workload(120, seed=9))
    written = cdcwire.encode(uri, events)
    cdcwire.write(uri, written)
    decode = PollDecoder(uri)
    polled = poll_all(kafka_broker.bootstrap, kafka_topic, len(written))
    got = [event for msg in polled for event in decode(msg)]
    assert got == cdcwire.decode(uri, written)
    assert decode.decoded == len(written) and decode.skipped == 0


def test_an_undecodable_message_is_refused_naming_its_place():
    decode = PollDecoder("canal-json")
    with pytest.raises(DecodeError, match=r"^orders/2/17: "):
        decode(Message("orders", 2, None, b"{}", 17))


def test_skipping_counts_and_logs_an_undecodable_message_and_goes_on(caplog):
    decode = PollDecoder("canal-json", skip_undecodable=True)
    good = cdcwire.encode("file:///tmp/unused/orders?protocol=canal-json&partition-num=1", list(Workload(5, seed=9)))
    with caplog.at_level(logging.WARNING, logger="cdcwire.api.poll_decoding"):
        out = [e for m in [good[0], Message("orders", 0, None, b"not json", 1), *good[1:]] for e in decode(m)]
    assert out == cdcwire.decode("canal-json", good)
    assert (decode.decoded, decode.skipped) == (len(good), 1)
    assert "orders/0/1" in caplog.text


def test_a_poll_that_timed_out_gives_no_events():
    decode = PollDecoder("open-protocol")
    assert decode(None) == [] and decode.decoded == 0


def test_a_table_filter_keeps_the_tables_it_matches_and_every_resolved_event():
    uri = "file:///tmp/unused/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    messages = cdcwire.encode(uri, list(Workload(300, seed=9)))
    everything = cdcwire.decode(uri, messages)
    decode = PollDecoder(uri, tables="*.*,!shop.orders")
    kept = [e for m in messages for e in decode(m)]
    assert kept == [e for e in everything if isinstance(e, cdcwire.ResolvedEvent) or (e.schema, e.table) != ("shop", "orders")]
    assert decode.filtered == len(everything) - len(kept) > 0
