"""The columnar path (EventBatch in) writes what the Event path writes, batched alike, under
every option that changes which path a row takes."""

from __future__ import annotations

import pytest

from cdcwire import open_sink
from cdcwire.api.codec_calls import encoder_for
from cdcwire.model.event_batch import EventBatch, ImageShape
from cdcwire.model.events import RowChangedEvent
from cdcwire.testing.conformance import check_columnar_encoding_on_mixed_batches
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

    check_columnar_encoding_on_mixed_batches(make)


def test_columnar_path_builds_no_column_objects_for_rows_with_default_options(monkeypatch) -> None:
    events = [e for e in Workload(300, seed=3) if isinstance(e, RowChangedEvent)]
    batch = EventBatch.of_events(events)
    encoder = encoder_for(open_sink("file:///tmp/columnar/t?protocol=open-protocol"), "t", 0, events_checked=True)

    def no_columns(self, values):
        raise AssertionError("the columnar path built Column objects")

    list(encoder.encode_batches([batch]))  # per-shape fragments are made once, here
    monkeypatch.setattr(ImageShape, "columns", no_columns)
    assert sum(p.events for p in encoder.encode_batches([batch])) == len(events)
