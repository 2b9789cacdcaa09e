"""The JVM routing tier against the Python dispatcher: the same topic, partition, copies and
halves for every event, and the same messages out of ``cdcwire.spark.write``."""

from __future__ import annotations

import struct
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import functions as F

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.dispatch import Dispatcher
from cdcwire.foundation.errors import CdcwireError
from cdcwire.spark.rows.arrow_events import events_to_batch
from cdcwire.spark.writer.jvm_routing import TIER_SETTING, jvm_routed, routing_tier
from cdcwire.spark.writer.routing import plan_routes
from cdcwire.spark.writer.routing_counts import COUNTS_COLUMN
from cdcwire.spark.writer.sql_value_text import float_text
from cdcwire.model.value_text import float32_text, float64_text
from cdcwire.workload import Workload

PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


#: Handle-key values of every kind the VALUE struct holds, the float traps among them.
KEY_VALUES = [
    (ColumnType.INT, 0), (ColumnType.BIGINT, -(1 << 63)), (ColumnType.BIGINT, (1 << 64) - 1),
    (ColumnType.DOUBLE, 0.1), (ColumnType.DOUBLE, -0.0), (ColumnType.DOUBLE, 1e23), (ColumnType.DOUBLE, 5e-324),
    (ColumnType.DOUBLE, 1.7976931348623157e308), (ColumnType.DOUBLE, 2.0 ** 60),
    (ColumnType.FLOAT, _f32(0.1)), (ColumnType.FLOAT, _f32(1.4e-45)), (ColumnType.FLOAT, _f32(3.4028234e38)),
    (ColumnType.DECIMAL, "-12.3400"), (ColumnType.TIME, "-838:59:59.000000"),
    (ColumnType.DATETIME, "2024-02-29 23:59:59.999999"), (ColumnType.VARCHAR, "ünïcödé ✓ 🐘"),
    (ColumnType.BLOB, b"\x00\xff\xfe"), (ColumnType.VARCHAR, None),
]


def edge_events(with_nan: bool = True) -> list:
    """Rows keyed by every value kind, key changes (and updates that only look like one),
    DDL of a table and of a schema, resolved events, names a topic must make safe. A NaN key
    is for routing only: validation refuses it."""
    out: list = []
    ts = 400_000_000_000_000_000
    for i, (ctype, value) in enumerate(KEY_VALUES):
        flags = PK | (ColumnFlag.BINARY if ctype == ColumnType.BLOB else 0)
        if isinstance(value, int) and value >= 1 << 63:
            flags |= ColumnFlag.UNSIGNED
        key = Column("k", ctype, flags, value)
        other = Column("v", ColumnType.INT, ColumnFlag(0), i)
        out.append(RowChangedEvent(ts + i, "shop", f"t{i % 3}", (key, other), None))
        out.append(RowChangedEvent(ts + i, "shop", f"t{i % 3}", None, (key, other)))
        moved = Column("k", ColumnType.BIGINT, PK, 10_000 + i)
        out.append(RowChangedEvent(ts + i, "shop", f"t{i % 3}", (moved, other), (key, other)))
        out.append(RowChangedEvent(ts + i, "shop", f"t{i % 3}", (key, other), (key, other)))
    same_number = (Column("k", ColumnType.BIGINT, PK, 7),)
    as_uint = (Column("k", ColumnType.BIGINT, PK | ColumnFlag.UNSIGNED, 7),)
    out.append(RowChangedEvent(ts, "shop", "t0", as_uint, same_number))
    nan = (Column("k", ColumnType.DOUBLE, PK, float("nan")),)
    if with_nan:
        out.append(RowChangedEvent(ts, "shop", "t0", nan, nan))
    odd = (Column("id", ColumnType.INT, PK, 1),)
    out.append(RowChangedEvent(ts, "bad name?", "tab/le ✓", odd, None))
    out.append(RowChangedEvent(ts, ".", ".", odd, None))
    out.append(DDLEvent(ts, "shop", "t1", "ALTER TABLE t1 ADD c INT", DDLType.ADD_COLUMN))
    out.append(DDLEvent(ts, "shop", "", "CREATE DATABASE shop", DDLType.CREATE_SCHEMA))
    out.append(ResolvedEvent(ts + 100))
    return out


def workload_events(n: int = 240) -> list:
    return list(Workload(n, seed=11, tables=3, resolved_every=25, ddl_every=60))


def _frame(spark, events: list):
    batch = events_to_batch(events, {"_cdc_seq": pa.array(range(len(events)), pa.int64())})
    return spark.createDataFrame(pa.Table.from_batches([batch]))


def _python_routes(sink, plan, events: list) -> set:
    dispatcher = Dispatcher(sink, partition_count=lambda t: plan.partition_counts[t], select_columns=False)
    dispatcher.topics = set(plan.partition_counts)
    out = set()
    for seq, event in enumerate(events):
        for sub, route in enumerate(dispatcher.route(event)):
            out.add((seq, sub, route.half, route.topic, route.partition))
    return out


@pytest.fixture(params=["java", "sql"])
def router(request) -> str:
    """Both ways the JVM routes: the Java tier's pass over internal rows, and the SQL expressions."""
    return request.param


def _jvm_routes(spark, sink, plan, events: list, router: str) -> tuple[set, int]:
    routed = jvm_routed(_frame(spark, events), sink, plan, java=router == "java")
    rows = routed.select("_cdc_seq", "_cdc_sub", "_cdc_half", "_cdc_topic", "_cdc_partition", COUNTS_COLUMN).collect()
    routes = {tuple(r)[:5] for r in rows if r[COUNTS_COLUMN] is None}
    return routes, sum(1 for r in rows if r[COUNTS_COLUMN] is not None)


