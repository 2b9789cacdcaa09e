"""Core tests run without any protocol plugin: they register ``echo-json``, a tiny
codec defined here (one event per message, the canonical event JSON as value),
in a registry of their own."""

from __future__ import annotations

from typing import Iterable, Iterator

import pytest

import cdcwire
from cdcwire import registry as registry_module
from cdcwire.codec import Broadcast, Codec, EventPolicy
from cdcwire.errors import DecodeError
from cdcwire.event_json import from_json, to_json
from cdcwire.message import Message, Payload
from cdcwire.params import MAX_BATCH_SIZE, Parameter
from cdcwire.registry import PluginInfo, Registry


class EchoEncoder:
    def encode(self, events: Iterable[cdcwire.Event]) -> Iterator[Payload]:
        for e in events:
            yield Payload(None, to_json(e).encode())


class EchoDecoder:
    def decode(self, message: Message) -> list[cdcwire.Event]:
        try:
            return [from_json((message.value or b"").decode())]
        except Exception as exc:
            raise DecodeError(str(exc), 0, "value") from None


class EchoJSONCodec(Codec):
    name = "echo-json"
    aliases = ("echo",)
    parameters = (MAX_BATCH_SIZE, Parameter("ddl-to", "choice", "all", choices=("all", "first", "none")))

    def policy(self, config):
        return EventPolicy(ddl=Broadcast(config["ddl-to"]), resolved=Broadcast.ALL_PARTITIONS)

    def encoder(self, config, topic, partition):
        return EchoEncoder()

    def decoder(self, config):
        return EchoDecoder()


class EchoPlugin:
    @cdcwire.hookimpl
    def register_codecs(self, register):
        register(EchoJSONCodec())


def registry_with_echo() -> Registry:
    from cdcwire.transports import builtin

    reg = Registry()
    reg.add_plugin(builtin, PluginInfo("builtin", "cdcwire", "test"))
    reg.add_plugin(EchoPlugin(), PluginInfo("echo-json", "cdcwire-echo-test", "1.0"))
    return reg


@pytest.fixture(autouse=True)
def echo_registry(monkeypatch: pytest.MonkeyPatch) -> Registry:
    """Every core test sees exactly the built-in transports and the echo-json codec."""
    reg = registry_with_echo()
    monkeypatch.setattr(registry_module, "_REGISTRY", reg)
    return reg
