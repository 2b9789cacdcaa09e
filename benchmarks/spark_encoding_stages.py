"""Where a ``cs.write`` spends its time, stage by stage, next to Spark's own JSON writer, in one
run on Spark local[2], for each protocol named (canal-json by default).

    python benchmarks/spark_encoding_stages.py [--size 200000] [--protocols canal-json,craft,avro,...]
        [--master local[2]] [--driver-memory 4g]

Writers, each timed whole (the cs.write ones twice, in one order and back, after an untimed
write of each): plain ``df.write.json``, the like-for-like
``df.repartition(6, "schema", "table").sortWithinPartitions("commit_ts").write.json``, then
``cs.write(df, "file://...?protocol=canal-json&enable-tidb-extension=true&partition-num=6")`` (each
protocol's query in :data:`QUERIES`) with the Python tier (``spark.cdcwire.encoding=python``) and with
the Java tier (the plugin's ``MessageEncoder`` or ``BatchEncoder`` over the internal rows after the sort).

Then the internal-row encoder's stages, each run to Spark's ``noop`` sink so that only what
comes before it is done: reading the input, + routing (the JVM tier's expressions), + shuffle
and sort, + encoding, + framing and staging the messages Java made (``FramedStaging``, into a
write job's staging area, then discarded); the whole write (above) adds the encoding stage's
Python work (the markers and the rows Java left, in a Python worker) and the publish. Each stage's own cost
is its difference to the one before; last, how many rows Java encoded. The input is
``Workload(size, seed=42)`` stored as Parquet first (not timed), as in spark_pipeline.py.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from spark_pipeline import QUIET  # noqa: E402

#: The sink query of each protocol's writes: six partitions, as the like-for-like writer's.
QUERIES = {
    "canal-json": "protocol=canal-json&enable-tidb-extension=true&partition-num=6",
    "craft": "protocol=craft&partition-num=6",
    "open-protocol": "protocol=open-protocol&partition-num=6",
    "simple": "protocol=simple&partition-num=6",
    "debezium": "protocol=debezium&partition-num=6",
    # a topic a table, as avro needs; {registry}: a LocalSchemaRegistry this run starts
    "avro": "protocol=avro&partition-num=6&topic-rule=b_{{schema}}_{{table}}&schema-registry={registry}",
}


def timed(label: str, run) -> float:
    started = time.monotonic()
    run()
    seconds = time.monotonic() - started
    print(json.dumps({"stage": label, "seconds": round(seconds, 2)}), flush=True)
    return seconds


def noop(df) -> None:
    df.write.format("noop").mode("overwrite").save()


def measure(size: int, work: Path, master: str, memory: str, protocols: list[str]) -> None:
    from cdcwire import spark as cs

    spark = cs.spark_session(master, shuffle_partitions=8, **{**QUIET, "spark.driver.memory": memory})
    events = cs.read_events(spark, str(work / f"events-{size}.parquet"))
    noop(events)  # warm the JVM up before anything is timed
    timed("plain df.write.json", lambda: events.write.json(str(work / "plain")))
    timed("like-for-like json", lambda: events.repartition(6, "schema", "table")
          .sortWithinPartitions("commit_ts").write.json(str(work / "like")))
    registry = None
    if "avro" in protocols:
        from cdcwire_avro.testing import LocalSchemaRegistry

        registry = LocalSchemaRegistry().__enter__()
    try:
        for protocol in protocols:
            measure_protocol(spark, events, work, protocol, registry.url if registry else "")
    finally:
        if registry is not None:
            registry.__exit__(None, None, None)


def measure_protocol(spark, events, work: Path, protocol: str, registry: str) -> None:
    import pyarrow as pa
    from pyspark.sql import functions as F

    from cdcwire import open_sink
    from cdcwire import spark as cs
    from cdcwire.spark.pipeline import _laid_out
    from cdcwire.spark.writer.jvm_encoding import (
        ENCODING_SETTING, EVENTS_COLUMN, VALUE_COLUMN, encoding_tier, jvm_encoded_partitions,
    )
    from cdcwire.spark.writer.jvm_routing import jvm_routed

    query = QUERIES[protocol].format(registry=registry)

    def write(tier: str, name: str) -> None:
        spark.conf.set(ENCODING_SETTING, tier)
        summary = cs.write(events, f"file://{work}/sink-{name}/events?{query}")
        assert summary.reconciles, summary.report()
        shutil.rmtree(work / f"sink-{name}")

    tiers = [("python", "Python tier"), ("auto", "Java tier")]
    for setting, _ in tiers:  # untimed: the first write of each tier starts its workers and warms the JIT
        write(setting, setting)
    for setting, label in tiers + tiers[::-1]:  # there and back: a load that drifts evens out
        timed(f"{protocol}, {label}", lambda: write(setting, setting))

    sink = open_sink(f"file://{work}/stages/events?{query}")
    spark.conf.unset(ENCODING_SETTING)
    tier, why = encoding_tier(sink, events, "jvm")
    spark.conf.set(ENCODING_SETTING, "python")  # the stages below run the Java encoder by hand
    if tier != "jvm":
        print(json.dumps({"protocol": protocol, "stages": f"none: the Python tier encodes ({why})"}), flush=True)
        return

    def laid_out():
        """The laid-out frame before encoding, new each time: the RDD of a frame's plan runs its
        shuffle once, and a second stage over the same frame would start after it."""
        return _laid_out(events, sink, None)[0]

    plan = _laid_out(events, sink, None)[1]
    seq = events.withColumn("_cdc_seq", F.monotonically_increasing_id())
    timed(f"{protocol} stage: reading the input", lambda: noop(events))
    timed(f"{protocol} stage: + routing", lambda: noop(jvm_routed(seq, sink, plan)))
    timed(f"{protocol} stage: + shuffle and sort", lambda: noop(laid_out()))
    timed(f"{protocol} stage: + encoding (Java, internal rows)", lambda: noop(jvm_encoded_partitions(laid_out(), sink)))

    def staged() -> None:
        job = sink.needs_transport().begin_write(sink.config, f"file://{work}/stages/events?{query}")
        try:
            noop(jvm_encoded_partitions(laid_out(), sink, staging_area=job.staging_area()))
        finally:
            job.discard()

    timed(f"{protocol} stage: + framing and staging (Java, file://)", staged)
    encoded = jvm_encoded_partitions(laid_out(), sink)
    taken = EVENTS_COLUMN if EVENTS_COLUMN in encoded.columns else VALUE_COLUMN  # a batch encoder marks each row
    counted = encoded.select(F.count("*").alias("rows"), F.count(taken).alias("java")).first()
    print(json.dumps({"protocol": protocol, "rows": counted["rows"], "made_in_java": counted["java"]}), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=200000)
    ap.add_argument("--protocols", default="canal-json", help=f"comma-separated, of {', '.join(QUERIES)}")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix=f"cdcwire-stages-{args.size}-"))
    try:
        import subprocess

        subprocess.run([sys.executable, str(Path(__file__).parent / "spark_pipeline.py"), "--make-input",
                        str(args.size), "--work", str(work), "--master", args.master], check=True)
        measure(args.size, work, args.master, args.driver_memory, args.protocols.split(","))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
