"""``materialize`` rate against a plain ``cs.read`` of the same topic, in one run.

The topic (``file://``, canal-json with the extension, index-value dispatch over 4
partitions) holds a generated workload of inserts, updates and deletes with resolved
events. Baseline: ``cs.read`` of the topic into Spark's ``noop`` sink. Then a first
``materialize`` run into Parquet and one into Delta (each into a fresh directory: the
whole topic applied). Each figure is events read per second, and its ratio to the read.

    .venv/bin/python benchmarks/materialize_rate.py [--events N] [--master local[2]]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import cdcwire
from cdcwire import spark as cs
from cdcwire.workload import Workload


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cdcwire-materialize-bench-"))
    uri = (f"file://{work}/src/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=4"
           "&partition=index-value")
    try:
        cdcwire.write(uri, cdcwire.encode(uri, Workload(args.events, seed=4, ddl_every=10**9)))
        spark = cs.spark_session(args.master, **{"spark.ui.showConsoleProgress": "false"})
        events = cs.read(spark, uri).count()  # and a warm-up
        start = time.perf_counter()
        cs.read(spark, uri).write.format("noop").mode("overwrite").save()
        read = time.perf_counter() - start
        rows = [("cs.read into noop", read, None)]
        for fmt in ("parquet", "delta"):
            start = time.perf_counter()
            summary = cs.materialize(spark, uri, str(work / fmt), format=fmt)
            rows.append((f"materialize, {fmt}, first run", time.perf_counter() - start, summary))
        print(f"{events:,} events read back, {args.master}")
        print(f"{'run':<36} {'events/s':>10} {'ratio':>6}  tables, rows")
        for label, seconds, summary in rows:
            tables = "" if summary is None else (
                f"{len(summary.tables)} tables, {sum(c.inserted for c in summary.tables.values()):,} rows"
            )
            print(f"{label:<36} {events / seconds:>10,.0f} {read / seconds:>6.2f}  {tables}")
        spark.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
