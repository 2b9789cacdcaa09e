"""The JVM staging tier: on a ``file://`` write, the messages the Java encoders made are framed
and staged by Java itself, and the Python stage gets a marker per topic-partition and run in
their place, with the rows Java left to Python between; the files are the Python tier's."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import functions as F

import cdcwire
from cdcwire import Column, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent, TransportError
from cdcwire.spark.pipeline import _laid_out
from cdcwire import spark as cs
from cdcwire.spark.writer.jvm_encoding import ENCODING_SETTING, STAGED_COLUMN
from cdcwire.spark.writer.jvm_staging import Marker
from cdcwire.spark.writer.routing_counts import COUNTS_COLUMN
from cdcwire.testing.jvm_tiers import writes_on_both_tiers
from cdcwire.workload import Workload
from test_spark_craft_java_encoding import odd_rows
from test_spark_java_encoding import PK, _frame

QUERIES = {
    "canal-json": "protocol=canal-json&enable-tidb-extension=true&partition-num=2",
    "open-protocol": "protocol=open-protocol&partition-num=2",
    "craft": "protocol=craft&partition-num=2",
}
TS = 470_000_000_000_000_000


def row(i: int) -> RowChangedEvent:
    return RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)


def rows_around_a_ddl() -> list:
    """Rows of one table, a DDL event (left to Python) in their midst, then more rows."""
    ddl = DDLEvent(TS + 10, "shop", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN)
    return [row(i) for i in range(10)] + [ddl] + [row(i) for i in range(11, 20)]


def rows_around_an_odd_row() -> list:
    """For craft and open-protocol, whose Java encoders make DDL messages too: ten rows and a
    resolved event that closes their message, a row Java leaves to Python, the resolved event that
    closes Python's batch, then more rows."""
    return (
        [row(i) for i in range(10)] + [ResolvedEvent(TS + 9)] + odd_rows(TS + 10) + [ResolvedEvent(TS + 10)]
        + [row(i) for i in range(11, 20)]
    )


def row_changes(n: int, tables: int) -> list[RowChangedEvent]:
    """A workload's row changes alone (its DDL events are Python's)."""
    return [e for e in Workload(n, seed=4, tables=tables) if isinstance(e, RowChangedEvent)]


def staged_rows(spark, tmp_path, events, query: str) -> list:
    """The rows the Python stage of a write of ``events`` would get, in order: a marker parsed, a
    row left to Python as its kind."""
    sink = cdcwire.open_sink(f"file://{tmp_path}/s?{query}")
    job = sink.needs_transport().begin_write(sink.config, f"file://{tmp_path}/s?{query}")
    try:
        laid, plan = _laid_out(events, sink, None, staging_area=job.staging_area())
        assert plan.encoding == "jvm"
        rows = laid.where(F.col(COUNTS_COLUMN).isNull()).select(
            "_cdc_topic", "_cdc_partition", "kind", STAGED_COLUMN, F.spark_partition_id().alias("p"),
        ).collect()
    finally:
        job.discard()
    return [
        Marker.parse(r._cdc_topic, r._cdc_partition, r[STAGED_COLUMN]) if r[STAGED_COLUMN] else r.kind for r in rows
    ]


@pytest.mark.parametrize("protocol", sorted(QUERIES))
def test_java_stages_every_message_it_made_and_python_gets_one_marker_per_topic_partition(spark, tmp_path, protocol):
    changes = row_changes(200, tables=2)
    rows = staged_rows(spark, tmp_path, _frame(spark, changes).drop("_cdc_seq"), QUERIES[protocol])
    assert all(isinstance(r, Marker) for r in rows)
    assert sorted((m.run.topic, m.run.partition, m.run.segment) for m in rows) == [("s", 0, 0), ("s", 1, 0)]
    assert sum(m.events_in for m in rows) == len(changes)
    assert all(m.messages > 0 and m.failure is None for m in rows)


@pytest.mark.parametrize("protocol", sorted(QUERIES))
def test_java_resumes_staging_after_a_row_left_to_python_in_its_place(spark, tmp_path, protocol):
    query = QUERIES[protocol].replace("partition-num=2", "partition-num=1")
    if protocol in ("craft", "open-protocol"):  # their Java encoders make DDL messages too
        events, left = rows_around_an_odd_row(), ["insert", "resolved"]
    else:
        events, left = rows_around_a_ddl(), ["ddl"]
    events = _frame(spark, events).drop("_cdc_seq")
    rows = staged_rows(spark, tmp_path, events, query)
    assert [r if isinstance(r, str) else ("run", r.run.segment) for r in rows] == [("run", 0), *left, ("run", 1)]
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=rb'"ts":\d+')
    assert java == python and java.reconciles


def test_a_write_staged_in_java_gives_the_python_tiers_files_and_counts(spark, tmp_path):
    events = _frame(spark, list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60))).drop("_cdc_seq")
    query = "protocol=canal-json&enable-tidb-extension=true&partition=index-value&partition-num=3"
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=rb'"ts":\d+')
    assert java == python and java.reconciles


def test_a_file_java_cannot_stage_is_said_in_its_marker_as_the_transports_error(spark, tmp_path):
    events = _frame(spark, row_changes(20, tables=1)).drop("_cdc_seq")
    sink = cdcwire.open_sink(f"file://{tmp_path}/s?{QUERIES['canal-json']}")
    not_a_directory = tmp_path / "a-file"
    not_a_directory.write_text("")
    laid, _ = _laid_out(events, sink, None, staging_area=str(not_a_directory))
    rows = laid.where(F.col(STAGED_COLUMN).isNotNull()).collect()
    marker = Marker.parse(rows[0]._cdc_topic, rows[0]._cdc_partition, rows[0][STAGED_COLUMN])
    assert json.loads(rows[0][STAGED_COLUMN])["failure"] is not None
    with pytest.raises(TransportError, match=r"^cannot stage s/\d in .*a-file/.*; nothing was published$"):
        marker.raise_failure()


def test_a_topic_that_cannot_be_a_file_is_left_to_python_and_fails_as_on_the_python_tier(spark, tmp_path):
    events = _frame(spark, row_changes(20, tables=1)).drop("_cdc_seq")
    errors = []
    for tier in ("python", "auto"):
        spark.conf.set(ENCODING_SETTING, tier)
        try:
            with pytest.raises(TransportError, match=r"topic '\.cdc_orders' cannot be written .* starts with '\.'") as refused:
                cs.write(events, f"file://{tmp_path}/{tier}/s?{QUERIES['canal-json']}&topic-rule=.cdc_{{table}}")
        finally:
            spark.conf.unset(ENCODING_SETTING)
        errors.append(str(refused.value).replace(f"/{tier}", "/"))
    assert errors[0] == errors[1]
