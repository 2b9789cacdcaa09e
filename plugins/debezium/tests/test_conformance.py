"""cdcwire's codec conformance suite, run on debezium with the extension (which rows need to be
read back), with the old value off, and with compression."""

from __future__ import annotations

import pytest

from cdcwire.testing.conformance import CodecConformance


class StoppedClock:
    """The envelope's ``ts_ms`` is the wall clock: every encoder the kit makes writes one instant,
    so replayed and compared messages hold the same bytes."""

    @pytest.fixture(autouse=True)
    def _stopped_clock(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr("cdcwire_debezium.encoder.now_ms", lambda: 1_700_000_000_000)


class TestDebeziumConforms(StoppedClock, CodecConformance):
    sink_uri = "file:///tmp/conformance/t?protocol=debezium&enable-tidb-extension=true"


class TestDebeziumWithoutOldValueConforms(StoppedClock, CodecConformance):
    sink_uri = (
        "file:///tmp/conformance/t?protocol=debezium&enable-tidb-extension=true&debezium-output-old-value=false"
    )


class TestDebeziumSnappyConforms(StoppedClock, CodecConformance):
    sink_uri = (
        "file:///tmp/conformance/t?protocol=debezium&enable-tidb-extension=true"
        "&large-message-handle-compression=snappy"
    )
