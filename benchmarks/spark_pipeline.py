"""Encode and write N generated events with each protocol to the file sink on Spark local[2],
against a plain Spark baseline that writes the same events as JSON (df.write.json), in the same run.

    python benchmarks/spark_pipeline.py [--sizes 100000,1000000] [--master local[2]] [--protocols a,b]
        [--driver-memory 4g] [--python-tier]

For each size, one process makes the input (a generated workload stored as Parquet, not
timed) and a fresh process measures: a warm-up read (not timed), the baseline, then every
protocol, all reading that Parquet file. Two baselines: plain ``df.write.json`` and the like-for-like
one, ``df.repartition(6, "schema", "table").sortWithinPartitions("commit_ts").write.json`` (a
shuffle and a sort, as cs.write does). The session has ``spark.driver.memory`` set (4g by
default, as a user sizes a session: at Spark's 1 GiB default the baseline's own sort spills).
``--python-tier`` also measures each protocol with ``spark.cdcwire.encoding=python`` (the
Python codecs encode), next to the default tiers, in the same run. Printed as each is measured: events/s and the
ratio to the baseline (a protocol whose write fails is printed as FAILED with its error,
and the others are still measured); at the end a table with bytes written and the peak
memory of the driver in that measuring process (the Python driver and the Spark driver
JVM, which in local mode also runs the executors' JVM side). A write that collected
events to the driver would show as peaks that grow with the input; cdcwire's stay flat.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Iterator

QUIET = {
    "spark.ui.showConsoleProgress": "false",
    # a Python worker that dies prints its Python stack instead of only "crashed"
    "spark.python.worker.faulthandler.enabled": "true",
    "spark.sql.execution.pyspark.udf.faulthandler.enabled": "true",
}


def python_peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def jvm_peak_mib(spark) -> float:
    """Peak resident memory (VmHWM) of the driver JVM that PySpark started."""
    pid = spark.sparkContext._gateway.proc.pid
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def make_input(size: int, work: Path, master: str) -> None:
    from cdcwire import spark as cs
    from cdcwire.workload import Workload, write_workload

    jsonl = work / f"events-{size}.jsonl"
    write_workload(Workload(size, seed=42), str(jsonl))
    spark = cs.spark_session(master, **QUIET)
    cs.read_events(spark, str(jsonl)).write.parquet(str(work / f"events-{size}.parquet"))
    jsonl.unlink()


def measure(size: int, work: Path, master: str, protocols: list[str], memory: str, python_tier: bool) -> None:
    """Runs in its own process; prints one JSON line per writer as soon as it is measured (a
    writer that fails is a line with its error: the others are still measured), then a
    line of the driver's peak memory."""
    from cdcwire import spark as cs

    spark = cs.spark_session(master, shuffle_partitions=8, **{**QUIET, "spark.driver.memory": memory})
    events = cs.read_events(spark, str(work / f"events-{size}.parquet"))
    events.write.format("noop").mode("overwrite").save()  # warm the JVM up before anything is timed
    started = time.monotonic()
    events.write.json(str(work / "baseline"))
    base_s = time.monotonic() - started
    base_bytes = sum(p.stat().st_size for p in (work / "baseline").glob("part-*"))
    shutil.rmtree(work / "baseline")
    emit({"writer": "baseline df.write.json", "seconds": base_s, "bytes": base_bytes})
    started = time.monotonic()
    events.repartition(6, "schema", "table").sortWithinPartitions("commit_ts").write.json(str(work / "like"))
    like_s = time.monotonic() - started
    shutil.rmtree(work / "like")
    emit({"writer": "like-for-like json", "seconds": like_s, "bytes": base_bytes})
    registry = None
    if "avro" in protocols:
        from cdcwire_avro.testing import LocalSchemaRegistry

        registry = LocalSchemaRegistry().__enter__()
    runs = [(p, tier) for p in protocols for tier in (("python", "auto") if python_tier else ("auto",))]
    for protocol, tier in runs:
        spark.conf.set("spark.cdcwire.encoding", tier)
        writer = protocol if tier == "auto" else f"{protocol} (python tier)"
        query = f"protocol={protocol}"
        if protocol == "avro":
            query += f"&schema-registry={registry.url}&topic-rule=b{size}_{{schema}}_{{table}}"
        if protocol == "canal-json":
            query += "&enable-tidb-extension=true"
        sink = work / f"sink-{protocol}"
        try:
            summary = cs.write(events, f"file://{sink}/events?{query}&partition-num=6")
        except Exception as exc:  # reported with the figures, not hidden: the run goes on
            emit({"writer": writer, "error": f"{type(exc).__name__}: {str(exc)[:300]}"})
            continue
        finally:
            shutil.rmtree(sink, ignore_errors=True)
        if not summary.reconciles:
            emit({"writer": writer, "error": "summary does not reconcile:\n" + summary.report()})
            continue
        emit({"writer": writer, "seconds": summary.seconds, "bytes": summary.bytes})
    emit({"python_mib": python_peak_mib(), "jvm_mib": jvm_peak_mib(spark)})


