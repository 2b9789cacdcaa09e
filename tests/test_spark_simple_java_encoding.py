"""simple's Java encoder (a ``BatchEncoder`` whose BOOTSTRAP is a message of no event) against the
Python codec: a Spark write encoded in the JVM gives the Python tier's messages byte for byte (the
``buildTs`` clock aside), in the same partitions and order, BOOTSTRAPs where the Python encoder sends
them; at the first event of a topic-partition Java is not sure of, the Python encoder takes over from
the state Java hands it (plugin API 1.18) and the messages Java gave before stay."""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.spark.writer.jvm_encoding import BEFORE_COLUMN, EVENTS_COLUMN, encoding_tier
from cdcwire.testing.jvm_tiers import writes_on_both_tiers
from cdcwire.workload import Workload
from pyspark.sql import functions as F
from test_spark_java_encoding import PK, _frame, every_kind_rows, laid_out_and_java_encoded, trap_rows
from test_spark_jvm_routing import edge_events

TS = 470_000_000_000_000_000
#: The time of encoding each message carries: the two tiers' clocks differ.
BUILD_TS = rb'"buildTs":\d+'


def java_events() -> list:
    """Rows, resolved and DDL events of several tables, every column kind, float and text traps,
    the routing's edge cases, split updates (key changes under index-value partitioning), tables
    that change shape, type texts the workload lacks: every one an event Java is sure of."""
    return (
        list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60)) + every_kind_rows(10) + trap_rows()
        + edge_events(with_nan=False) + shape_changes() + type_text_rows() + ddl_events()
    )


def ddl_events() -> list:
    """A table's life in DDL: created (no columns known until its first row, which then gets a
    new version and a BOOTSTRAP), altered (the columns kept under the DDL's commit ts), a row of a
    new shape, truncated, dropped and created again; a database's DDL (no table) and one of
    neither; a DDL of a table no row has been seen of."""
    row = lambda ts, *extra: RowChangedEvent(ts, "life", "t", (Column("id", ColumnType.INT, PK, ts % 100, "int(11)"), *extra),
                                            None, table_id=5)
    ddl = lambda ts, kind, query, schema="life", table="t": DDLEvent(ts, schema, table, query, kind)
    more = Column("c", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "<c&>", "varchar(9)")
    return [
        ddl(TS + 30, DDLType.CREATE_SCHEMA, "CREATE DATABASE life", table=""),
        ddl(TS + 31, DDLType.CREATE_TABLE, "CREATE TABLE t (id INT PRIMARY KEY)"),
        row(TS + 32), row(TS + 33),
        ddl(TS + 34, DDLType.ADD_COLUMN, "ALTER TABLE t ADD c VARCHAR(9)"),
        row(TS + 35), row(TS + 36, more), row(TS + 37, more),
        ddl(TS + 38, DDLType.TRUNCATE_TABLE, "TRUNCATE TABLE t"),
        row(TS + 39, more),
        ddl(TS + 40, DDLType.DROP_TABLE, "DROP TABLE t"),
        ddl(TS + 41, DDLType.CREATE_TABLE, "CREATE TABLE t (id INT PRIMARY KEY)"),
        row(TS + 42),
        ddl(TS + 43, DDLType.ADD_INDEX, "CREATE INDEX i ON never (x)", table="never"),
        ddl(TS + 44, DDLType.UPDATE_TIFLASH_REPLICA_STATUS, "", schema="", table=""),
    ]


def shape_changes() -> list:
    """A table whose rows change shape (a column added, a type text changed) and change back, one
    whose rows come at a commit ts below its schema's version, table ids (one changing under the
    same shape: the BOOTSTRAP keeps the first), a unique key that is no primary key."""
    row = lambda ts, cols, table_id=77: RowChangedEvent(ts, "shop", "t", cols, None, table_id=table_id)
    one = (Column("id", ColumnType.INT, PK, 1, "int(11)"),)
    two = one + (Column("s", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "x<&>", "varchar(20)"),)
    wider = one + (Column("s", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "y", "varchar(40)"),)
    unique = (Column("u", ColumnType.BIGINT, ColumnFlag.HANDLE_KEY | ColumnFlag.UNIQUE_KEY | ColumnFlag.NULLABLE, 5,
                     "bigint(20)"), Column("e", ColumnType.ENUM, ColumnFlag(0), 2, "enum('a','b<')"))
    return [row(TS + 5, one), row(TS + 6, two), row(TS + 6, wider), row(TS + 2, one), row(TS + 9, one, 78),
            row(TS + 10, one, None)] + [RowChangedEvent(TS + 11, "shop", "u", unique, None, table_id=9)]


