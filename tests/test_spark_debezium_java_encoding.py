"""debezium's Java encoder (a ``BatchEncoder`` whose every message closes on its own row) against
the Python codec: a Spark write encoded in the JVM gives the Python tier's messages, keys and values
byte for byte, in the same partitions and order, for every option set; what Java is not sure of
(DDL, watermarks, columns without a value rule of Java's) is Python's, row by row."""

from __future__ import annotations

import math
import random
import struct

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.writer.jvm_encoding import EVENTS_COLUMN, encoding_tier
from cdcwire.testing.jvm_tiers import write_on_python_tier, writes_on_both_tiers
from cdcwire.workload import Workload
from test_spark_java_encoding import PK, _frame, every_kind_rows, placed_after_java_encoding, trap_rows
from test_spark_jvm_routing import edge_events

TS = 470_000_000_000_000_000
#: The envelope's ts_ms (after the source block) is the clock of encoding, in rows, DDL and
#: watermarks alike; the source's own ts_ms is the commit ts's.
WALL_CLOCK = rb'\},"ts_ms":\d+'
N = ColumnFlag.NULLABLE


def java_rows(ts: int = TS) -> list[RowChangedEvent]:
    """Rows of the column kinds Java encodes: integers of every width, signed and unsigned (past
    the int64 maximum), YEAR, JSON, text and binary strings, NULLs, control characters, quotes
    and non-ASCII in names and values, in a schema and a table whose names need sanitizing."""
    def image(i: int, text: str) -> tuple[Column, ...]:
        return (
            Column("id", ColumnType.BIGINT, PK | ColumnFlag.UNSIGNED, (1 << 64) - 1 - i,
                   "bigint(20) unsigned"),
            Column("k2", ColumnType.VARCHAR, PK, f"k{i}", "varchar(10)"),
            Column("t", ColumnType.TINYINT, N, -128 + i, "tinyint(4)"),
            Column("s", ColumnType.SMALLINT, N | ColumnFlag.UNSIGNED, 65535 - i, "smallint(5) unsigned"),
            Column("m", ColumnType.MEDIUMINT, N, None, "mediumint(9)"),
            Column("i", ColumnType.INT, N | ColumnFlag.UNSIGNED, 4294967295 - i, "int(10) unsigned"),
            Column("b", ColumnType.BIGINT, N, -(1 << 63) + i, "bigint(20)"),
            Column("y", ColumnType.YEAR, N, 1999 + i, "year(4)"),
            Column("j", ColumnType.JSON, N, '{"a": [1, "\\u00e9"]}', "json"),
            Column(f"name \"é\x01{i % 2}", ColumnType.VARCHAR, N, text, "varchar(255)"),
            Column("c", ColumnType.CHAR, ColumnFlag(0), "ch", "char(2)"),
            Column("blob", ColumnType.BLOB, N | ColumnFlag.BINARY, text.encode()[:30], "blob"),
            Column("vb", ColumnType.VARCHAR, N | ColumnFlag.BINARY, bytes(range(i, i + 5)), "varbinary(5)"),
            Column("tx", ColumnType.BLOB, N, None, "text"),
        )

    texts = ["plain", "ünï ✓ 🐘", "\x00\x1f\x7f\"\\/\u2028", "", "<a href='x'>&amp;</a>"]
    out = []
    schema, table = "1 shöp-db", "t.x 1"
    for i, text in enumerate(texts):
        out.append(RowChangedEvent(ts + 10 * i, schema, table, image(i, text), None))
        out.append(RowChangedEvent(ts + 10 * i + 1, schema, table, image(i, text + "!"), image(i, text)))
        out.append(RowChangedEvent(ts + 10 * i + 2, schema, table, None, image(i, text + "!")))
    return out


def number_rows(ts: int = TS + 1000) -> list[RowChangedEvent]:
    """DOUBLE and DECIMAL values at the edges of orjson's notation (plain from 1e-5 to below 1e16,
    else an exponent), random bit patterns, powers of two, subnormals, negative zero; decimal texts
    in every form the record checks let through."""
    rng = random.Random(9)
    doubles = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(200)]
    doubles += [2.0 ** k for k in range(-1074, 1024, 41)]
    doubles += [5e-324, 1e23, 1e16, 9999999999999998.0, 1e15, 1e-5, 1e-6, 0.00012]
    doubles += [-0.0, 0.1, 123.456, 1.0, 100.0]
    doubles = [d for d in doubles if math.isfinite(d)]
    decimals = ["0", "-0", "1.", ".5", "+7.25", "-123456789012345678901234567890.123", "0.000001",
                "99999999999999999999", "3.141592653589793238462643383279"]
    return [
        RowChangedEvent(ts + i, "shop", "numbers", (
            Column("id", ColumnType.INT, PK, i, "int(11)"),
            Column("d", ColumnType.DOUBLE, N, d, "double"),
            Column("x", ColumnType.DECIMAL, N, decimals[i % len(decimals)], "decimal(65,30)"),
        ), None)
        for i, d in enumerate(doubles)
    ]


