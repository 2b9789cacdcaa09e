"""The Java encoding tier against the Python codec: canal-json message bytes made by the Java
tier over Spark's internal rows are the Python encoder's, byte for byte, and the Python tier
serves the rest."""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.values.column_kinds import COLUMN_KINDS
from cdcwire.foundation.errors import CdcwireError
from cdcwire.spark.jvm import jar
from cdcwire.spark.rows.arrow_events import batch_problems, events_to_batch
from cdcwire.spark.pipeline import _laid_out
from cdcwire.spark.writer.jvm_encoding import (
    ENCODING_SETTING, EVENTS_COLUMN, VALUE_COLUMN, encoding_tier, jvm_encoded_partitions,
)
from cdcwire.spark.writer.routing_counts import COUNTS_COLUMN, COUNTS_TYPE
from cdcwire.testing.jvm_tiers import writes_on_both_tiers
from cdcwire.workload import Workload, value_maker

CLOCK = 1_700_000_000_000
PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def every_kind_rows(n: int = 40) -> list[RowChangedEvent]:
    """Inserts, updates and deletes of a table with a column of every kind the workload has."""
    rng = random.Random(5)
    out = []
    for i in range(n):
        def image(j: int) -> tuple[Column, ...]:
            cols = [Column("id", ColumnType.INT, PK, i, "int(11)")]
            for k in COLUMN_KINDS:
                value = None if rng.random() < 0.1 else value_maker(k.label)(rng)
                cols.append(Column(f"c_{k.label}", k.type, k.flags | ColumnFlag.NULLABLE, value, k.mysql_type))
            return tuple(cols)

        ts = 420_000_000_000_000_000 + i
        out.append(RowChangedEvent(ts, "shop", "every_kind", image(0), None))
        out.append(RowChangedEvent(ts, "shop", "every_kind", image(1), image(2)))
        out.append(RowChangedEvent(ts, "shop", "every_kind", None, image(3)))
    return out


def trap_rows() -> list[RowChangedEvent]:
    """Floats whose Java 17 toString is not the shortest text (random bit patterns, powers of
    two, the smallest subnormals), control characters (Jackson escapes them in upper case),
    text Go would HTML-escape, unsigned values past the signed maximum."""
    rng = random.Random(7)
    floats = [struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0] for _ in range(300)]
    doubles = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(300)]
    floats += [2.0 ** k for k in range(-149, 128, 7)] + [1.401298464324817e-45, -0.0, 3.4028234663852886e38]
    doubles += [2.0 ** k for k in range(-1074, 1024, 37)] + [5e-324, 1e23, 2e23, -0.0, 0.1, 1e16, 123.456]
    out = []
    for i, (f32, f64) in enumerate(zip(floats, doubles)):
        f32 = _f32(f32)
        if f32 != f32 or abs(f32) == float("inf") or f64 != f64 or abs(f64) == float("inf"):
            continue
        cols = (
            Column("id", ColumnType.BIGINT, PK | ColumnFlag.UNSIGNED, (1 << 64) - 1 - i, "bigint(20) unsigned"),
            Column("f", ColumnType.FLOAT, ColumnFlag(0), f32, "float"),
            Column("d", ColumnType.DOUBLE, ColumnFlag(0), f64, "double"),
            Column("u", ColumnType.TINYINT, ColumnFlag.UNSIGNED, 200 + i % 50, "tinyint(3) unsigned"),
        )
        out.append(RowChangedEvent(430_000_000_000_000_000 + i, "shop", "floats", cols, None))
    controls = "".join(chr(c) for c in range(32)) + '"\\/\x7f\u2028 <a href="x">&amp;</a> ünï ✓ 🐘 \\u001F'
    named = controls.replace("\x00", "")  # a NUL is text in a value, not in a name
    for i, text in enumerate([controls, "a\x0bb", "\\\x1f", "\\\\u000B"]):
        cols = (
            Column(f"name{named}", ColumnType.VARCHAR, ColumnFlag(0), text, "varchar(255)"),
            Column("blob", ColumnType.BLOB, ColumnFlag.BINARY, text.encode()[:20], "blob"),
        )
        out.append(RowChangedEvent(440_000_000_000_000_000 + i, f"s{named}", "t\x1b", cols, None))
    return out


def _frame(spark, events: list):
    batch = events_to_batch(events, {"_cdc_seq": pa.array(range(len(events)), pa.int64())})
    return spark.createDataFrame(pa.Table.from_batches([batch])).repartition(2)


