"""The craft tests' harness: configs from URIs and one-partition encode / decode."""

from __future__ import annotations

import pytest

from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.model.events import Event
from cdcwire.model.message import Message
from cdcwire.uris.sink_uri import SinkConfig
from cdcwire.sinks.sink import open_sink


class CraftHarness:
    """Runs the craft codec the way a pipeline does, for one topic-partition."""

    def config(self, **params: object) -> SinkConfig:
        query = "".join(f"&{k.replace('_', '-')}={v}" for k, v in params.items())
        return parse_sink_uri(f"file:///tmp/cdcwire-craft-tests/t?protocol=craft{query}")

    def encode(self, config: SinkConfig, events: list[Event]) -> list[Message]:
        encoder = open_sink(config).codec.encoder(config, config.topic, 0)
        return [Message(config.topic, 0, p.key, p.value, i) for i, p in enumerate(encoder.encode(events))]

    def decode(self, config: SinkConfig, messages: list[Message]) -> list[Event]:
        decoder = open_sink(config).codec.decoder(config)
        return [e for m in messages for e in decoder.decode(m)]

    def carried(self, config: SinkConfig, events: list[Event]) -> list[Event]:
        return [open_sink(config).codec.carrier(config)(e) for e in events]


@pytest.fixture(scope="session")
def craft() -> CraftHarness:
    return CraftHarness()
