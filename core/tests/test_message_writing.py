"""``write_payloads``: the one loop that writes a topic-partition's encoded payloads and counts them
(used by ``cdcwire encode``, Spark's encoding stage and ``format("cdcwire")``)."""

from __future__ import annotations

import cdcwire
from cdcwire.model.message import Payload
from cdcwire.api.message_writing import WrittenMessages, write_payloads
from cdcwire.sinks.sink import open_sink


def uri(tmp_path):
    return f"file://{tmp_path}/orders?protocol=echo-json&partition-num=2"


def test_each_payload_becomes_a_message_of_the_topic_partition(tmp_path):
    sink = open_sink(uri(tmp_path))
    with sink.needs_transport().writer(sink.config) as writer:
        write_payloads(writer, "orders", 1, [Payload(b"k", b"v1"), Payload(None, b"v2", events=3)])
    back = [(m.partition, m.key, m.value) for m in cdcwire.read(uri(tmp_path))]
    assert back == [(1, b"k", b"v1"), (1, None, b"v2")]


def test_the_counts_are_events_carried_messages_and_their_size(tmp_path):
    sink = open_sink(uri(tmp_path))
    with sink.needs_transport().writer(sink.config) as writer:
        counts = write_payloads(writer, "orders", 0, [Payload(b"key", b"value"), Payload(None, b"xy", events=4)])
    assert counts == WrittenMessages(events=5, messages=2, bytes=len(b"keyvalue") + len(b"xy"))


def test_chunks_of_one_topic_partition_add_to_the_same_counts(tmp_path):
    sink = open_sink(uri(tmp_path))
    with sink.needs_transport().writer(sink.config) as writer:
        counts = write_payloads(writer, "orders", 0, [Payload(None, b"a")])
        same = write_payloads(writer, "orders", 0, [Payload(None, b"bc")], counts)
    assert same is counts and counts == WrittenMessages(events=2, messages=2, bytes=3)
