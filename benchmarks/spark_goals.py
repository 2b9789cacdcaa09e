"""Every figure of the "events stay in the JVM" issue, each against its baseline in the same run.

    python benchmarks/spark_goals.py [--sizes 200000,1000000] [--driver-memory 4g]
        [--master local[2]] [--protocols a,b] [--kafka-events 100000] [--skip-kafka] [--both-tiers]

Per size, a fresh process with one Spark session (``spark.driver.memory`` set as a user sizes
a session: at Spark's 1 GiB default the baselines' own sort spills, which flatters every ratio)
measures, on one cached DataFrame of ``cdcwire generate``'s workload:

  write / like-for-like  cs.write(df, "file://...?protocol=P&partition-num=6") against
                         df.repartition(6, "schema", "table").sortWithinPartitions("commit_ts")
                         .write.json (a shuffle and a sort, as cs.write does);
  write / json           the same cs.write against plain df.write.json;
  read / read.json       cs.read of that sink (every topic), written to the noop format, against
                         spark.read.json of the same events (schema given) written the same way;
  read / floor           for a protocol whose message values are JSON (canal-json, debezium,
                         simple), that read against spark.read.json of the message values
                         themselves, one a line: Jackson parsing the same bytes, nothing else;
  write / floor          for a protocol whose messages carry far more bytes than the baseline's
                         JSON (debezium with its schemas: WRITE_FLOOR), that write against Spark
                         moving and writing the same bytes itself: the sink's message values as a
                         cached frame of strings with their topic-partition and place, then
                         repartition(6, partition) + sortWithinPartitions(place) + write.text;
                         no encoding, only the shuffle, sort and write of the bytes cs.write makes;
                         with ``--both-tiers``, that read again on the Python decoding tier
                         (``spark.cdcwire.decoding=python``) where the first ran on the Java tier,
                         and the write again on the Python encoding tier
                         (``spark.cdcwire.encoding=python``) where the first was encoded in Java.

Each figure twice, as the issue's goals ask: the first run (the session's first like-for-like
write and read.json; a protocol's first write and read, its classes, JIT and workers cold) and
the second (warm), each against its own baseline run.

Every protocol installed (or ``--protocols``) is measured; avro against a local Schema Registry.
Then (unless ``--skip-kafka``) cdcwire.write of ``--kafka-events`` canal-json messages to a local
broker against a raw idempotent confluent_kafka Producer (hot_path_ratios.kafka_rows, alternated
best of 3). Every rate counts source events; > 1 means cdcwire is faster than its baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

GOALS = {"write / like-for-like": 0.8, "write / json": 0.5, "read / read.json": 0.8}
FLOOR_GOAL = 0.8
#: What each protocol's sink needs for its messages to read back as the events written.
EXTRA_OPTIONS = {
    "canal-json": "&enable-tidb-extension=true",
    "debezium": "&enable-tidb-extension=true&debezium-disable-schema=false",
}
#: Protocols whose messages carry far more bytes than the baseline: their write is also held to a
#: write floor, Spark shuffling, sorting and writing the same message values as text (write_floor).
WRITE_FLOOR = ("debezium",)
#: Protocols whose message values are JSON documents: their read is also held to the floor, Spark's
#: JSON reader (Jackson) over the same values (debezium's carry several times the baseline's bytes).
JSON_VALUES = ("canal-json", "debezium", "simple")
QUIET = {
    "spark.ui.showConsoleProgress": "false",
    "spark.python.worker.faulthandler.enabled": "true",
}


def timed(run) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def measure(size: int, work: Path, master: str, memory: str, protocols: list[str], both_tiers: bool = False) -> None:
    """One size, in its own process: prints a JSON line per figure as it is measured."""
    from cdcwire import spark as cs
    from cdcwire.sinks.sink import open_sink
    from cdcwire.spark.reader.jvm_decoding import DECODING_SETTING, decoding_tier
    from cdcwire.spark.writer.jvm_encoding import ENCODING_SETTING, encoding_tier
    from cdcwire.workload import Workload, write_workload

    spark = cs.spark_session(master, shuffle_partitions=8, **{**QUIET, "spark.driver.memory": memory})
    jsonl = work / "events.jsonl"
    write_workload(Workload(size, seed=11), str(jsonl))
    df = cs.read_events(spark, str(jsonl)).cache()
    df.count()
    jsonl.unlink()
    df.write.format("noop").mode("overwrite").save()  # warm the JVM up before timing

    def fresh(name: str) -> str:
        shutil.rmtree(work / name, ignore_errors=True)
        return str(work / name)

    def like_for_like() -> float:
        return timed(lambda: df.repartition(6, "schema", "table").sortWithinPartitions("commit_ts")
                     .write.json(fresh("like")))

    like, like_warm = like_for_like(), like_for_like()  # the session's first write, then warm
    plain = timed(lambda: df.write.json(fresh("json")))  # kept: the read baseline's input
    schema = spark.read.json(str(work / "json")).schema  # inferred untimed, as a user would give it

    def read_json() -> float:
        return timed(lambda: spark.read.schema(schema).json(str(work / "json")).write.format("noop").mode("overwrite").save())

    first_read_json, read_json_warm = read_json(), read_json()
    emit(size, "baselines", like=like, like_warm=like_warm, json=plain, read_json=first_read_json,
         read_json_warm=read_json_warm)

    registry = None
    for protocol in protocols:
        query = f"protocol={protocol}&partition-num=6"
        query += EXTRA_OPTIONS.get(protocol, "")
        if protocol == "avro":
            from cdcwire_avro.testing import LocalSchemaRegistry

            registry = registry or LocalSchemaRegistry().__enter__()
            query += f"&schema-registry={registry.url}&topic-rule=b{size}_{{schema}}_{{table}}"
        uri = f"file://{work / ('sink-' + protocol)}/t?{query}"
        try:
            summary = None

            def write() -> None:
                nonlocal summary
                fresh("sink-" + protocol)  # each write into an empty sink: the reads read one write's messages
                summary = cs.write(df, uri)

            wrote = timed(write)  # the protocol's first write in the session: its classes and workers cold
            assert summary.reconciles, summary.report()
            wrote_warm = timed(write)
            assert summary.reconciles, summary.report()
            encoded = encoding_tier(open_sink(uri), df, "jvm")[0]
            python_write = None
            if both_tiers and encoded == "jvm":
                python_uri = f"file://{fresh('py-sink-' + protocol)}/t?{query}"
                spark.conf.set(ENCODING_SETTING, "python")
                try:
                    python_write = timed(lambda: cs.write(df, python_uri))
                finally:
                    spark.conf.unset(ENCODING_SETTING)
                shutil.rmtree(work / f"py-sink-{protocol}", ignore_errors=True)
            def read_back() -> float:
                return timed(lambda: cs.read(spark, uri, topics="*").write.format("noop").mode("overwrite").save())

            read, read_warm = read_back(), read_back()
            write_floor = write_floor_warm = None
            if protocol in WRITE_FLOOR:
                write_floor, write_floor_warm = write_floors(spark, work / ("sink-" + protocol), work)
            floor = floor_warm = None
            if protocol in JSON_VALUES:
                lines = work / f"values-{protocol}.jsonl"
                message_values(work / ("sink-" + protocol), lines)
                floor, floor_warm = read_floor(spark, lines), read_floor(spark, lines)
                lines.unlink()
            tier = decoding_tier(open_sink(uri), spark)[0]
            python_read = None
            if both_tiers and tier == "jvm":
                spark.conf.set(DECODING_SETTING, "python")
                try:
                    python_read = timed(lambda: cs.read(spark, uri, topics="*").write.format("noop").mode("overwrite").save())
                finally:
                    spark.conf.unset(DECODING_SETTING)
        except Exception as exc:  # reported with the figures: the other protocols are still measured
            emit(size, protocol, error=f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
            continue
        emit(size, protocol, write=wrote, write_warm=wrote_warm, read=read, read_warm=read_warm, tier=tier,
             python_read=python_read, encoded=encoded, python_write=python_write, floor=floor, floor_warm=floor_warm,
             write_floor=write_floor, write_floor_warm=write_floor_warm)
        shutil.rmtree(work / f"sink-{protocol}", ignore_errors=True)
    if registry is not None:
        registry.__exit__(None, None, None)
    spark.stop()


def message_values(sink: Path, out: Path) -> None:
    """Every message value of a ``file://`` sink's partition files, one a line (JSON documents hold
    no raw line break): the floor's input, the same bytes the read parses."""
    from cdcwire.transports.file.framing import read_frames

    with open(out, "wb") as lines:
        for path in sorted(sink.rglob("*.cdcwire")):
            if any(part.startswith(".") for part in path.relative_to(sink).parts):
                continue  # cdcwire's own bookkeeping
            with open(path, "rb") as f:
                for _, _, value in read_frames(f, path.name):
                    if value:
                        lines.write(value)
                        lines.write(b"\n")


