"""eventlines against the conformance suite every cdcwire codec passes."""

from cdcwire.testing.conformance import CodecConformance


class TestEventLinesConformance(CodecConformance):
    sink_uri = "file:///tmp/cdcwire-eventlines/t?protocol=eventlines"
