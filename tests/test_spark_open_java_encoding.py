"""open-protocol's Java encoder (a ``BatchEncoder``) against the Python codec: a Spark write
encoded in the JVM gives the Python tier's messages, keys and values byte for byte, closed at
the same events, in the same partitions and order; a batch Java is not sure of is Python's, whole."""

from __future__ import annotations


import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.writer.jvm_encoding import EVENTS_COLUMN, encoding_tier
from cdcwire.testing.jvm_tiers import messages_in_files, write_on_python_tier, writes_on_both_tiers
from cdcwire.workload import Workload
from test_spark_java_encoding import PK, _frame, every_kind_rows, placed_after_java_encoding, trap_rows
from test_spark_jvm_routing import edge_events

TS = 460_000_000_000_000_000


def unsure_rows(ts: int = TS) -> list[RowChangedEvent]:
    """Rows the Python encoder writes and Java leaves to it: a row that arrived with its handle-key
    columns only (its key says ``"ohk"``), a row over 1000 bytes on its own (over a small
    max-message-bytes: Python sends its handle key only)."""
    return [
        RowChangedEvent(ts, "shop", "odd", (Column("id", ColumnType.INT, PK, 1, "int(11)"),), None,
                        handle_key_only=True),
        RowChangedEvent(ts, "shop", "odd", (
            Column("id", ColumnType.INT, PK, 2, "int(11)"),
            Column("s", ColumnType.VARCHAR, ColumnFlag(0), "x" * 1000, "varchar(2000)"),
        ), None),
    ]


def binary_rows() -> list[RowChangedEvent]:
    """Binary strings holding characters Python's Unicode and the JVM's may class differently
    (unassigned in one, the other, or both: U+0378, U+05CB, U+D9E06; new in Unicode 14: U+0870),
    private use and a noncharacter: Java escapes exactly those the Python encoder escapes."""
    texts = ["\u0378x", "\u05cb", "\U000d9e06", "\u0870\u0888", "\ue000", "\ufdd0", "\u00a0\u00ad\u2028"]
    return [
        RowChangedEvent(TS + i, "shop", "bin", (
            Column("id", ColumnType.INT, PK, i, "int(11)"),
            Column("b", ColumnType.VARCHAR, ColumnFlag.BINARY, text.encode(), "varbinary(10)"),
        ), None)
        for i, text in enumerate(texts)
    ]


def all_events() -> list:
    return (
        list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60))
        + edge_events(with_nan=False) + every_kind_rows(10) + trap_rows() + unsure_rows() + binary_rows()
    )


@pytest.mark.parametrize(
    "options",
    [
        "",
        "&max-batch-size=3",
        "&max-batch-size=1",
        "&max-message-bytes=1200&large-message-handle-option=handle-key-only",
        "&max-message-bytes=3000&max-batch-size=64&large-message-handle-option=handle-key-only",
        "&enable-old-value=false",
        "&only-output-updated-columns=true&delete-only-output-handle-key-columns=true",
    ],
)
def test_an_open_protocol_write_encoded_in_java_gives_the_python_tiers_messages(spark, tmp_path, options):
    events = _frame(spark, all_events()).drop("_cdc_seq")
    query = f"protocol=open-protocol&partition=index-value&partition-num=3{options}"
    assert encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/jvm?{query}"), events, "jvm")[0] == "jvm"
    python, java = writes_on_both_tiers(events, tmp_path, query)
    assert java == python and java.reconciles


@pytest.mark.parametrize("options", ["", "&enable-old-value=false", "&delete-only-output-handle-key-columns=true"])
def test_java_makes_the_messages_of_the_batches_it_is_sure_of_and_places_each_on_its_last_event(spark, tmp_path, options):
    """Without old values too (an update's new image alone, a delete's handle-key columns)."""
    events = _frame(spark, list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60))).drop("_cdc_seq")
    query = f"protocol=open-protocol&max-batch-size=4&partition=index-value&partition-num=3{options}"
    sink = cdcwire.open_sink(f"file://{tmp_path}/o?{query}")
    rows = placed_after_java_encoding(spark, sink, events)
    made = [r for r in rows if r[EVENTS_COLUMN] is not None]
    messages = [r for r in made if r[EVENTS_COLUMN] > 0]
    assert {r.kind for r in made} == {"insert", "update", "delete", "resolved", "ddl"}
    assert [r for r in rows if r[EVENTS_COLUMN] is None] == []  # nothing left to Python
    assert sum(r[EVENTS_COLUMN] for r in messages) == len(made)  # every event Java took is in one message
    assert max(r[EVENTS_COLUMN] for r in messages) == 4
    assert all(r.columns is None for r in made)  # images nulled: the encoding stage gets flat bytes


