"""cdcwire's codec conformance suite, run on canal-json with and without the extension."""

from __future__ import annotations

from cdcwire.plugin_api import Encoder
from cdcwire.sink import Sink
from cdcwire.testing.conformance import CodecConformance
from cdcwire_canal_json.encoder import CanalJSONEncoder
from cdcwire_canal_json.options import CanalOptions


class FixedClock:
    """Canal-json's ``ts`` is the wall clock: the columnar and Event paths are compared at one instant."""

    def encoder_under_test(self, sink: Sink) -> Encoder:
        return CanalJSONEncoder(CanalOptions.from_config(sink.config), clock=lambda: 1_700_000_000_000)


class TestCanalJSONConforms(FixedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json"


class TestCanalJSONWithExtensionConforms(FixedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json&enable-tidb-extension=true"


class TestCanalJSONContentCompatibleConforms(FixedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json&content-compatible=true"