def write_floors(spark, sink: Path, work: Path) -> tuple[float, float]:
    """The write floor, first and warm: Spark moving and writing the bytes cs.write made itself.

    The sink's message values (made untimed, into Parquet: each value a string with its
    topic-partition's number and its place in it) are read and cached as cs.write's input is, then
    repartitioned by that number into 6, sorted within partitions by place and written as text:
    the shuffle, the sort and the write of the same bytes, with no encoding (as the like-for-like
    write is to the baseline's JSON)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from cdcwire.transports.file.framing import read_frames

    values = work / "write-floor.parquet"
    schema = pa.schema([("partition", pa.int32()), ("place", pa.int64()), ("value", pa.string())])
    with pq.ParquetWriter(str(values), schema) as out:
        files = [p for p in sorted(sink.rglob("*.cdcwire"))
                 if not any(part.startswith(".") for part in p.relative_to(sink).parts)]
        for number, path in enumerate(files):
            with open(path, "rb") as f:
                texts = [value.decode() for _, _, value in read_frames(f, path.name) if value]
            for start in range(0, len(texts), 4096):
                chunk = texts[start:start + 4096]
                out.write_table(pa.table({
                    "partition": pa.array([number] * len(chunk), pa.int32()),
                    "place": pa.array(range(start, start + len(chunk)), pa.int64()),
                    "value": pa.array(chunk, pa.string())}, schema=schema))
    frame = spark.read.parquet(str(values)).cache()
    frame.count()

    def once() -> float:
        target = work / "write-floor"
        shutil.rmtree(target, ignore_errors=True)
        return timed(lambda: frame.repartition(6, "partition").sortWithinPartitions("place").select("value")
                     .write.text(str(target)))

    try:
        return once(), once()
    finally:
        frame.unpersist()
        values.unlink()
        shutil.rmtree(work / "write-floor", ignore_errors=True)


def read_floor(spark, lines: Path) -> float:
    """Spark's JSON reader (Jackson) over the message values, schema given (inferred untimed from a
    sample), written to the noop format as the reads are: the time to parse those bytes alone."""
    schema = spark.read.option("samplingRatio", 0.02).json(str(lines)).schema
    return timed(lambda: spark.read.schema(schema).json(str(lines)).write.format("noop").mode("overwrite").save())


def emit(size: int, name: str, **figures) -> None:
    print(json.dumps({"size": size, "name": name, **figures}), flush=True)


def child(*args: str) -> list[dict]:
    """This script with ``args`` in a fresh process; its JSON lines, printed as they come."""
    proc = subprocess.Popen([sys.executable, __file__, *args], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = []
    for line in proc.stdout:
        if line.startswith("{"):
            lines.append(json.loads(line))
            print(f"# {line.strip()}", flush=True)
    if proc.wait() != 0:
        raise SystemExit(f"measuring {' '.join(args)} failed (exit {proc.returncode})")
    return lines


def table(lines: list[dict]) -> list[str]:
    """The issue's rows: ratio (cdcwire's rate / the baseline's) and its goal."""
    out = ["| events | protocol | write / like-for-like, first | warm | write / json | read / read.json, first | warm"
           " | read tier | Python tier's read / read.json | write tier | Python tier's write / like-for-like"
           " | read / floor, first | warm | write / write floor, first | warm |",
           "|---:|---|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    base = {}
    for line in lines:
        if line["name"] == "baselines":
            base[line["size"]] = line
            continue
        if "error" in line:
            out.append(f"| {line['size']:,} | {line['name']} | FAILED: {line['error']} | | |")
            continue
        b = base[line["size"]]
        out.append(f"| {line['size']:,} | {line['name']} | {b['like'] / line['write']:.2f}x ({line['write']:.1f} s)"
                   f" | {_warm(b, line, 'like', 'write')} | {b['json'] / line['write']:.2f}x"
                   f" | {b['read_json'] / line['read']:.2f}x ({line['read']:.1f} s) | {_warm(b, line, 'read_json', 'read')}"
                   f" | {line.get('tier', '')} | {_python_read(b, line)} | {line.get('encoded', '')}"
                   f" | {_python_write(b, line)} | {_floor(line)} | {_write_floor(line)} |")
    for size, b in base.items():
        out.append(f"| {size:,} | baselines | like-for-like {b['like']:.1f} s | warm {b.get('like_warm', 0):.1f} s"
                   f" | json {b['json']:.1f} s | read.json {b['read_json']:.1f} s | warm {b.get('read_json_warm', 0):.1f} s |")
    goals = ", ".join(f"{k} >= {v}x" for k, v in GOALS.items())
    out.append(f"\ngoals: {goals}; a JSON protocol's read / floor >= {FLOOR_GOAL}x (the read floor: Spark's JSON"
               f" reader over the same message values); write / write floor >= {FLOOR_GOAL}x where a protocol"
               " carries far more bytes than the baseline (the write floor: Spark shuffling, sorting and"
               " writing the same message values as text)")
    return out


def _warm(base: dict, line: dict, baseline: str, figure: str) -> str:
    """The warm ratio (the second run of each, baseline and cdcwire's), where both were measured."""
    ours, theirs = line.get(f"{figure}_warm"), base.get(f"{baseline}_warm")
    return "" if ours is None or theirs is None else f"{theirs / ours:.2f}x ({ours:.1f} s)"


def _floor(line: dict) -> str:
    """The read against the floor (Spark's JSON over the same message values), first | warm."""
    if line.get("floor") is None:
        return " |"
    return (f"{line['floor'] / line['read']:.2f}x ({line['floor']:.1f} s)"
            f" | {line['floor_warm'] / line['read_warm']:.2f}x ({line['floor_warm']:.1f} s)")


def _write_floor(line: dict) -> str:
    """The write against the write floor (Spark writing the same message values as text), first | warm."""
    if line.get("write_floor") is None:
        return " |"
    return (f"{line['write_floor'] / line['write']:.2f}x ({line['write_floor']:.1f} s)"
            f" | {line['write_floor_warm'] / line['write_warm']:.2f}x ({line['write_floor_warm']:.1f} s)")


def _python_write(base: dict, line: dict) -> str:
    python_write = line.get("python_write")
    return "" if python_write is None else f"{base['like'] / python_write:.2f}x ({python_write:.1f} s)"


def _python_read(base: dict, line: dict) -> str:
    python_read = line.get("python_read")
    return "" if python_read is None else f"{base['read_json'] / python_read:.2f}x ({python_read:.1f} s)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200000,1000000")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--protocols", default="", help="comma-separated; default every installed protocol")
    ap.add_argument("--kafka-events", type=int, default=100000)
    ap.add_argument("--skip-kafka", action="store_true")
    ap.add_argument("--both-tiers", action="store_true",
                    help="read each sink a JVM tier decodes, and write each one a JVM tier encodes, again on the Python tier")
    ap.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()

    import cdcwire

    protocols = [p for p in args.protocols.split(",") if p] or cdcwire.protocols()
    if args.measure:
        return measure(args.measure, Path(args.work), args.master, args.driver_memory, protocols, args.both_tiers)
    started = time.monotonic()
    lines = []
    for size in [int(s) for s in args.sizes.split(",")]:
        work = Path(tempfile.mkdtemp(prefix=f"cdcwire-goals-{size}-"))
        try:
            lines += child("--measure", str(size), "--work", str(work), "--master", args.master,
                           "--driver-memory", args.driver_memory, "--protocols", ",".join(protocols),
                           *(["--both-tiers"] if args.both_tiers else []))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    kafka = []
    if not args.skip_kafka:
        import hot_path_ratios
        from cdcwire.workload import Workload

        work = Path(tempfile.mkdtemp(prefix="cdcwire-goals-kafka-"))
        try:
            hot_path_ratios.kafka_rows(list(Workload(args.kafka_events, seed=11)), 3, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        kafka = [f"| {figure} | {ratio:.2f}x (goal >= 0.9x) | {rate} | {base} |"
                 for figure, ratio, rate, base in hot_path_ratios.ROWS]
    print(f"\nSpark {args.master}, spark.driver.memory={args.driver_memory}, file sink, partition-num=6;"
          f" {time.monotonic() - started:.0f} s in all\n")
    print("\n".join(table(lines)))
    if kafka:
        print(f"\n{args.kafka_events:,} canal-json events to a local broker, best of 3:")
        print("\n".join(kafka))


if __name__ == "__main__":
    main()
