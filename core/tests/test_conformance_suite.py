"""The conformance suite that plugin authors run, run here against the echo-json codec."""

from __future__ import annotations

from cdcwire.testing.conformance import CodecConformance


class TestEchoJSONConforms(CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=echo-json"
