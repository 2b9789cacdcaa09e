"""debezium's Java encoder (a ``BatchEncoder`` whose every message closes on its own row) against
the Python codec: a Spark write encoded in the JVM gives the Python tier's messages, keys and values
byte for byte, in the same partitions and order, for every option set, DDL messages too; what Java
is not sure of (a type text Java does not read, a DDL type with no message) is Python's, row by row."""

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
from cdcwire_debezium.jvm_writing import PROBE_TS
from cdcwire.workload import DDL_KINDS, Workload
from cdcwire_debezium.ddl_messages import change_kind
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


def temporal_rows(ts: int = TS + 2000) -> list[RowChangedEvent]:
    """Rows of every column type whose Java rule reads its type text or its value's digits: DATE
    (zero dates, zero-in-date parts, two-digit years, NOT NULL and nullable), TIME (negative, 838
    hours, fractions), DATETIME and TIMESTAMP of every fsp and without a type text (the value's
    fraction digits pick the schema, also in a key), BIT of 1, 12 and 64 bits and without a type
    text, ENUM and SET whose elements hold commas, quotes and non-ASCII, FLOAT with and without a
    scale: inserts, updates (whose old values show other digits) and deletes."""
    rng = random.Random(11)
    dates = ["0000-00-00", "2024-00-10", "2024-02-29", "2023-02-28", "0069-12-31", "0070-01-01", "0099-06-30",
             "0100-03-01", "9999-12-31", "1000-01-01", "0000-01-01", "1969-12-31", "0004-02-29", "1970-01-01"]
    clocks = ["00:00:00", "23:59:59.9995", "00:00:00.999999", "00:00:01", "03:14:07.1", "12:00:00.12",
              "23:59:59.999999", "07:08:09.123", "10:11:12.1234", "13:14:15.12345"]
    times = ["00:00:00", "-00:00:00", "838:59:59", "-838:59:59.999999", "-00:00:00.000001", "12:34:56.5",
             "01:02:03.123", "99:00:00"]
    floats = [struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0] for _ in range(60)]
    floats = [f for f in floats if math.isfinite(f)] + [0.1, -0.0, 3.4028234663852886e38, 1.401298464324817e-45,
                                                        16777216.0, 1e-5, 123456.789]
    floats = [struct.unpack("<f", struct.pack("<f", f))[0] for f in floats]
    key = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
    B, U = ColumnFlag.BINARY, ColumnFlag.UNSIGNED

    def image(i: int, j: int) -> tuple[Column, ...]:
        k = i + j
        date, clock = dates[k % len(dates)], clocks[k % len(clocks)]
        at = f"{date} {clock}"
        return (
            Column("id", ColumnType.INT, PK, i, "int(11)"),
            Column("dk", ColumnType.DATE, key | B, dates[i % len(dates)], "date"),
            Column("atk", ColumnType.DATETIME, key | B, f"{dates[i % len(dates)]} {clocks[i % len(clocks)]}", None),
            Column("d", ColumnType.DATE, N | B, None if k % 7 == 6 else date, "date"),
            Column("nd", ColumnType.NEWDATE, ColumnFlag(0), date, None),
            Column("t", ColumnType.TIME, N | B, times[k % len(times)], "time"),
            Column("t6", ColumnType.TIME, ColumnFlag(0), times[(k + 3) % len(times)], "time(6)"),
            Column("at", ColumnType.DATETIME, N | B, at, None),
            Column("at0", ColumnType.DATETIME, N, at, "datetime"),
            Column("at3", ColumnType.DATETIME, ColumnFlag(0), at, "datetime(3)"),
            Column("at6", ColumnType.DATETIME, N, at, "datetime(6)"),
            Column("ts", ColumnType.TIMESTAMP, N | B, at, None),
            Column("ts0", ColumnType.TIMESTAMP, N, at, "timestamp"),
            Column("ts2", ColumnType.TIMESTAMP, ColumnFlag(0), at, "timestamp(2)"),
            Column("ts6", ColumnType.TIMESTAMP, N, at, "timestamp(6)"),
            Column("b1", ColumnType.BIT, N | U, k % 2, "bit(1)"),
            Column("b", ColumnType.BIT, N | U, rng.getrandbits(12), "bit(12)"),
            Column("b64", ColumnType.BIT, U, rng.getrandbits(64), "bit(64)"),
            Column("bx", ColumnType.BIT, N | U, (1 << 64) - 1 - k, None),
            Column("e", ColumnType.ENUM, N, k % 5, "enum('a','b,c','é\"x','')"),
            Column("s", ColumnType.SET, ColumnFlag(0), k % 16, "set('a','b','c','ü')"),
            Column("f", ColumnType.FLOAT, N, floats[k % len(floats)], "float"),
            Column("fs", ColumnType.FLOAT, N, floats[(k + 1) % len(floats)], "float(7,3)"),
            Column("fx", ColumnType.FLOAT, ColumnFlag(0), floats[(k + 2) % len(floats)], None),
        )

    out = []
    for i in range(len(floats)):
        t = ts + 10 * i
        out.append(RowChangedEvent(t, "shop", "temporal", image(i, 0), None))
        out.append(RowChangedEvent(t + 1, "shop", "temporal", image(i, 1), image(i, 2)))
        out.append(RowChangedEvent(t + 2, "shop", "temporal", None, image(i, 3)))
    return out


