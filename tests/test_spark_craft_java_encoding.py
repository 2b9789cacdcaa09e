"""craft's Java encoder (a ``BatchEncoder``) against the Python codec: a Spark write encoded in the
JVM gives the Python tier's messages byte for byte, closed at the same events (the reference's
size estimate, max-batch-size, the longest prefix that fits max-message-bytes), in the same
partitions and order; a batch Java is not sure of is Python's, whole."""

from __future__ import annotations


import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.spark.writer.jvm_encoding import EVENTS_COLUMN, encoding_tier
from cdcwire.testing.jvm_tiers import writes_on_both_tiers
from cdcwire.workload import Workload
from test_spark_java_encoding import PK, _frame, every_kind_rows, placed_after_java_encoding, trap_rows
from test_spark_jvm_routing import edge_events

TS = 470_000_000_000_000_000


def odd_rows(ts: int = TS) -> list[RowChangedEvent]:
    """A row the Python encoder writes and Java leaves to it: one that arrived with its handle-key
    columns only (the record checks Java ports are sure only of whole rows)."""
    return [
        RowChangedEvent(ts, "shop", "odd", (Column("id", ColumnType.INT, PK, 1, "int(11)"),), None,
                        handle_key_only=True),
    ]


def all_events() -> list:
    return (
        list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60))
        + edge_events(with_nan=False) + every_kind_rows(10) + trap_rows()
    )


@pytest.mark.parametrize(
    "options",
    [
        "",
        "&max-batch-size=3",
        "&max-batch-size=1",
        "&max-message-bytes=4096&max-batch-size=64",
        "&max-message-bytes=20000&max-batch-size=200",
        "&delete-only-output-handle-key-columns=true",
    ],
)
def test_a_craft_write_encoded_in_java_gives_the_python_tiers_messages(spark, tmp_path, options):
    events = _frame(spark, all_events()).drop("_cdc_seq")
    query = f"protocol=craft&partition=index-value&partition-num=3{options}"
    assert encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/jvm?{query}"), events, "jvm")[0] == "jvm"
    python, java = writes_on_both_tiers(events, tmp_path, query)
    assert java == python and java.reconciles


def test_java_makes_the_craft_messages_of_the_batches_it_is_sure_of(spark, tmp_path):
    events = _frame(spark, list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60))).drop("_cdc_seq")
    sink = cdcwire.open_sink(f"file://{tmp_path}/o?protocol=craft&max-batch-size=4&partition=index-value&partition-num=3")
    rows = placed_after_java_encoding(spark, sink, events)
    made = [r for r in rows if r[EVENTS_COLUMN] is not None]
    messages = [r for r in made if r[EVENTS_COLUMN] > 0]
    assert {r.kind for r in made} == {"insert", "update", "delete", "resolved", "ddl"}
    assert [r for r in rows if r[EVENTS_COLUMN] is None] == []  # nothing left to Python
    assert sum(r[EVENTS_COLUMN] for r in messages) == len(made)
    assert max(r[EVENTS_COLUMN] for r in messages) == 4
    assert all(r.columns is None for r in made)


def test_a_message_over_max_message_bytes_keeps_the_longest_prefix_that_fits_as_python_does(spark, tmp_path):
    """The reference's estimate lets a batch grow past the limit; the message that closes takes the
    rows that really fit and the rest move on to the next, in Java as in Python."""
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (
        Column("id", ColumnType.INT, PK, i, "int(11)"), Column("s", ColumnType.VARCHAR, ColumnFlag(0), "x" * 150, "varchar(200)"),
    ), None)
    events = _frame(spark, [row(i) for i in range(12)]).drop("_cdc_seq").coalesce(1)
    query = "protocol=craft&partition-num=1&max-batch-size=100&max-message-bytes=700"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?{query}"), events)
    counts = [r[EVENTS_COLUMN] for r in rows if r[EVENTS_COLUMN]]
    assert None not in [r[EVENTS_COLUMN] for r in rows] and sum(counts) == 12 and len(counts) > 3
    python, java = writes_on_both_tiers(events, tmp_path, query)
    assert java == python
    assert [len(v) for v in java.messages.values()] == [len(counts)]


def test_a_row_java_is_not_sure_of_goes_to_python_with_its_pending_rows_until_a_resolved_event(spark, tmp_path):
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)
    stream = [row(i) for i in range(5)] + odd_rows(TS + 5) + [row(i) for i in range(6, 9)] + [ResolvedEvent(TS + 9)]
    stream += [row(i) for i in range(10, 12)]
    events = _frame(spark, stream).drop("_cdc_seq").coalesce(1)
    query = "protocol=craft&partition-num=1&max-batch-size=4"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?{query}"), events)
    assert [r[EVENTS_COLUMN] for r in rows] == (
        [0, 0, 0, 4]  # rows 0-3: a message of Java's, on its last row
        + [None] * 5  # row 4, pending, the handle-key-only row and the rows after it
        + [None]  # the resolved event empties the Python encoder's pending rows
        + [0, 2]  # Java again
    )
    python, java = writes_on_both_tiers(events, tmp_path, query)
    assert java == python and java.reconciles


def test_a_ddl_event_closes_javas_craft_batch_as_it_closes_pythons(spark, tmp_path):
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)
    ddl = DDLEvent(TS + 2, "shop", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN)
    events = _frame(spark, [row(0), row(1), ddl, row(3), row(4)]).drop("_cdc_seq").coalesce(1)
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?protocol=craft&partition-num=1"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [
        ("insert", 0), ("insert", 2), ("ddl", 1), ("insert", 0), ("insert", 2)
    ]
