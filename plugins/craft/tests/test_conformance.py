"""The codec conformance suite every cdcwire codec runs."""

from __future__ import annotations

from cdcwire.testing.conformance import CodecConformance


class TestCraftConformance(CodecConformance):
    sink_uri = "file:///tmp/cdcwire-craft-conformance/t?protocol=craft"
