"""The DDL messages craft's and open-protocol's Java encoders make (``BatchEncoder.ddl``): the
Python tier's bytes, and a DDL Java is not sure of left to Python."""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import DDLEvent, DDLType
from cdcwire.spark.writer.jvm_encoding import EVENTS_COLUMN
from cdcwire.testing.jvm_tiers import writes_on_both_tiers
from test_spark_java_encoding import _frame, placed_after_java_encoding

TS = 470_000_000_000_000_000
PROTOCOLS = ("craft", "open-protocol")


def edge_ddls() -> list[DDLEvent]:
    """Names that are no term and stay out of a key (empty), one name for both, quotes,
    backslashes and the characters Go's HTML escaping writes as escapes, several bytes a
    character, and a query whose length takes two bytes."""
    return [
        DDLEvent(TS + 1, "shop", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN),
        DDLEvent(TS + 2, "", "", "CREATE DATABASE x", DDLType.CREATE_SCHEMA),
        DDLEvent(TS + 3, "same", "same", "TRUNCATE same", DDLType.TRUNCATE_TABLE),
        DDLEvent(TS + 4, "s<&>", 'q"\\', "ALTER TABLE `q` COMMENT 'a<b && c>d \"e\" \\n'", DDLType.MODIFY_TABLE_COMMENT),
        DDLEvent(TS + 5, "магазин", "表", "ALTER TABLE 表 COMMENT '" + "é\u2028" * 100 + "'", DDLType.MODIFY_TABLE_COMMENT),
    ]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_javas_ddl_messages_are_pythons_byte_for_byte(spark, tmp_path, protocol):
    events = _frame(spark, edge_ddls()).drop("_cdc_seq").coalesce(1)
    query = f"protocol={protocol}&partition-num=1"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?{query}"), events)
    assert [r[EVENTS_COLUMN] for r in rows] == [1] * len(edge_ddls())
    python, java = writes_on_both_tiers(events, tmp_path, query)
    assert java == python and java.reconciles


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_ddl_whose_message_passes_max_message_bytes_is_left_to_python(spark, tmp_path, protocol):
    ddl = DDLEvent(TS, "shop", "t", "ALTER TABLE t COMMENT '" + "x" * 600 + "'", DDLType.MODIFY_TABLE_COMMENT)
    events = _frame(spark, [ddl]).drop("_cdc_seq").coalesce(1)
    query = f"protocol={protocol}&partition-num=1&max-message-bytes=512"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?{query}"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [("ddl", None)]
