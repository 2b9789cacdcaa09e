"""``echo-json``: the smallest possible codec, for the core's own tests.

One event per message, the canonical event JSON as the value. It exists so the
core can be tested without any protocol plugin installed.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from cdcwire.plugin_api import (
    MAX_BATCH_SIZE,
    PLUGIN_API_VERSION,
    Broadcast,
    Codec,
    DecodeError,
    Event,
    EventPolicy,
    Message,
    Parameter,
    Payload,
    from_json,
    hookimpl,
    to_json,
)


class EchoEncoder:
    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        for e in events:
            yield Payload(None, to_json(e).encode())


class EchoDecoder:
    def decode(self, message: Message) -> list[Event]:
        try:
            return [from_json((message.value or b"").decode())]
        except Exception as exc:
            raise DecodeError(str(exc), 0, "value") from None


class EchoJSONCodec(Codec):
    name = "echo-json"
    aliases = ("echo",)
    parameters = (
        MAX_BATCH_SIZE,
        Parameter("ddl-to", "choice", "all", choices=("all", "first", "none")),
        Parameter("echo-credential", "str", None, "a secret whose name says nothing of it", secret=True),
    )

    def policy(self, config):
        return EventPolicy(ddl=Broadcast(config["ddl-to"]), resolved=Broadcast.ALL_PARTITIONS)

    def encoder(self, config, topic, partition):
        return EchoEncoder()

    def decoder(self, config):
        return EchoDecoder()


class HeldDecoder:
    """Gives nothing until the input ends, then everything: the smallest stateful decoder."""

    def __init__(self) -> None:
        self.held: list[Event] = []

    def decode(self, message: Message) -> list[Event]:
        self.held.extend(EchoDecoder().decode(message))
        return []

    def finish(self) -> list[Event]:
        held, self.held = self.held, []
        return held


class EchoHeldCodec(EchoJSONCodec):
    """``echo-held``: echo-json messages, decoded only at the end of the input (``finish``),
    for the core's tests of the end-of-input contract. Not in the default test registry:
    a test adds :class:`EchoHeldPlugin` itself."""

    name = "echo-held"
    aliases = ()
    stateful_decoding = True

    def decoder(self, config):
        return HeldDecoder()


class EchoHeldPlugin:
    cdcwire_plugin_api = PLUGIN_API_VERSION

    @hookimpl
    def register_codecs(self, register):
        register(EchoHeldCodec())


class EchoPlugin:
    cdcwire_plugin_api = PLUGIN_API_VERSION

    @hookimpl
    def register_codecs(self, register):
        register(EchoJSONCodec())
