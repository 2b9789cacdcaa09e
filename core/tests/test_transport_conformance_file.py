"""file:// runs the transport conformance kit (cdcwire.testing.transport_conformance), as a
third-party transport would, plus the kit's file-only checks of torn tails."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Iterator, Optional

import pytest

from cdcwire import Message
from cdcwire.testing.transport_conformance import (
    SinkFactory,
    TransportConformance,
    check_file_an_incomplete_last_record_is_never_read_as_a_message,
    check_file_the_next_write_cuts_an_incomplete_last_record,
    check_watermarks_bound_what_was_written,
)
from cdcwire.contract.transport import MessageReader


@pytest.fixture
def file_sinks(tmp_path: Path) -> SinkFactory:
    """A fresh topic per call, each in a sink directory of its own under the test's tmp_path."""
    counter = itertools.count()

    def new_sink_uri() -> str:
        n = next(counter)
        return f"file://{tmp_path}/sink-{n}/topic-{n}?protocol=echo-json"

    return new_sink_uri


class TestFileTransportConformance(TransportConformance):
    """file:// declares: None kept apart from empty, fixed-size topics (prepare_topic records a
    new topic's partition count, a larger partition-num is refused, a write outside the count
    too; see transports/file_topics.py), a missing topic is an error."""

    none_key = True
    none_value = True
    fixed_size_topics = True
    missing_topic = "error"

    @pytest.fixture
    def new_sink_uri(self, file_sinks: SinkFactory) -> SinkFactory:
        return file_sinks


def test_file_an_incomplete_last_record_is_never_read_as_a_message(file_sinks: SinkFactory) -> None:
    """A write that died mid-record leaves a torn tail (file_framing.py): cut at every byte."""
    check_file_an_incomplete_last_record_is_never_read_as_a_message(file_sinks)


def test_file_the_next_write_cuts_an_incomplete_last_record(file_sinks: SinkFactory) -> None:
    """The torn tail was never acknowledged, so the next writer may cut it, and only it."""
    check_file_the_next_write_cuts_an_incomplete_last_record(file_sinks)


def test_the_kit_refuses_a_sink_factory_that_sets_partition_num(tmp_path: Path) -> None:
    """The kit sets partition-num itself; a factory that sets it would make the partition
    checks test something else, so it is told at once."""
    preset = f"file://{tmp_path}/t?protocol=echo-json&partition-num=2"
    with pytest.raises(AssertionError, match=r"sets \['partition-num'\]: leave them to the conformance kit"):
        check_watermarks_bound_what_was_written(lambda: preset)


def test_the_file_checks_refuse_a_sink_that_is_not_file() -> None:
    """The torn-tail checks know the file framing only: another scheme is told so, not torn."""
    kafka = "kafka://127.0.0.1:9/t?protocol=echo-json"
    with pytest.raises(AssertionError, match=r"need a file:// sink factory, got kafka://"):
        check_file_the_next_write_cuts_an_incomplete_last_record(lambda: kafka)


def test_a_reader_without_its_own_watermarks_cannot_be_made() -> None:
    """Every reader answers watermarks() itself (the kit and Spark's read planning rely on it),
    so one that does not is refused when it is made, not slow when a read is planned."""

    class NoWatermarks(MessageReader):
        def partitions(self, topic: str) -> list[int]:
            return [0]

        def read(
            self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
        ) -> Iterator[Message]:
            return iter(())

    with pytest.raises(TypeError, match="watermarks"):
        NoWatermarks()  # type: ignore[abstract]