def quoted_enum_row(ts: int) -> RowChangedEvent:
    """A row whose ENUM type text has an element with a quote in it (``''``): a form Java does not
    read, so the row is Python's."""
    return RowChangedEvent(ts, "shop", "quoted", (
        Column("id", ColumnType.INT, PK, 1, "int(11)"),
        Column("e", ColumnType.ENUM, N, 1, "enum('it''s','b')"),
    ), None)


def ddl_events(ts: int = TS + 5000) -> list[DDLEvent]:
    """A DDL of every type debezium writes a message for, on a table, on a schema alone (no table:
    no change) and on names and a statement with quotes, backquotes, control characters and non-ASCII;
    TRUNCATE TABLE (no change), DROP TABLE, and RENAME TABLE in every form its old name is read from
    (qualified or not, backquoted with doubled backquotes, lower case, odd whitespace, a statement
    that does not read as one)."""
    names = [("shop", "t"), ("shop", ""), ('q"é\x01', "ta`b\\le 🐘")]
    out = [DDLEvent(ts + 10 * i + j, schema, table, f"-- {t.name} of {table}\n\t\"x\" ✓", t)
           for i, t in enumerate(t for t in DDLType if change_kind(t) is not None)
           for j, (schema, table) in enumerate(names)]
    renames = ["RENAME TABLE `shop`.`old` TO `shop`.`t`", "rename  table old2 to t", "RENAME TABLE `a``b`.`c``d` TO x",
               "RENAME TABLE $x . y_1 TO z", " \x1cRENAME\tTABLE\x1fo TO\nt", "ALTER TABLE t RENAME TO u",
               "RENAME TABLE `a`.`b`TO c", ""]
    return out + [DDLEvent(ts + 1000 + i, "shop", "t", q, DDLType.RENAME_TABLE) for i, q in enumerate(renames)]


def all_events() -> list:
    return (
        list(Workload(300, seed=12, tables=3, resolved_every=25, ddl_every=60))
        + edge_events(with_nan=False) + every_kind_rows(10) + trap_rows() + java_rows() + number_rows()
        + temporal_rows() + ddl_events()
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
    events = _frame(spark, java_rows() + number_rows() + temporal_rows()).drop("_cdc_seq")
    query = f"protocol=debezium&partition=index-value&partition-num=3{options}"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert len(rows) == len(java_rows()) + len(number_rows()) + len(temporal_rows())
    assert {r.kind for r in rows} == {"insert", "update", "delete"}
    assert all(r[EVENTS_COLUMN] == 1 for r in rows)  # one message a row, each Java's
    assert all(r.columns is None for r in rows)  # images nulled: the encoding stage gets flat bytes


@pytest.mark.parametrize("extension, watermark", [("true", [("resolved", 1)]), ("false", [])])
def test_rows_of_a_type_text_java_does_not_read_and_ddl_with_no_message_are_left_to_python_one_by_one(
        spark, tmp_path, extension, watermark):
    """A watermark is Java's with the TiDB extension (op "m"); without it there is none. A DDL is
    Java's, but for a type TiCDC's debezium skips (Python writes no message) and a RENAME TABLE
    statement not all ASCII (Python's regular expression reads more than ASCII)."""
    ddl = DDLEvent(TS + 101, "shop", "quoted", "ALTER TABLE quoted ADD c INT", DDLType.ADD_COLUMN)
    skipped = DDLEvent(TS + 103, "shop", "quoted", "LOCK TABLES quoted READ", DDLType.LOCK_TABLE)
    renamed = DDLEvent(TS + 104, "shop", "quoted", "RENAME TABLE `ö` TO quoted", DDLType.RENAME_TABLE)
    stream = [java_rows(TS)[0], quoted_enum_row(TS + 100), ddl, ResolvedEvent(TS + 102), skipped, renamed,
              java_rows(TS + 200)[1]]
    events = _frame(spark, stream).drop("_cdc_seq").coalesce(1)
    query = f"protocol=debezium&partition-num=1&enable-tidb-extension={extension}"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [
        ("insert", 1), ("insert", None), ("ddl", 1), *watermark, ("ddl", None), ("ddl", None), ("update", 1)
    ]
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert java == python  # neither reconciles: the skipped DDL is an event of no message


def test_a_cluster_id_showing_a_probe_number_gives_the_python_tiers_messages(spark, tmp_path):
    """The glue finds the places of the commit ts, its milliseconds and the clock in the encoder's
    texts by probe numbers: a cluster id (written in the source block) showing one of them makes
    it take other probes, and Java still writes every row and watermark itself."""
    cluster = str(PROBE_TS >> 18)
    events = _frame(spark, [java_rows(TS)[0], ResolvedEvent(TS + 5)]).drop("_cdc_seq").coalesce(1)
    query = f"protocol=debezium&partition-num=1&enable-tidb-extension=true&debezium-cluster-id={cluster}"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert [(r.kind, r[EVENTS_COLUMN]) for r in rows] == [("insert", 1), ("resolved", 1)]
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert java == python and java.reconciles


def test_a_cluster_id_with_an_at_sign_is_encoded_by_the_python_tier(spark, tmp_path):
    """The Java encoder's texts mark their places as ``@db@``: a cluster id that could show one is Python's."""
    events = _frame(spark, [java_rows(TS)[0], ResolvedEvent(TS + 5)]).drop("_cdc_seq").coalesce(1)
    query = "protocol=debezium&partition-num=1&enable-tidb-extension=true&debezium-cluster-id=@db@"
    tier, reason = encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events, "jvm")
    assert tier == "python" and "'@'" in reason
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert java == python and java.reconciles