def emit(row: dict) -> None:
    print(json.dumps(row), flush=True)


def child(*args: str) -> Iterator[dict]:
    """Run this script with ``args`` in a fresh process; yield its JSON lines as they come."""
    proc = subprocess.Popen(
        [sys.executable, __file__, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    err: list[str] = []
    drain = threading.Thread(target=lambda: err.extend(proc.stderr), daemon=True)  # never blocks the child
    drain.start()
    for line in proc.stdout:
        if line.startswith("{"):
            yield json.loads(line)
    proc.wait()
    drain.join()
    if proc.returncode != 0:
        yield {"error": f"{' '.join(args)} failed:\n{''.join(err)[-4000:]}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--protocols", default="", help="comma-separated; default every installed protocol")
    ap.add_argument("--driver-memory", default="4g", help="spark.driver.memory of the measuring session")
    ap.add_argument("--python-tier", action="store_true",
                    help="also measure each protocol with spark.cdcwire.encoding=python")
    ap.add_argument("--make-input", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    args = ap.parse_args()

    import cdcwire

    protocols = [p for p in args.protocols.split(",") if p] or cdcwire.protocols()
    if args.make_input:
        return make_input(args.make_input, Path(args.work), args.master)
    if args.measure:
        return measure(args.measure, Path(args.work), args.master, protocols, args.driver_memory, args.python_tier)

    results = []
    for size in [int(s) for s in args.sizes.split(",")]:
        work = Path(tempfile.mkdtemp(prefix=f"cdcwire-bench-{size}-"))
        try:
            t = time.monotonic()
            for line in child("--make-input", str(size), "--work", str(work), "--master", args.master):
                raise SystemExit(line.get("error", line))
            made = time.monotonic() - t
            print(f"# {size:,} events generated and stored as Parquet in {made:.0f}s", flush=True)
            result: dict = {"size": size, "rows": [], "python_mib": float("nan"), "jvm_mib": float("nan")}
            results.append(result)
            extra = ["--python-tier"] if args.python_tier else []
            for line in child("--measure", str(size), "--work", str(work), "--master", args.master,
                              "--protocols", ",".join(protocols), "--driver-memory", args.driver_memory, *extra):
                if "writer" in line:
                    result["rows"].append(line)
                    print(f"# {size:>9,} {describe(line, size, result['rows'])}", flush=True)
                elif "error" in line:
                    print(f"# {size:>9,} measuring stopped: {line['error']}", flush=True)
                else:
                    result.update(line)
        finally:
            shutil.rmtree(work, ignore_errors=True)

    print()
    print(f"Spark {args.master}, file sink, partition-num=6;"
          " the baseline writes the same DataFrame with df.write.json")
    print(f"{'events':>9}  {'writer':<28} {'seconds':>8} {'events/s':>9} {'vs json':>8} {'vs like':>8} {'bytes':>13}"
          f" {'driver MiB (py/jvm)':>20}")
    for result in results:
        size, base, like = result["size"], result["rows"][0], result["rows"][1]
        memory = f"{result['python_mib']:.0f} / {result['jvm_mib']:.0f}"
        for row in result["rows"]:
            if "error" in row:
                print(f"{size:>9}  {row['writer']:<28} FAILED: {row['error'].splitlines()[0]}")
                continue
            print(f"{size:>9}  {row['writer']:<28} {row['seconds']:>8.1f} {size / row['seconds']:>9,.0f}"
                  f" {base['seconds'] / row['seconds']:>7.2f}x {like['seconds'] / row['seconds']:>7.2f}x"
                  f" {row['bytes']:>13,} {memory:>20}")
    if len(results) > 1:
        first, last = results[0], results[-1]
        growth = last["size"] / first["size"]
        print(f"\ncost growth from {first['size']:,} to {last['size']:,} events ({growth:.0f}x the input):")
        before = {row["writer"]: row for row in first["rows"] if "seconds" in row}
        for b in last["rows"]:
            a = before.get(b["writer"])
            if a is not None and "seconds" in b:
                print(f"  {a['writer']:<24} {b['seconds'] / a['seconds']:5.1f}x the time")


def describe(row: dict, size: int, rows: list[dict]) -> str:
    if "error" in row:
        return f"{row['writer']:<28} FAILED: {row['error']}"
    ratios = "".join(f"  {b['seconds'] / row['seconds']:.2f}x {b['writer']}" for b in rows[:2] if "seconds" in b)
    return f"{row['writer']:<28} {size / row['seconds']:>9,.0f} events/s{ratios}"


if __name__ == "__main__":
    main()
