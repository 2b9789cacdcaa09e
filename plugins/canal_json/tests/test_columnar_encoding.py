"""The columnar path (EventBatch in) writes what the Event path writes, under every option
that changes which path a row takes."""

from __future__ import annotations

import random

import pytest

from cdcwire import open_sink
from cdcwire.model.events import RowChangedEvent
from cdcwire.testing.conformance import (
    assert_columnar_encoding_matches,
    check_columnar_encoding_on_mixed_batches,
)
from cdcwire_canal_json.encoder import CanalJSONEncoder
from cdcwire_canal_json.options import CanalOptions

OPTION_SETS = [
    "enable-tidb-extension=true",
    "enable-tidb-extension=true&only-output-updated-columns=true",
    "delete-only-output-handle-key-columns=true",
    "enable-tidb-extension=true&large-message-handle-option=handle-key-only&max-message-bytes=700",
    "large-message-handle-compression=snappy",
    "enable-tidb-extension=true&large-message-handle-compression=lz4&only-output-updated-columns=true",
    "enable-tidb-extension=true&large-message-handle-option=handle-key-only&max-message-bytes=700"
    "&large-message-handle-compression=snappy",
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_columnar_path_writes_the_event_paths_bytes_under_option(options: str) -> None:
    sink = open_sink(f"file:///tmp/columnar/t?protocol=canal-json&{options}")

    def make() -> CanalJSONEncoder:
        return CanalJSONEncoder(CanalOptions.from_config(sink.config), clock=lambda: 1_700_000_000_000)

    check_columnar_encoding_on_mixed_batches(make)


@pytest.mark.parametrize("compression, limit", [("none", 700), ("snappy", 450)])
def test_columnar_path_claim_checks_as_the_event_path(
    tmp_path, monkeypatch, compression: str, limit: int
) -> None:
    """Stored objects are named by uuid4: each encoder's run gets the same names, so the two
    paths' pointers are comparable byte for byte."""
    import uuid

    from cdcwire.large_messages import claim_check

    sink = open_sink(
        f"file:///tmp/columnar/t?protocol=canal-json&enable-tidb-extension=true&max-message-bytes={limit}"
        f"&large-message-handle-option=claim-check&claim-check-storage-uri=file://{tmp_path}"
        f"&large-message-handle-compression={compression}"
    )
    names = iter(())

    def make() -> CanalJSONEncoder:
        nonlocal names
        names = (uuid.UUID(int=i) for i in range(1, 1 << 30))
        return CanalJSONEncoder(CanalOptions.from_config(sink.config), clock=lambda: 1_700_000_000_000)

    monkeypatch.setattr(claim_check.uuid, "uuid4", lambda: next(names))
    check_columnar_encoding_on_mixed_batches(make)
    noise = random.Random(3).randbytes(1000).hex()  # too large compressed as well
    kinds = ["insert", "update", "delete"] * 2
    big = [_row(kind, noise if i % 2 else "small") for i, kind in enumerate(kinds)]
    assert_columnar_encoding_matches(make, big, batch_size=4)
    assert len(list(make().encode(big))) == len(big)  # sent, none refused
    assert any(p.name.endswith(".json") for p in tmp_path.iterdir()), "no row was claim-checked"


def _row(kind: str, body: str) -> RowChangedEvent:
    from cdcwire import Column, ColumnFlag, ColumnType

    row = (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 7),
           Column("body", ColumnType.VARCHAR, ColumnFlag(0), body))
    new, old = {"insert": (row, None), "update": (row, row), "delete": (None, row)}[kind]
    return RowChangedEvent(9 << 18, "s", "t", new, old)


def test_columnar_path_builds_no_column_objects_for_rows_with_default_options(monkeypatch) -> None:
    from cdcwire.model.event_batch import EventBatch, ImageShape
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
