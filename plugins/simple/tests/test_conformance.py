"""cdcwire's codec conformance suite, run on simple: JSON, JSON compressed, and Avro."""

from __future__ import annotations

import pytest

from cdcwire.testing.conformance import CodecConformance


class StoppedClock:
    """``buildTs`` is the wall clock: every encoder the kit makes writes one instant, so
    replayed and compared messages hold the same bytes."""

    @pytest.fixture(autouse=True)
    def _stopped_clock(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("cdcwire_simple.encoder.now_ms", lambda: 1_700_000_000_000)


class TestSimpleJsonConforms(StoppedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=simple"


class TestSimpleJsonSnappyConforms(StoppedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=simple&large-message-handle-compression=snappy"


class TestSimpleAvroConforms(StoppedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=simple&encoding-format=avro"
