"""Executors get the sink URI as a string and resolve it once per Python worker, with that
worker's own plugin registry (a sink's codec and transport are never pickled)."""

from __future__ import annotations

from ...sinks.sink import Sink, open_sink

_SINKS: dict[str, Sink] = {}


def cached_sink(uri: str) -> Sink:
    sink = _SINKS.get(uri)
    if sink is None:
        sink = _SINKS[uri] = open_sink(uri)
    return sink
