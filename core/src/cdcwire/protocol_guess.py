"""Which installed protocols a message could be in: each one's decoder tries it.

For a listing of a source whose protocol is not known (``cdcwire inspect --list``). A guess,
not a proof: a protocol whose decoder reads the message without an error is a candidate
(several may be), one that needs parameters the URI does not give (a schema registry) is
tried with the URI's parameters where they fit it, else with its defaults.
"""

from __future__ import annotations

import logging
from typing import Optional

from .errors import CdcwireError
from .message import Message
from .poll_decoding import PollDecoder
from .registry import get_registry
from .sink import Sink, open_sink
from .sink_uri import split_sink_uri

log = logging.getLogger(__name__)


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


def decoders(uri: str) -> dict[str, PollDecoder]:
    """A decoder of every installed protocol, with the URI's parameters where they fit it."""
    out: dict[str, PollDecoder] = {}
    for name in get_registry().protocol_names():
        for target in (with_protocol(uri, name), name):
            try:
                out[name] = PollDecoder(target)
                break
            except CdcwireError:
                continue
    return out


def guess_protocols(message: Message, decoders: dict[str, PollDecoder]) -> list[str]:
    """The protocols whose decoder reads ``message`` without an error, in name order."""
    fits = []
    for name, decode in sorted(decoders.items()):
        try:
            decode(message)
        except Exception as exc:  # noqa: BLE001 - any failure of a codec on foreign bytes means "not this one"
            log.debug("%s does not read %s: %s", name, message.location(), exc)
            continue
        fits.append(name)
    return fits
