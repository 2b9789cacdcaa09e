"""kafka:// runs the transport conformance kit (cdcwire.testing.transport_conformance) against the
test broker (fixtures/kafka_broker.py), as a third-party transport would."""

from __future__ import annotations

import itertools

import pytest

from cdcwire.testing.transport_conformance import SinkFactory, TransportConformance


class TestKafkaTransportConformance(TransportConformance):
    """kafka:// declares: None keys and values kept (tombstones), topics of a fixed size that
    prepare_topic creates, a missing topic is an error; its write job delivers as it writes."""

    none_key = True
    none_value = True
    fixed_size_topics = True
    missing_topic = "error"

    @pytest.fixture
    def new_sink_uri(self, kafka_broker, kafka_topic: str) -> SinkFactory:
        """A topic no other check or test uses, per call: the test's unique name and a number."""
        counter = itertools.count()
        return lambda: kafka_broker.uri(f"{kafka_topic}-{next(counter)}")