def _compare(spark, tmp_path: Path, query: str, events: list, router: str) -> None:
    sink = cdcwire.open_sink(f"file://{tmp_path}/out?{query}")
    plan = plan_routes(spark, _frame(spark, events), sink, None)
    expected = _python_routes(sink, plan, events)
    got, without_message = _jvm_routes(spark, sink, plan, events, router)
    assert got == expected
    routed = {seq for seq, *_ in expected}
    assert without_message == len(events) - len(routed)


@pytest.mark.parametrize("rule, partitions", [("default", 4), ("table", 1), ("ts", 7), ("index-value", 7), ("rowid", 2)])
def test_the_jvm_tier_places_every_generated_event_as_the_python_dispatcher(spark, tmp_path, rule, partitions, router):
    query = f"protocol=open-protocol&partition={rule}&partition-num={partitions}&topic-rule=cdc_{{schema}}_{{table}}"
    _compare(spark, tmp_path, query, workload_events(), router)


@pytest.mark.parametrize("partitions", [1, 16])
def test_the_jvm_tier_hashes_every_kind_of_key_value_as_the_python_dispatcher(spark, tmp_path, partitions, router):
    _compare(spark, tmp_path, f"protocol=open-protocol&partition=index-value&partition-num={partitions}", edge_events(),
             router)


def test_the_jvm_tier_makes_topic_names_safe_as_the_python_dispatcher(spark, tmp_path, router):
    _compare(spark, tmp_path, "protocol=open-protocol&partition-num=2&topic-rule=x{schema}.{table}", edge_events(), router)


@pytest.mark.parametrize(
    "query",
    [
        "protocol=open-protocol&partition=index-value&output-raw-change-event=true",
        "protocol=canal-json&partition=index-value",  # resolved has no message without the extension
        "protocol=craft&partition=index-value&topic-rule={table}",
    ],
)
def test_the_jvm_tier_broadcasts_and_splits_per_protocol_as_the_python_dispatcher(spark, tmp_path, query, router):
    _compare(spark, tmp_path, f"{query}&partition-num=3", edge_events() + workload_events(120), router)


def test_float_hash_text_matches_python_for_random_bit_patterns(spark):
    import random

    rng = random.Random(3)
    values = [struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(600)]
    values += [_f32(struct.unpack("<f", rng.getrandbits(32).to_bytes(4, "little"))[0]) for _ in range(600)]
    values += [struct.unpack("<d", struct.pack("<q", rng.randint(1, 1 << 20)))[0] for _ in range(200)]  # subnormals
    rows = (
        spark.createDataFrame([(v,) for v in values], "d double")
        .select("d", float_text(F.col("d"), "double").alias("f64"), float_text(F.col("d"), "float").alias("f32"))
        .collect()
    )
    assert [r.f64 for r in rows] == [float64_text(r.d) for r in rows]
    assert [r.f32 for r in rows] == [float32_text(r.d) if abs(r.d) < 3.5e38 or r.d != r.d else r.f32 for r in rows]


def _written(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@contextmanager
def _tier(spark, value: str):
    spark.conf.set(TIER_SETTING, value)
    try:
        yield
    finally:
        spark.conf.unset(TIER_SETTING)


@pytest.mark.parametrize("protocol", ["open-protocol", "craft"])
def test_a_write_routed_in_the_jvm_gives_the_python_tiers_messages(spark, tmp_path, protocol):
    events = _frame(spark, workload_events(300) + edge_events(with_nan=False)).drop("_cdc_seq")
    query = f"protocol={protocol}&partition=index-value&partition-num=3&topic-rule=w_{{table}}"
    with _tier(spark, "python"):
        python = cs.write(events, f"file://{tmp_path}/py?{query}")
    jvm = cs.write(events, f"file://{tmp_path}/jvm?{query}")
    assert _written(tmp_path / "jvm") == _written(tmp_path / "py")
    assert (jvm.events_in, jvm.events_encoded, jvm.events_without_message, jvm.copies, jvm.messages) == (
        python.events_in, python.events_encoded, python.events_without_message, python.copies, python.messages
    )
    assert jvm.reconciles


def test_the_tier_is_the_jvm_one_unless_a_rule_or_a_dead_letter_path_needs_python(spark, tmp_path):
    df = _frame(spark, edge_events()).drop("_cdc_seq")

    def tier(query: str, dead_letter=None) -> str:
        return routing_tier(cdcwire.open_sink(f"file://{tmp_path}/o?protocol=open-protocol&{query}"), df, dead_letter)[0]

    assert tier("partition=index-value") == "jvm"
    assert tier("partition=columns&partition-columns=k") == "python"
    assert tier("partition=ts", dead_letter=str(tmp_path / "dl")) == "python"


def test_a_malformed_row_routed_in_the_jvm_fails_the_write_as_python_routing_does(spark, tmp_path):
    good = _frame(spark, edge_events()[:3]).drop("_cdc_seq")
    bad = good.limit(1).withColumn("kind", F.lit("upsert"))
    with pytest.raises(CdcwireError, match=r"malformed input record at input row .*: unknown event kind 'upsert'"):
        cs.write(good.union(bad).coalesce(1), f"file://{tmp_path}/o?protocol=open-protocol")


def test_an_unknown_routing_tier_setting_is_refused_naming_the_setting(spark, tmp_path):
    df = _frame(spark, edge_events()[:1])
    with _tier(spark, "fast"), pytest.raises(CdcwireError, match=r"spark.cdcwire.routing='fast' is not a routing tier"):
        routing_tier(cdcwire.open_sink(f"file://{tmp_path}/o?protocol=open-protocol"), df, None)
