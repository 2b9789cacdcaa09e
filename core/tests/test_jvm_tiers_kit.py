"""The JVM tier kit's own rules (cdcwire.testing.jvm_tiers), where no Spark session is needed."""

from __future__ import annotations

from pyspark.sql import Row

from cdcwire.testing.jvm_tiers import messages_in_files, messages_read_otherwise, sink_of_messages


def _row(offset: int, kind: str, partition: int = 0) -> Row:
    return Row(topic="t", partition=partition, offset=offset, kind=kind)


def test_reads_alike_have_no_message_read_otherwise():
    rows = [_row(0, "insert"), _row(1, "update"), _row(1, "update")]
    assert messages_read_otherwise(rows, list(rows)) == []


def test_a_message_read_into_other_rows_is_named_by_its_place():
    python = [_row(0, "insert"), _row(1, "update"), _row(2, "delete")]
    java = [_row(0, "insert"), _row(1, "insert"), _row(2, "delete")]
    assert messages_read_otherwise(python, java) == [("t", 0, 1)]


def test_a_message_only_one_tier_gave_rows_for_is_named_too():
    python = [_row(0, "insert"), _row(0, "insert", partition=1)]
    java = [_row(0, "insert")]
    assert messages_read_otherwise(python, java) == [("t", 1, 0)]


def test_two_outputs_that_differ_only_in_their_wall_clock_compare_equal_with_it_zeroed(tmp_path):
    sink_of_messages(tmp_path / "a", [b'{"id":1,"ts":1700000000001}'], "protocol=echo-json")
    sink_of_messages(tmp_path / "b", [b'{"id":1,"ts":1700000000999}'], "protocol=echo-json")
    assert messages_in_files(tmp_path / "a") != messages_in_files(tmp_path / "b")
    assert messages_in_files(tmp_path / "a", rb'"ts":\d+') == messages_in_files(tmp_path / "b", rb'"ts":\d+')


def test_the_wall_clock_pattern_zeroes_only_its_own_digits(tmp_path):
    sink_of_messages(tmp_path / "a", [(b"k1", b'{"id":12,"ts":345}')], "protocol=echo-json")
    assert messages_in_files(tmp_path / "a", rb'"ts":\d+') == {"t/0.cdcwire": [(b"k1", b'{"id":12,"ts":000}')]}
