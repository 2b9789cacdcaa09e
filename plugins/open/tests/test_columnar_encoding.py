"""The columnar path (EventBatch in) writes what the Event path writes, batched alike, under
every option that changes which path a row takes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdcwire import open_sink
from cdcwire.codec_calls import encoder_for
from cdcwire.event_batch import EventBatch, ImageShape
from cdcwire.events import RowChangedEvent
from cdcwire.testing.conformance import columnar_and_event_payloads
from cdcwire.testing.strategies import event_batches
from cdcwire.workload import Workload

OPTION_SETS = [
    "",
    "max-batch-size=3",
    "enable-old-value=false",
    "only-output-updated-columns=true",
    "delete-only-output-handle-key-columns=true",
    "large-message-handle-option=handle-key-only&max-message-bytes=900",
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_columnar_path_writes_the_event_paths_bytes_under_option(options: str) -> None:
    sink = open_sink(f"file:///tmp/columnar/t?protocol=open-protocol&{options}")

    def make():
        return encoder_for(sink, "t", 0, events_checked=True)

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(event_batches(), st.integers(1, 6))
    def check(events: list, batch_size: int) -> None:
        try:
            by_event = list(make().encode(events))
        except Exception as exc:  # a row too large even as its key, a keyless table: the same error
            with pytest.raises(type(exc)) as info:
                columnar_and_event_payloads(make, events, batch_size)
            assert str(info.value) == str(exc)
            return
        columnar, _ = columnar_and_event_payloads(make, events, batch_size)
        assert columnar == by_event

    check()


def test_columnar_path_builds_no_column_objects_for_rows_with_default_options(monkeypatch) -> None:
    events = [e for e in Workload(300, seed=3) if isinstance(e, RowChangedEvent)]
    batch = EventBatch.of_events(events)
    encoder = encoder_for(open_sink("file:///tmp/columnar/t?protocol=open-protocol"), "t", 0, events_checked=True)

    def no_columns(self, values):
        raise AssertionError("the columnar path built Column objects")

    list(encoder.encode_batches([batch]))  # per-shape fragments are made once, here
    monkeypatch.setattr(ImageShape, "columns", no_columns)
    assert sum(p.events for p in encoder.encode_batches([batch])) == len(events)
