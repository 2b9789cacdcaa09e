"""Executors get the sink URI as a string and parse it once per Python worker."""

from __future__ import annotations

from ..sink_uri import SinkConfig, parse_sink_uri

_CONFIGS: dict[str, SinkConfig] = {}


def sink_config(uri: str) -> SinkConfig:
    config = _CONFIGS.get(uri)
    if config is None:
        config = _CONFIGS[uri] = parse_sink_uri(uri)
    return config