def datetime_row(ts: int) -> RowChangedEvent:
    """A row with a DATETIME column: no value rule of Java's, so the row is Python's."""
    return RowChangedEvent(ts, "shop", "dt", (
        Column("id", ColumnType.INT, PK, 1, "int(11)"),
        Column("at", ColumnType.DATETIME, N, "2024-05-06 07:08:09.123", "datetime(3)"),
    ), None)


def all_events() -> list:
    return (
        list(Workload(300, seed=12, tables=3, resolved_every=25, ddl_every=60))
        + edge_events(with_nan=False) + every_kind_rows(10) + trap_rows() + java_rows() + number_rows()
    )


@pytest.mark.parametrize(
    "options",
    [
        "",
        "&enable-tidb-extension=true",
        "&debezium-disable-schema=true",
        "&debezium-output-old-value=false",
        "&enable-tidb-extension=true&debezium-cluster-id=9 clüster-x",
    ],
)
def test_a_debezium_write_encoded_in_java_gives_the_python_tiers_messages(spark, tmp_path, options):
    events = _frame(spark, all_events()).drop("_cdc_seq")
    query = f"protocol=debezium&partition=index-value&partition-num=3{options}"
    assert encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/jvm?{query}"), events, "jvm")[0] == "jvm"
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert java == python and java.reconciles


@pytest.mark.parametrize("options", ["", "&enable-tidb-extension=true&debezium-disable-schema=true"])
def test_java_makes_each_rows_message_itself_and_places_it_on_that_row(spark, tmp_path, options):
    events = _frame(spark, java_rows() + number_rows()).drop("_cdc_seq")
    query = f"protocol=debezium&partition=index-value&partition-num=3{options}"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert len(rows) == len(java_rows()) + len(number_rows())
    assert {r.kind for r in rows} == {"insert", "update", "delete"}
    assert all(r[EVENTS_COLUMN] == 1 for r in rows)  # one message a row, each Java's
    assert all(r.columns is None for r in rows)  # images nulled: the encoding stage gets flat bytes


def test_ddl_watermarks_and_rows_without_a_java_value_rule_are_left_to_python_one_by_one(spark, tmp_path):
    ddl = DDLEvent(TS + 101, "shop", "dt", "ALTER TABLE dt ADD c INT", DDLType.ADD_COLUMN)
    stream = [java_rows(TS)[0], datetime_row(TS + 100), ddl, ResolvedEvent(TS + 102), java_rows(TS + 200)[1]]
    events = _frame(spark, stream).drop("_cdc_seq").coalesce(1)
    query = "protocol=debezium&partition-num=1&enable-tidb-extension=true"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [
        ("insert", 1), ("insert", None), ("ddl", None), ("resolved", None), ("update", 1)
    ]
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert java == python and java.reconciles


def test_debezium_compression_is_encoded_by_the_python_tier(spark, tmp_path):
    df = _frame(spark, java_rows()).drop("_cdc_seq")
    query = "protocol=debezium&large-message-handle-compression=snappy"
    tier, reason = encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), df, "jvm")
    assert tier == "python"
    assert "compression" in reason


def test_the_halves_of_a_key_changing_update_are_each_a_message_of_javas_as_of_pythons(spark, tmp_path):
    """An update whose handle key changes is routed as a delete of the old key and an insert of the
    new one (index-value): Java writes each half as the Python encoder writes it."""
    old, new = java_rows(TS)[0].columns, java_rows(TS)[3].columns  # ids 2^64-1 and 2^64-2
    events = _frame(spark, [RowChangedEvent(TS + 5, "shop", "moved", new, old)]).drop("_cdc_seq").coalesce(1)
    query = "protocol=debezium&partition=index-value&partition-num=3&enable-tidb-extension=true"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [("update", 1), ("update", 1)]
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert java == python and java.reconciles
    values = [value for messages in java.messages.values() for _, value in messages]
    assert sorted(value[value.index(b'"op":') + 6] for value in values) == [ord("c"), ord("d")]


def test_a_row_over_max_message_bytes_fails_a_java_tier_write_with_the_python_encoders_error(
        spark, tmp_path):
    events = _frame(spark, java_rows()[:1]).drop("_cdc_seq")
    errors = []
    for tier, write in (("py", write_on_python_tier), ("jvm", cs.write)):
        with pytest.raises(Exception) as failed:
            write(events, f"file://{tmp_path}/{tier}?protocol=debezium&max-message-bytes=900")
        with pytest.raises(cdcwire.CdcwireError) as carried:
            cs.raise_carried(failed.value)
        errors.append(str(carried.value).replace(f"/{tier}?", "/?"))
    assert errors[0] == errors[1]
    assert "max-message-bytes 900" in errors[0]