def laid_out_and_java_encoded(spark, sink, events):
    """The routed, shuffled and sorted frame of a write (routed in the JVM) and the same frame
    after the Java encoding pass."""
    spark.conf.set(ENCODING_SETTING, "python")
    try:
        laid, plan = _laid_out(events, sink, None)
    finally:
        spark.conf.unset(ENCODING_SETTING)
    assert plan.tier == "jvm"
    return laid, jvm_encoded_partitions(laid, sink)


def placed_after_java_encoding(spark, sink, events) -> list:
    """The laid-out rows' (topic, partition, kind, message event count, images) after the Java
    encoding pass of a batch encoder (open-protocol's, craft's): where each message was placed."""
    rows = laid_out_and_java_encoded(spark, sink, events)[1].where(F.col("_cdc_seq") >= 0)  # not the routing's count rows
    return rows.select("_cdc_topic", "_cdc_partition", "kind", EVENTS_COLUMN, "columns").collect()


def _java_values(spark, sink, frame) -> list:
    """The Java tier's value of each row of ``frame`` (as routed: whole events, no halves), in row order."""
    routed = frame.select("*", F.lit(0).cast("byte").alias("_cdc_half"), F.lit(None).cast(COUNTS_TYPE).alias(COUNTS_COLUMN))
    rows = jvm_encoded_partitions(routed, sink, CLOCK).select("_cdc_seq", VALUE_COLUMN).orderBy("_cdc_seq").collect()
    return [None if r[VALUE_COLUMN] is None else bytes(r[VALUE_COLUMN]) for r in rows]


def _compare_values(spark, tmp_path: Path, query: str, events: list) -> None:
    from cdcwire_canal_json.encoder import CanalJSONEncoder
    from cdcwire_canal_json.options import CanalOptions

    sink = cdcwire.open_sink(f"file://{tmp_path}/o?{query}")
    java = _java_values(spark, sink, _frame(spark, events))
    python = CanalJSONEncoder(CanalOptions.from_config(sink.config), clock=lambda: CLOCK)
    assert [i for i, v in enumerate(java) if v is None] == []  # none left to Python
    assert java == [python.encode_event(e) for e in events]


@pytest.mark.parametrize("extension", ["true", "false"])
def test_canal_json_rows_of_every_workload_column_kind_encode_in_java_as_the_python_codec(spark, tmp_path, extension):
    rows = [e for e in Workload(400, seed=11) if isinstance(e, RowChangedEvent)] + every_kind_rows()
    _compare_values(spark, tmp_path, f"protocol=canal-json&enable-tidb-extension={extension}", rows)


def test_canal_json_watermarks_of_resolved_events_encode_in_java_as_the_python_codec(spark, tmp_path):
    resolved = [ResolvedEvent(ts) for ts in (0, 1, 450_000_000_000_000_000, (1 << 64) - 1)]
    _compare_values(spark, tmp_path, "protocol=canal-json&enable-tidb-extension=true", resolved)


@pytest.mark.parametrize("extension", ["true", "false"])
def test_canal_json_floats_control_characters_and_unsigned_values_encode_in_java_as_the_python_codec(
    spark, tmp_path, extension
):
    _compare_values(spark, tmp_path, f"protocol=canal-json&enable-tidb-extension={extension}", trap_rows())


def test_every_row_the_python_record_checks_refuse_is_left_to_python(spark, tmp_path):
    """The Java checks may be stricter than Python's, never looser: each broken row is left to Python."""
    good = every_kind_rows(1)[0]
    cols = list(good.columns)

    def swap(i: int, **change) -> RowChangedEvent:
        c = cols[i]
        fields = {"name": c.name, "type": c.type, "flags": c.flags, "value": c.value, "mysql_type": c.mysql_type}
        fields.update(change)
        new = cols[:i] + [Column(**fields)] + cols[i + 1:]
        return RowChangedEvent(good.commit_ts, good.schema, good.table, tuple(new), None)

    at = {c.name: i for i, c in enumerate(cols)}
    broken = [
        swap(at["c_tinyint"], value=128),
        swap(at["c_tinyint_unsigned"], value=256),
        swap(at["c_json"], value='{"a":1} x'),
        swap(at["c_json"], value="[1] [2]"),
        swap(at["c_json"], value="{}] [{}"),
        swap(at["c_json"], value="NaN"),
        swap(at["c_json"], value="[" * 1001 + "]" * 1001),
        swap(at["c_decimal"], value="12345678.1"),
        swap(at["c_decimal"], value="1.23456"),
        swap(at["c_decimal"], value="abc"),
        swap(at["c_decimal"], value="1.5\n"),
        swap(at["c_date"], value="2023-02-29"),
        swap(at["c_date"], value="2023-02-28\n"),
        swap(at["c_time"], value="839:00:00"),
        swap(at["c_enum"], value=4),
        swap(at["c_set"], value=8),
        swap(at["c_bit"], value=1 << 12),
        swap(at["c_int"], mysql_type="varchar(10)"),
        swap(at["c_int"], mysql_type="int(300)"),
        swap(at["c_int"], mysql_type="int(11)("),
        swap(at["c_varchar"], mysql_type="varchar(70000)"),
        swap(at["c_enum"], mysql_type="enum(3)"),
        swap(at["c_varchar"], value=b"bytes"),
        swap(at["c_blob"], value="text"),
        swap(at["c_float"], value=1e39),
        swap(at["c_int"], name="c_varchar"),
        swap(at["c_int"], name="bad\x00name"),
    ]
    batch = events_to_batch(broken, {"_cdc_seq": pa.array(range(len(broken)), pa.int64())})
    assert sorted(batch_problems(batch)) == list(range(len(broken)))  # each one is refused in Python
    sink = cdcwire.open_sink(f"file://{tmp_path}/o?protocol=canal-json")
    frame = spark.createDataFrame(pa.Table.from_batches([batch])).repartition(2)
    assert _java_values(spark, sink, frame) == [None] * len(broken)
    assert _java_values(spark, sink, _frame(spark, [good]))[0] is not None