def type_text_rows() -> list:
    """Type texts the workload does not write: fractional seconds, ZEROFILL, FLOAT(M,D), bare
    DECIMAL and BIT, none at all, GEOMETRY and the NULL type; column names Python and Java order
    otherwise (U+FF21 before U+1F418 by code point, after it by UTF-16 unit)."""
    F_ = ColumnFlag
    cols = lambda i: (
        Column("id", ColumnType.INT, PK | F_.UNSIGNED, i, "int(10) unsigned zerofill"),
        Column("dt", ColumnType.DATETIME, F_.BINARY, "2024-02-29 10:11:12.123456", "datetime(6)"),
        Column("tm", ColumnType.TIME, F_.BINARY | F_.NULLABLE, "-10:11:12.500", "time(3)"),
        Column("ts", ColumnType.TIMESTAMP, F_.BINARY, "2024-02-29 10:11:12.1", "timestamp(1)"),
        Column("f", ColumnType.FLOAT, F_(0), 1.5, "float(10,2)"),
        Column("d", ColumnType.DECIMAL, F_(0), "12345678901234.5", "decimal"),
        Column("b", ColumnType.BIT, F_.UNSIGNED, 3, "bit"),
        Column("n", ColumnType.INT, F_.NULLABLE, None, None),
        Column("g", ColumnType.GEOMETRY, F_.BINARY, b"\x01\x01\x00\x00\x00", "point"),
        Column("z", ColumnType.NULL, F_.NULLABLE, None, "null"),
        Column("\uff21", ColumnType.VARCHAR, F_(0), "wide", "varchar(8)"),
        Column("\U0001f418", ColumnType.VARCHAR, F_(0), "elephant", "varchar(8)"),
    )
    return [RowChangedEvent(TS + 20 + i, "shop", "texts", cols(i), None) for i in range(3)]


def placed(spark, tmp_path, events, query: str) -> list:
    """The laid-out rows after the Java encoding pass: kind, event count and how many messages of
    no event ride before each, in order."""
    sink = cdcwire.open_sink(f"file://{tmp_path}/s?protocol=simple&{query}")
    rows = laid_out_and_java_encoded(spark, sink, events)[1].where(F.col("_cdc_seq") >= 0)
    before = F.when(F.col(BEFORE_COLUMN).isNull(), 0).otherwise(F.size(BEFORE_COLUMN)).alias("before")
    return [(r.kind, r[EVENTS_COLUMN], r.before) for r in rows.select("kind", EVENTS_COLUMN, before).collect()]


@pytest.mark.parametrize(
    "options",
    [
        "",
        "&send-bootstrap-in-msg-count=3",
        "&send-bootstrap-in-msg-count=1&send-bootstrap-to-all-partition=false",
        "&send-bootstrap-in-msg-count=0",
        "&simple-time-zone=Asia/Shanghai&send-bootstrap-in-msg-count=7",
    ],
)
def test_a_simple_write_encoded_in_java_gives_the_python_tiers_messages(spark, tmp_path, options):
    """send-bootstrap-interval-in-sec stays at its 120 s: no clock reaches the Python encoding
    stage, so a schedule by time is the same on both tiers only while a write takes less."""
    events = _frame(spark, java_events()).drop("_cdc_seq")
    query = f"protocol=simple&partition=index-value&partition-num=3{options}"
    assert encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/jvm?{query}"), events, "jvm")[0] == "jvm"
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=BUILD_TS)
    assert java == python and java.reconciles


def test_java_makes_every_message_of_a_partition_and_a_bootstrap_rides_before_a_tables_first_row(spark, tmp_path):
    events = _frame(spark, java_events()).drop("_cdc_seq")
    rows = placed(spark, tmp_path, events, "partition=index-value&partition-num=3")
    assert {kind for kind, _, _ in rows} == {"insert", "update", "delete", "resolved", "ddl"}
    assert all(events == 1 for _, events, _ in rows)  # one message an event, each Java's
    bootstraps = sum(before for _, _, before in rows)
    assert 3 * 5 <= bootstraps < len(rows) / 5  # each table once in each partition, a new shape or a DDL once more


def test_a_bootstrap_is_resent_before_every_nth_row_of_a_table(spark, tmp_path):
    row = lambda i: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None)
    events = _frame(spark, [row(0), row(1), ResolvedEvent(TS + 2)] + [row(i) for i in range(3, 9)]).drop("_cdc_seq")
    rows = placed(spark, tmp_path, events.coalesce(1), "partition-num=1&send-bootstrap-in-msg-count=3")
    # the table's first row, then every 3rd row after the last BOOTSTRAP (the resolved event counts none)
    assert [(kind, before) for kind, _, before in rows] == [
        ("insert", 1), ("insert", 0), ("resolved", 0), ("insert", 0), ("insert", 1), ("insert", 0), ("insert", 0),
        ("insert", 1), ("insert", 0),
    ]
    python, java = writes_on_both_tiers(events.coalesce(1), tmp_path, "protocol=simple&partition-num=1&send-bootstrap-in-msg-count=3",
                                        wall_clock=BUILD_TS)
    assert java == python