def _routed_rows(row: RowChangedEvent) -> int:
    """How many rows a row event is routed as: an update that changes its handle key as two halves."""
    if row.columns is None or row.pre_columns is None:
        return 1
    keys = [[c.value for c in image if c.is_handle_key] for image in (row.columns, row.pre_columns)]
    return 1 if keys[0] == keys[1] else 2


def test_java_makes_every_row_message_of_the_benchmark_workload_itself(spark, tmp_path):
    """The workload of benchmarks/spark_goals.py (each of its tables has a DATE, DATETIME,
    TIMESTAMP, TIME, BIT, ENUM, SET or FLOAT column), with its debezium options: Java encodes
    every row, DDL and watermark (no event is Python's), and the files are the Python tier's."""
    stream = list(Workload(400, seed=11))
    events = _frame(spark, stream).drop("_cdc_seq")
    query = "protocol=debezium&partition-num=6&enable-tidb-extension=true&debezium-disable-schema=false"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert [r.kind for r in rows if r[EVENTS_COLUMN] is None] == []
    java = [r.kind for r in rows if r[EVENTS_COLUMN] == 1]
    assert len(java) == sum(_routed_rows(e) for e in stream if isinstance(e, RowChangedEvent)) + 6 * sum(
        not isinstance(e, RowChangedEvent) for e in stream)  # a DDL and a watermark in every partition
    assert set(java) == {"insert", "update", "delete", "ddl", "resolved"}
    python, jvm = writes_on_both_tiers(events, tmp_path, query, wall_clock=WALL_CLOCK)
    assert jvm == python and jvm.reconciles


@pytest.mark.parametrize("options", ["&enable-tidb-extension=true", "&debezium-disable-schema=true"])
def test_java_makes_the_ddl_messages_of_every_ddl_kind_of_the_workload_itself(spark, tmp_path, options):
    """Every DDL kind ``Workload(ddls=...)`` mixes in (TRUNCATE, DROP + CREATE, ADD / DROP / RENAME /
    MODIFY COLUMN, RENAME TABLE, TRUNCATE PARTITION) between its rows: no event is Python's, and the
    files are the Python tier's."""
    stream = list(Workload(500, seed=5, tables=3, ddl_every=8, ddls={kind: 1 for kind in DDL_KINDS}))
    assert len({e.ddl_type for e in stream if isinstance(e, DDLEvent)}) >= 6
    events = _frame(spark, stream).drop("_cdc_seq")
    query = f"protocol=debezium&partition-num=2{options}"
    rows = placed_after_java_encoding(spark, cdcwire.open_sink(f"file://{tmp_path}/d?{query}"), events)
    assert [r.kind for r in rows if r[EVENTS_COLUMN] is None] == []
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
    python, java = errors_on_both_tiers(events, tmp_path, "protocol=debezium&max-message-bytes=900")
    assert java == python
    assert "max-message-bytes 900" in java


def errors_on_both_tiers(events, tmp_path, query: str) -> tuple[str, str]:
    """The error a write of ``events`` fails with on the Python tier, then on the Java tier (sink
    paths made alike)."""
    errors = []
    for tier, write in (("py", write_on_python_tier), ("jvm", cs.write)):
        with pytest.raises(Exception) as failed:
            write(events, f"file://{tmp_path}/{tier}?{query}")
        with pytest.raises(cdcwire.CdcwireError) as carried:
            cs.raise_carried(failed.value)
        errors.append(str(carried.value).replace(f"/{tier}?", "/?"))
    return errors[0], errors[1]


def test_a_ddl_row_with_an_image_fails_a_java_tier_write_with_the_record_checks_error(spark, tmp_path):
    """A DDL row carrying columns is malformed: Java does not write its message, and the write fails
    as the Python tier's does."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    ddl = DDLEvent(TS + 1, "shop", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN)
    events = _frame(spark, [java_rows(TS)[0], ddl]).drop("_cdc_seq").coalesce(1)
    some_image = F.first("columns", ignorenulls=True).over(Window.partitionBy())
    events = events.withColumn("columns", F.when(F.col("kind") == "ddl", some_image).otherwise(F.col("columns")))
    python, java = errors_on_both_tiers(events, tmp_path, "protocol=debezium&partition-num=1")
    assert java == python
    assert "ddl" in java
