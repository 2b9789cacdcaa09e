"""Which other installed protocol reads a message the chosen one cannot.

Why: a sink written in one protocol and read with another fails with an error about
bytes (``key is 0 bytes, shorter than the 8-byte protocol version``) that does not say
the protocol is the mistake. On a decode failure the core asks the other protocols of
the registry, with their default parameters, whether they read the message; the
first that does is named in the error. Only the failure path pays for it, once per
decoder (see :class:`cdcwire.codec_calls.CheckedDecoder`). A protocol that needs
parameters to decode at all (a schema registry, a mode) is not asked.
"""

from __future__ import annotations

from typing import Optional

from .errors import CdcwireError
from .message import Message
from .registry import get_registry
from .sink import protocol_sink
from .validation import check_event


def protocol_reading(message: Message, protocol: str) -> Optional[str]:
    """The name of another installed protocol that decodes ``message`` into valid events, or None."""
    registry = get_registry()
    for codec, _ in registry.codecs():
        if codec.name == protocol:
            continue
        try:
            sink = protocol_sink(codec.name, registry)
        except CdcwireError:  # it cannot run without parameters of its own
            continue
        try:
            events = codec.decoder(sink.config).decode(message)
            for event in events:
                check_event(event)
        except Exception:  # any failure of a foreign decoder on these bytes means "not this one"
            continue
        if events:
            return codec.name
    return None


def protocol_hint(protocol: str) -> str:
    """What a decode error says when ``protocol`` reads the message."""
    return f"this looks like {protocol} (read it with protocol={protocol})"