@pytest.mark.parametrize("extension", ["true", "false"])
def test_a_canal_json_write_encoded_in_java_gives_the_python_tiers_messages(spark, tmp_path, extension):
    """Key-changing updates split, DDL events (left to Python) and resolved events among the rows."""
    from test_spark_jvm_routing import edge_events

    events = _frame(spark, list(Workload(300, seed=11, tables=3, resolved_every=25, ddl_every=60))
                    + edge_events(with_nan=False)).drop("_cdc_seq")
    query = f"protocol=canal-json&enable-tidb-extension={extension}&partition=index-value&partition-num=3"
    assert encoding_tier(cdcwire.open_sink(f"file://{tmp_path}/jvm?{query}"), events, "jvm")[0] == "jvm"
    python, java = writes_on_both_tiers(events, tmp_path, query, wall_clock=rb'"ts":\d+')
    assert java == python and java.reconciles


def test_the_java_tier_encodes_the_sorted_copies_in_place_and_leaves_ddl_events_their_images(spark, tmp_path):
    """Encoded over the internal rows after the sort (``MessageEncoding`` with canal-json's ``CanalJsonEncoder``): the same
    partitions and order as the laid-out frame, a value and no images for each row copy and
    resolved event it encoded, the images kept for a row it leaves to Python, no value for DDL events."""
    from test_spark_jvm_routing import edge_events

    events = _frame(spark, list(Workload(200, seed=3, tables=2, resolved_every=25, ddl_every=50))
                    + edge_events(with_nan=False)).drop("_cdc_seq").cache()  # the same input rows twice
    query = "protocol=canal-json&enable-tidb-extension=true&partition=index-value&partition-num=3"
    sink = cdcwire.open_sink(f"file://{tmp_path}/o?{query}")
    place = ("_cdc_topic", "_cdc_partition", "_cdc_seq", "_cdc_sub")
    laid, encoded = laid_out_and_java_encoded(spark, sink, events)
    rows = encoded.select(
        *place, "kind", F.spark_partition_id().alias("p"), F.col(VALUE_COLUMN).isNotNull().alias("made"),
        (F.col("columns").isNull() & F.col("pre_columns").isNull()).alias("no_images"),
    ).collect()
    expected = laid.select(*place, F.spark_partition_id().alias("p")).collect()
    events.unpersist()
    assert [r[:4] + (r.p,) for r in rows] == [tuple(r) for r in expected]
    copies = [r for r in rows if r._cdc_seq >= 0]  # not the routing's count rows
    assert {r.kind for r in copies if r.made} == {"insert", "update", "delete", "resolved"}
    assert {r.kind for r in copies if not r.made} >= {"ddl"}
    assert all(r.no_images == (r.made or r.kind in ("ddl", "resolved")) for r in copies)


def test_a_malformed_row_fails_a_java_tier_write_as_it_fails_the_python_tier(spark, tmp_path):
    good = every_kind_rows(1)[0]
    bad = RowChangedEvent(good.commit_ts + 1, "shop", "t", (Column("id", ColumnType.TINYINT, PK, 300, "tinyint(4)"),), None)
    events = _frame(spark, [good, bad]).drop("_cdc_seq").coalesce(1)
    errors = []
    for setting in ("auto", "python"):
        spark.conf.set(ENCODING_SETTING, setting)
        try:
            with pytest.raises(CdcwireError, match=r"malformed input record at input row .*300") as raised:
                cs.write(events, f"file://{tmp_path}/{setting}?protocol=canal-json")
        finally:
            spark.conf.unset(ENCODING_SETTING)
        errors.append(type(raised.value))
    assert errors[0] is errors[1]


