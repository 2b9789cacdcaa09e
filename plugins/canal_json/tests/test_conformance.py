"""cdcwire's codec conformance suite, run on canal-json with and without the extension."""

from __future__ import annotations

from cdcwire.testing.conformance import CodecConformance


class TestCanalJSONConforms(CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json"


class TestCanalJSONWithExtensionConforms(CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json&enable-tidb-extension=true"


class TestCanalJSONContentCompatibleConforms(CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json&content-compatible=true"
