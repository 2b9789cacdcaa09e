"""The columnar path (EventBatch in) writes what the Event path writes, under every option
that changes which path a row takes."""

from __future__ import annotations

import pytest

from cdcwire import open_sink
from cdcwire.testing.conformance import check_columnar_encoding_on_mixed_batches
from cdcwire_canal_json.encoder import CanalJSONEncoder
from cdcwire_canal_json.options import CanalOptions

OPTION_SETS = [
    "enable-tidb-extension=true",
    "enable-tidb-extension=true&only-output-updated-columns=true",
    "delete-only-output-handle-key-columns=true",
    "enable-tidb-extension=true&large-message-handle-option=handle-key-only&max-message-bytes=700",
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_columnar_path_writes_the_event_paths_bytes_under_option(options: str) -> None:
    sink = open_sink(f"file:///tmp/columnar/t?protocol=canal-json&{options}")

    def make() -> CanalJSONEncoder:
        return CanalJSONEncoder(CanalOptions.from_config(sink.config), clock=lambda: 1_700_000_000_000)

    check_columnar_encoding_on_mixed_batches(make)


def test_columnar_path_builds_no_column_objects_for_rows_with_default_options(monkeypatch) -> None:
    from cdcwire.event_batch import EventBatch, ImageShape
    from cdcwire.events import RowChangedEvent
    from cdcwire.workload import Workload

    sink = open_sink("file:///tmp/columnar/t?protocol=canal-json&enable-tidb-extension=true")
    events = [e for e in Workload(300, seed=3) if isinstance(e, RowChangedEvent)]
    batch = EventBatch.of_events(events)
    encoder = CanalJSONEncoder(CanalOptions.from_config(sink.config), clock=lambda: 1)
    list(encoder.encode_batches([batch]))  # layouts are built from the shapes once, here

    def no_columns(self, values):
        raise AssertionError("the columnar path built Column objects")

    monkeypatch.setattr(ImageShape, "columns", no_columns)
    assert len(list(encoder.encode_batches([batch]))) == len(events)
