"""A canal-json ``cs.read`` on each decoding tier, next to Spark's own JSON reader, in one run on
Spark local[2] with a driver sized as a user sizes it.

    python benchmarks/spark_decoding_tiers.py [--size 200000] [--master local[2]] [--driver-memory 4g] [--rounds 3]

The input is ``Workload(size, seed=11)``, written once (not timed) as a canal-json sink
(``enable-tidb-extension=true``, 6 partitions) and as the event JSON of ``df.write.json``.
Each read goes to Spark's ``noop`` sink, so every column is made and nothing is kept:

- ``spark.read.json`` of the events, schema given (the baseline);
- ``cs.read`` on the Python tier (``spark.cdcwire.decoding=python``: the data source decodes);
- ``cs.read`` on the Java tier (the data source gives the messages, ``MessageDecoding`` with canal-json's ``CanalJsonDecoder`` reads them).

Each is read once first (workers start, the JIT warms: that time is shown apart), then
``--rounds`` times in turn; the figures are the best of each, and the ratios are the
baseline's time over the read's. Last, the
CPU seconds of the whole process tree per read (the JVM, its Python workers, the driver),
steadier than wall time on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

QUIET = {"spark.ui.showConsoleProgress": "false"}
QUERY = "protocol=canal-json&enable-tidb-extension=true&partition-num=6"


def tree_cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and every process under it, from /proc."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
            for task in Path(f"/proc/{pid}/task").iterdir():
                children = (task / "children").read_text().split()
                todo.extend(int(c) for c in children)
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=200_000)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--driver-memory", default="4g")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from cdcwire import spark as cs
    from cdcwire.workload import Workload, write_workload

    spark = cs.spark_session(args.master, shuffle_partitions=8, **{**QUIET, "spark.driver.memory": args.driver_memory})
    work = Path(tempfile.mkdtemp(prefix="cdcwire-decoding-tiers-"))
    try:
        jsonl = work / "events.jsonl"
        write_workload(Workload(args.size, seed=11), str(jsonl))
        events = cs.read_events(spark, str(jsonl))
        events.write.json(str(work / "json"))
        uri = f"file://{work}/sink/t?{QUERY}"
        summary = cs.write(events, uri)
        assert summary.reconciles, summary.report()
        jsonl.unlink()
        schema = spark.read.json(str(work / "json")).schema  # inferred untimed, as a user would give it

        def noop(df) -> None:
            df.write.format("noop").mode("overwrite").save()

        def tier(name: str):
            def run() -> None:
                spark.conf.set("spark.cdcwire.decoding", name)
                noop(cs.read(spark, uri, topics="*"))
            return run

        reads = {
            "spark.read.json": lambda: noop(spark.read.schema(schema).json(str(work / "json"))),
            "cs.read, Python tier": tier("python"),
            "cs.read, Java tier": tier("auto"),
        }
        first: dict[str, float] = {}
        for name, run in reads.items():  # each first read of the session: workers start, the JIT warms
            started = time.perf_counter()
            run()
            first[name] = time.perf_counter() - started
        wall: dict[str, list[float]] = {name: [] for name in reads}
        cpu: dict[str, list[float]] = {name: [] for name in reads}
        for _ in range(args.rounds):
            for name, run in reads.items():
                started, used = time.perf_counter(), tree_cpu_seconds()
                run()
                wall[name].append(time.perf_counter() - started)
                cpu[name].append(tree_cpu_seconds() - used)
        base = min(wall["spark.read.json"])
        print(f"# {args.size:,} events, canal-json, {args.master}, driver {args.driver_memory}, best of {args.rounds}")
        print("| read | wall s (best) | / spark.read.json | CPU s (each round) | first read of the session, s |")
        print("|---|---:|---:|---|---:|")
        for name in reads:
            best = min(wall[name])
            rounds = ", ".join(f"{c:.1f}" for c in cpu[name])
            print(f"| {name} | {best:.2f} | {base / best:.2f}x | {rounds} | {first[name]:.2f} |")
        print(json.dumps({"size": args.size, "wall": wall, "cpu": cpu, "first": first}))
    finally:
        spark.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