def test_java_makes_ddl_messages_and_a_created_tables_first_row_gets_a_bootstrap(spark, tmp_path):
    events = _frame(spark, ddl_events()).drop("_cdc_seq").coalesce(1)
    assert placed(spark, tmp_path, events, "partition-num=1") == [
        ("ddl", 1, 0), ("ddl", 1, 0),
        ("insert", 1, 1), ("insert", 1, 0),  # a created table: a new version and its BOOTSTRAP
        ("ddl", 1, 0),
        ("insert", 1, 0),  # the altered table keeps the columns it had, under the DDL's version
        ("insert", 1, 1), ("insert", 1, 0),  # a new shape
        ("ddl", 1, 0), ("insert", 1, 0), ("ddl", 1, 0), ("ddl", 1, 0),
        ("insert", 1, 1),  # created again
        ("ddl", 1, 0), ("ddl", 1, 0),
    ]
    python, java = writes_on_both_tiers(events, tmp_path, "protocol=simple&partition-num=1", wall_clock=BUILD_TS)
    assert java == python


def test_a_row_over_max_message_bytes_and_the_rest_of_its_partition_go_to_python(spark, tmp_path):
    row = lambda i, s: RowChangedEvent(TS + i, "shop", "t", (
        Column("id", ColumnType.INT, PK, i, "int(11)"), Column("s", ColumnType.VARCHAR, ColumnFlag(0), s, "varchar(2000)"),
    ), None)
    events = _frame(spark, [row(0, "a"), row(1, "x" * 1500), row(2, "b")]).drop("_cdc_seq").coalesce(1)
    query = "partition-num=1&max-message-bytes=1200&large-message-handle-option=handle-key-only"
    assert [events for _, events, _ in placed(spark, tmp_path, events, query)] == [1, None, None]
    python, java = writes_on_both_tiers(events, tmp_path, f"protocol=simple&{query}", wall_clock=BUILD_TS)
    assert java == python


def test_a_row_that_arrived_with_its_handle_key_only_and_the_rest_of_its_partition_go_to_python(spark, tmp_path):
    row = lambda i, **kw: RowChangedEvent(TS + i, "shop", "t", (Column("id", ColumnType.INT, PK, i, "int(11)"),), None, **kw)
    events = _frame(spark, [row(0), row(1, handle_key_only=True), row(2)]).drop("_cdc_seq").coalesce(1)
    assert [events for _, events, _ in placed(spark, tmp_path, events, "partition-num=1")] == [1, None, None]
    python, java = writes_on_both_tiers(events, tmp_path, "protocol=simple&partition-num=1", wall_clock=BUILD_TS)
    assert java == python


def test_python_continues_the_bootstrap_schedule_where_java_stopped_midway(spark, tmp_path):
    """Java streams the first six rows of ``t`` (BOOTSTRAPs before rows 0 and 3, every 3rd) and the
    rows of ``u``, after a DDL; it is not sure of row 6, where the next BOOTSTRAP of ``t`` is due. The
    Python encoder adopts Java's state: it sends that BOOTSTRAP before row 6 under the version Java
    wrote (afresh it would send one under row 6's commit ts), and ``u``'s after three more rows."""
    row = lambda i, table="t", **kw: RowChangedEvent(
        TS + 100 + i, "shop", table, (Column("id", ColumnType.INT, PK, i, "int(11)"),), None, **kw)
    stream = [DDLEvent(TS + 99, "shop", "u", "CREATE TABLE u (id INT PRIMARY KEY)", DDLType.CREATE_TABLE), row(0, "u")]
    stream += [row(i) for i in range(6)] + [row(6, handle_key_only=True)]
    stream += [row(i) for i in range(7, 10)] + [ResolvedEvent(TS + 110), row(11, "u"), row(12, "u"), row(13, "u")]
    events = _frame(spark, stream).drop("_cdc_seq").coalesce(1)
    query = "partition-num=1&send-bootstrap-in-msg-count=3"
    assert placed(spark, tmp_path, events, query) == [
        ("ddl", 1, 0), ("insert", 1, 1),
        ("insert", 1, 1), ("insert", 1, 0), ("insert", 1, 0), ("insert", 1, 1), ("insert", 1, 0), ("insert", 1, 0),
    ] + [(kind, None, 0) for kind in ["insert"] * 4 + ["resolved"] + ["insert"] * 3]
    python, java = writes_on_both_tiers(events, tmp_path, f"protocol=simple&{query}", wall_clock=BUILD_TS)
    assert java == python and java.reconciles
    (messages,) = java.messages.values()
    bootstraps = [value for _, value in messages if b'"type":"BOOTSTRAP"' in value]
    assert len(bootstraps) == 6  # t's before rows 0, 3, 6 and 9; u's before rows 0 and 13
    assert all(f'"version":{TS + 100},'.encode() in value for value in bootstraps if b'"table":"t"' in value)


@pytest.mark.parametrize(
    "options, why",
    [
        ("encoding-format=avro", "avro"),
        ("large-message-handle-compression=snappy", "compression"),
        ("large-message-handle-option=claim-check&claim-check-storage-uri=file:///tmp/cc", "claim-check"),
    ],
)
def test_simple_options_java_does_not_encode_go_to_python(spark, tmp_path, options, why):
    df = _frame(spark, every_kind_rows(1)).drop("_cdc_seq")
    tier, reason = encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/s?protocol=simple&{options}"), df, "jvm")
    assert tier == "python"
    assert why in reason
