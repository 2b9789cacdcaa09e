"""cdcwire's codec conformance suite, run on canal-json with and without the extension, with
compression, and with rows cut to their handle key."""

from __future__ import annotations

import pytest

from cdcwire.plugin_api import Encoder
from cdcwire.sinks.sink import Sink
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


class StoppedClock:
    """Every encoder the kit makes writes one ``ts``: a compressed value's bytes (and length)
    depend on it, and the kit's generated mutations must see the same bytes when replayed."""

    @pytest.fixture(autouse=True)
    def _stopped_clock(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("cdcwire_canal_json.encoder.now_ms", lambda: 1_700_000_000_000)


class TestCanalJSONSnappyConforms(StoppedClock, FixedClock, CodecConformance):
    sink_uri = (
        "file:///tmp/conformance/t?protocol=canal-json&enable-tidb-extension=true"
        "&large-message-handle-compression=snappy"
    )


class TestCanalJSONLz4Conforms(StoppedClock, FixedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=canal-json&large-message-handle-compression=lz4"


class TestCanalJSONHandleKeyOnlyConforms(FixedClock, CodecConformance):
    """Rows over 700 bytes are sent key-only: the kit's read-backs check the mark as the carrier says."""

    sink_uri = (
        "file:///tmp/conformance/t?protocol=canal-json&enable-tidb-extension=true"
        "&large-message-handle-option=handle-key-only&max-message-bytes=700"
    )

