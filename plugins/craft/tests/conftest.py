"""The craft tests' harness: configs from URIs and one-partition encode / decode."""

from __future__ import annotations

import pytest

from cdcwire.api import config_of
from cdcwire.events import Event
from cdcwire.message import Message
from cdcwire.sink_uri import SinkConfig


class CraftHarness:
    """Runs the craft codec the way a pipeline does, for one topic-partition."""

    def config(self, **params: object) -> SinkConfig:
        query = "".join(f"&{k.replace('_', '-')}={v}" for k, v in params.items())
        return config_of(f"file:///tmp/cdcwire-craft-tests/t?protocol=craft{query}")

    def encode(self, config: SinkConfig, events: list[Event]) -> list[Message]:
        encoder = config.codec.encoder(config, config.topic, 0)
        return [Message(config.topic, 0, p.key, p.value, i) for i, p in enumerate(encoder.encode(events))]

    def decode(self, config: SinkConfig, messages: list[Message]) -> list[Event]:
        decoder = config.codec.decoder(config)
        return [e for m in messages for e in decoder.decode(m)]

    def carried(self, config: SinkConfig, events: list[Event]) -> list[Event]:
        return [config.codec.carried(config, e) for e in events]


@pytest.fixture(scope="session")
def craft() -> CraftHarness:
    return CraftHarness()
