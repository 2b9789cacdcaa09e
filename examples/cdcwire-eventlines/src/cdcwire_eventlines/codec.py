"""eventlines: each message's value is one event in cdcwire's canonical event JSON, no key.

Deliberately the smallest protocol there is, so that the example is about the JVM tier: the
Python codec is ``to_json`` / ``from_json`` of :mod:`cdcwire.plugin_api`, and it stays the
reference; the Java decoder (``jvm/``, :data:`JVM`) reads in the JVM only the messages it is
sure the Python decoder reads into the same event, and leaves every other one to it.
"""

from __future__ import annotations

import functools
import operator
from pathlib import Path
from typing import Any, Iterable, Iterator

from cdcwire.plugin_api import (
    INTEGER_TYPES, STRING_TYPES, CdcwireError, Codec, ColumnFlag, DecodeError, JvmCodec, Message, Payload, SinkConfig,
    from_json, to_json,
)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java decoder is made with: the type names whose integer and text values it reads
    and the flag bits there are, from the plugin API (so no list is written twice). The core adds
    the record checks' tables at the root."""
    return {
        "integer_types": sorted(t.name for t in INTEGER_TYPES),
        "string_types": sorted(t.name for t in STRING_TYPES),
        "known_flags": int(functools.reduce(operator.or_, ColumnFlag)),
        "binary_flag": int(ColumnFlag.BINARY),
    }


#: Its JVM tier: a decoder only (messages are encoded in Python).
JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.example.eventlines.EventLinesDecoder",
    decoder_config=decoder_config,
)


class EventLinesEncoder:
    """One message per event: its canonical JSON, UTF-8."""

    def encode(self, events: Iterable) -> Iterator[Payload]:
        for event in events:
            yield Payload(None, to_json(event).encode("utf-8"))


class EventLinesDecoder:
    """The one event of a message's value; anything else is a :class:`DecodeError` saying what."""

    def decode(self, message: Message) -> list:
        if message.value is None:
            raise DecodeError("an eventlines message needs a value: one event in canonical JSON", None, "value")
        try:
            text = message.value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DecodeError(f"the value is not UTF-8: {exc.reason}", exc.start, "value") from None
        try:
            return [from_json(text)]
        except CdcwireError as exc:  # from_json's EventJSONError: what is wrong and which field
            raise DecodeError(f"not an eventlines event: {exc}", None, "value") from None


class EventLinesCodec(Codec):
    name = "eventlines"
    jvm = JVM

    def encoder(self, config: SinkConfig, topic: str, partition: int) -> EventLinesEncoder:
        return EventLinesEncoder()

    def decoder(self, config: SinkConfig) -> EventLinesDecoder:
        return EventLinesDecoder()