def test_a_row_java_is_not_sure_of_goes_to_python_with_its_open_batch_until_a_resolved_event(spark, tmp_path):
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)
    large = unsure_rows(TS + 5)[1]
    stream = [row(i) for i in range(5)] + [large] + [row(i) for i in range(6, 9)] + [ResolvedEvent(TS + 9)]
    stream += [row(i) for i in range(10, 13)] + unsure_rows(TS + 13)[:1] + [row(14)]
    events = _frame(spark, stream).drop("_cdc_seq").coalesce(1)
    query = "protocol=open-protocol&partition-num=1&max-batch-size=4&max-message-bytes=1000&large-message-handle-option=handle-key-only"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?{query}"), events)
    assert [r[EVENTS_COLUMN] for r in rows] == (
        [0, 0, 0, 4]  # rows 0-3: a message of Java's, on its last row
        + [None] * 5  # row 4, held in the open batch, the large row and the rows after it
        + [None]  # the resolved event empties the Python encoder's batch
        + [None] * 5  # Java again: rows 10-12 open a batch, the handle-key-only row sends it to Python with row 14
    )
    python, java = writes_on_both_tiers(events, tmp_path, query)
    assert java == python and java.reconciles


def test_a_ddl_event_closes_javas_batch_as_it_closes_pythons(spark, tmp_path):
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)
    ddl = DDLEvent(TS + 2, "shop", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN)
    events = _frame(spark, [row(0), row(1), ddl, row(3), row(4)]).drop("_cdc_seq").coalesce(1)
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/o?protocol=open-protocol&partition-num=1"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [
        ("insert", 0), ("insert", 2), ("ddl", 1), ("insert", 0), ("insert", 2)
    ]


@pytest.mark.parametrize(
    "options, why",
    [
        ("large-message-handle-option=claim-check&claim-check-storage-uri=file:///tmp/cc", "claim-check"),
        ("large-message-handle-compression=snappy", "compression"),
    ],
)
def test_open_protocol_options_java_does_not_encode_go_to_python(spark, tmp_path, options, why):
    df = _frame(spark, every_kind_rows(1)).drop("_cdc_seq")
    tier, reason = encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/o?protocol=open-protocol&{options}"), df, "jvm")
    assert tier == "python"
    assert why in reason


def test_a_python_run_over_several_arrow_batches_is_batched_as_one(spark, tmp_path):
    """The rows Java leaves to Python reach the encoding stage in Arrow batches of a few rows
    here: the Python encoder gets the whole run in one call, so its messages do not close at
    the batches' ends."""
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)
    large = unsure_rows(TS + 2)[1]
    events = _frame(spark, [row(0), row(1), large] + [row(i) for i in range(3, 30)]).drop("_cdc_seq").coalesce(1)
    query = "protocol=open-protocol&partition-num=1&max-batch-size=7&max-message-bytes=1000&large-message-handle-option=handle-key-only"
    setting = "spark.sql.execution.arrow.maxRecordsPerBatch"
    before = spark.conf.get(setting)
    spark.conf.set(setting, "4")
    try:
        jvm = cs.write(events, f"file://{tmp_path}/jvm?{query}")
    finally:
        spark.conf.set(setting, before)
    python = write_on_python_tier(events, f"file://{tmp_path}/py?{query}")
    assert messages_in_files(tmp_path / "jvm") == messages_in_files(tmp_path / "py")
    assert jvm.messages == python.messages == 5  # 30 rows, 7 a message, none closed at a batch's end
