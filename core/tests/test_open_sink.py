"""``open_sink``: the one place a URI becomes a Sink, from a URI or protocol name (text), a config or a sink."""

from __future__ import annotations

import pytest

from cdcwire.foundation.errors import SinkURIError
from cdcwire.sinks.sink import open_sink, resolve_sink
from cdcwire.uris.sink_uri import split_sink_uri

URI = "file:///tmp/o/orders?protocol=echo-json"


def test_open_sink_takes_text_a_config_or_a_sink_and_gives_the_same_sink():
    sink = open_sink(URI)
    assert open_sink(sink) is sink
    assert open_sink(sink.config).config == sink.config
    assert open_sink("echo-json").transport is None


def test_a_taken_apart_uri_is_refused_with_the_function_that_resolves_it(echo_registry):
    parts = split_sink_uri(URI)
    with pytest.raises(SinkURIError, match=r"not a taken-apart SinkURI: resolve that with cdcwire\.sinks\.sink\.resolve_sink"):
        open_sink(parts)
    assert resolve_sink(parts, echo_registry).config == open_sink(URI).config
