"""The columnar path (EventBatch in) writes what the Event path writes, batched alike; the
generated values encoder and its looping twin write the same bytes."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdcwire import open_sink
from cdcwire.api.codec_calls import encoder_for
from cdcwire.model.event_batch import EventBatch, ImageShape
from cdcwire.model.events import RowChangedEvent
from cdcwire.testing.conformance import check_columnar_encoding_on_mixed_batches, columnar_and_event_payloads
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire.workload import Workload
from cdcwire_craft import table_shape
from cdcwire_craft.group_code import compiled_values_encoder, looping_values_encoder
from cdcwire_craft.table_shape import ShapeCache

OPTION_SETS = ["", "max-batch-size=3", "delete-only-output-handle-key-columns=true", "max-message-bytes=900"]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_columnar_path_writes_the_event_paths_bytes_under_option(options: str) -> None:
    sink = open_sink(f"file:///tmp/columnar/t?protocol=craft&{options}")

    def make():
        return encoder_for(sink, "t", 0, events_checked=True)

    check_columnar_encoding_on_mixed_batches(make)


def test_hot_shapes_take_the_generated_values_encoder_and_keep_the_bytes(monkeypatch) -> None:
    monkeypatch.setattr(table_shape, "HOT_AFTER", 2)
    events = [e for e in Workload(400, seed=3) if isinstance(e, RowChangedEvent)]
    sink = open_sink("file:///tmp/columnar/t?protocol=craft")
    columnar, by_event = columnar_and_event_payloads(
        lambda: encoder_for(sink, "t", 0, events_checked=True), events, batch_size=50
    )
    assert columnar == by_event


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=3))
def test_generated_and_looping_values_encoders_write_the_same_chunk(events) -> None:
    for event in events:
        image = event.image
        shape = ShapeCache().shape_of(image)
        values = [c.value for c in image]
        looping = looping_values_encoder(shape.kinds, shape.estimate)(values)
        assert compiled_values_encoder(shape.kinds, shape.estimate)(values) == looping
        assert shape.encode_group(image) == looping


def test_columnar_path_builds_no_column_objects_for_rows(monkeypatch) -> None:
    events = [e for e in Workload(300, seed=3) if isinstance(e, RowChangedEvent)]
    batch = EventBatch.of_events(events)
    encoder = encoder_for(open_sink("file:///tmp/columnar/t?protocol=craft"), "t", 0, events_checked=True)

    def no_columns(self, values):
        raise AssertionError("the columnar path built Column objects")

    monkeypatch.setattr(ImageShape, "columns", no_columns)
    assert sum(p.events for p in encoder.encode_batches([batch])) == len(events)
