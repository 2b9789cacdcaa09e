"""The JVM tier kit's own rules (cdcwire.testing.jvm_tiers), where no Spark session is needed."""

from __future__ import annotations

from pyspark.sql import Row

from cdcwire.testing.jvm_tiers import messages_read_otherwise


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
