"""Which installed protocols read a message: each one's decoder tries it.

Why: a sink written in one protocol and read with another fails with an error about
bytes (``key is 0 bytes, shorter than the 8-byte protocol version``) that does not say
the protocol is the mistake, and a listing of a source whose protocol is not known
(``cdcwire inspect --list``) wants to say what each partition holds. Both ask the
registry's protocols, with their default parameters, whether they decode the message
into valid events. A guess, not a proof: several may read it. A protocol that needs
parameters to decode at all (a schema registry) is not asked. Only the failure path of
a decoder pays for it, once per decoder (see :class:`cdcwire.api.codec_calls.CheckedDecoder`).
"""

from __future__ import annotations

from typing import Iterable, Optional

from ..foundation.errors import CdcwireError
from ..model.message import Message
from ..sinks.installed import get_registry
from ..sinks.sink import Sink, open_sink, protocol_sink
from ..uris.sink_uri import split_sink_uri
from ..model.validation import check_event


def protocols_reading(message: Message, skip: Iterable[str] = ()) -> list[str]:
    """The installed protocols (but ``skip``) that decode ``message`` into valid events, in name order."""
    registry = get_registry()
    skipped = set(skip)
    found = []
    for codec, _ in sorted(registry.codecs(), key=lambda registered: registered[0].name):
        if codec.name in skipped:
            continue
        try:
            sink = protocol_sink(codec.name, registry)
        except CdcwireError:  # it cannot run without parameters of its own
            continue
        try:
            events = codec.decoder(sink.config).decode(message)
            for event in events:
                check_event(event)
        except Exception:  # noqa: BLE001 - any failure of a foreign decoder on these bytes means "not this one"
            continue
        if events:
            found.append(codec.name)
    return found


def protocol_reading(message: Message, protocol: str) -> Optional[str]:
    """The first other installed protocol that decodes ``message`` into valid events, or None."""
    others = protocols_reading(message, skip=(protocol,))
    return others[0] if others else None


def protocol_hint(protocol: str) -> str:
    """What a decode error says when ``protocol`` reads the message."""
    return f"this looks like {protocol} (read it with protocol={protocol})"


def with_protocol(uri: str, protocol: str) -> str:
    """``uri`` with its ``protocol`` parameter set to ``protocol`` (added when it has none)."""
    base, _, query = uri.partition("?")
    pairs = [p for p in query.split("&") if p and not p.startswith("protocol=")]
    return f"{base}?{'&'.join([f'protocol={protocol}', *pairs])}"


def source_sink(uri: str) -> Sink:
    """The sink of ``uri``; a URI without ``protocol`` opens with the first installed protocol
    its parameters fit (a listing needs the transport, not the codec)."""
    if split_sink_uri(uri).query.get("protocol"):
        return open_sink(uri)
    first: Optional[CdcwireError] = None
    for name in get_registry().protocol_names():
        try:
            return open_sink(with_protocol(uri, name))
        except CdcwireError as exc:
            first = first or exc
    raise first or CdcwireError(f"no protocol is installed to read {uri.split('?')[0]}")