@pytest.mark.parametrize(
    "query, dead_letter, why",
    [
        ("protocol=simple&encoding-format=avro", None, "simple's avro encoding is encoded in Python only"),
        ("protocol=canal-json&only-output-updated-columns=true", None, "only-output-updated-columns"),
        ("protocol=canal-json&enable-tidb-extension=true&large-message-handle-option=handle-key-only", None,
         "large-message handling"),
        ("protocol=canal-json", "dl", "the Python tier routes this write"),
    ],
)
def test_the_python_tier_encodes_what_the_java_tier_cannot(spark, tmp_path, query, dead_letter, why):
    from cdcwire.spark.writer.jvm_routing import routing_tier

    df = _frame(spark, every_kind_rows(1)).drop("_cdc_seq")
    sink = cdcwire.open_sink(f"file://{tmp_path}/o?{query}")
    routing = routing_tier(sink, df, dead_letter and str(tmp_path / dead_letter))[0]
    tier, reason = encoding_tier(sink, df, routing)
    assert tier == "python"
    assert why in reason


def test_a_codec_that_ships_no_java_encoder_is_encoded_in_python_saying_so(spark, tmp_path):
    import dataclasses

    df = _frame(spark, every_kind_rows(1)).drop("_cdc_seq")
    canal = cdcwire.open_sink(f"file://{tmp_path}/o?protocol=canal-json")
    python_only = type("PythonOnlyCodec", (type(canal.codec),), {"name": "python-only", "jvm": None})()
    sink = dataclasses.replace(canal, codec=python_only)
    assert encoding_tier(sink, df, "jvm") == ("python", "no Java encoder for protocol 'python-only'")


def test_the_session_setting_picks_the_python_tier_and_refuses_an_unknown_tier(spark, tmp_path):
    df = _frame(spark, every_kind_rows(1)).drop("_cdc_seq")
    sink = cdcwire.open_sink(f"file://{tmp_path}/o?protocol=canal-json&enable-tidb-extension=true")
    assert encoding_tier(sink, df, "jvm")[0] == "jvm"
    try:
        spark.conf.set(ENCODING_SETTING, "python")
        assert encoding_tier(sink, df, "jvm") == ("python", f"{ENCODING_SETTING}=python")
        spark.conf.set(ENCODING_SETTING, "fast")
        with pytest.raises(CdcwireError, match=r"spark.cdcwire.encoding='fast' is not an encoding tier"):
            encoding_tier(sink, df, "jvm")
    finally:
        spark.conf.unset(ENCODING_SETTING)


def test_a_machine_without_a_jdk_gets_no_jar_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setenv("CDCWIRE_JVM_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))
    path, why = jar.jar_and_reason.__wrapped__()
    assert path is None
    assert why.startswith("no JDK (javac) on this machine: the Python tier encodes")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").iterdir())


def test_the_jar_is_built_from_the_shipped_sources_once_and_then_found(tmp_path, monkeypatch):
    monkeypatch.setenv("CDCWIRE_JVM_CACHE", str(tmp_path / "cache"))
    path, why = jar.jar_and_reason.__wrapped__()
    assert why.startswith("the Java tier's jar was built")
    assert os.path.basename(path).startswith("cdcwire-jvm-")
    import zipfile

    names = zipfile.ZipFile(path).namelist()
    assert "io/cdcwire/spark/MessageEncoding.class" in names  # the core's framework
    assert "io/cdcwire/canaljson/CanalJsonEncoder.class" in names  # canal-json's plugin, compiled with it
    assert jar.jar_and_reason.__wrapped__() == (path, f"the Java tier's jar is {path}")


def test_the_library_session_bounds_arrow_batches_to_python_by_rows_alone(spark):
    """Spark sizes a byte-bounded batch after every row it adds (a fifth of a Java-tier write, in
    the nested image vectors); the session leaves the bound to ``maxRecordsPerBatch``."""
    from cdcwire.spark.session import ARROW_NO_BYTE_BOUND

    conf = spark._jsparkSession.sessionState().conf()
    assert (conf.arrowMaxBytesPerBatch(), conf.arrowMaxRecordsPerBatch()) == (ARROW_NO_BYTE_BOUND, 4096)
