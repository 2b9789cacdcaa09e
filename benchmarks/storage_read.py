"""Reading a TiCDC storage-sink csv layout against ``spark.read.csv`` of the same files, in one run.

The layout (``local://``, csv with commit ts and old values, day directories) holds a generated
workload (every column kind, four tables) written by ``cdcwire.write_storage``. Baseline:
``spark.read.csv`` of the same data files (untyped strings, no order, no replay rules) into
Spark's ``noop`` sink. Then ``cs.read`` of the layout (typed events, replay order, replays
dropped) into the same sink, by both tiers of its csv reading (the fast one, ``cs.read``'s
default, and the reference one, ``csv-tier=reference``), and ``cdcwire.read_storage`` in this
process. The default 50,000 events make some 48,000 rows in 42 files of 42 table versions. Each figure is
the best of ``--repeat`` runs in rows per second and its ratio to the baseline (the issue's goal for ``cs.read``: >= 0.8x).
Last, one ``cs.materialize`` of the layout into Parquet tables (a first run: read, staged,
deduplicated, typed, written), against ``cs.read`` of it. On a shared machine only the ratios
mean something.

    .venv/bin/python benchmarks/storage_read.py [--events N] [--master local[2]] [--repeat 3]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import cdcwire
from cdcwire import spark as cs
from cdcwire.spark.format import register_data_sources
from cdcwire.transports.storage.layout import read_checkpoint
from cdcwire.transports.storage.location import StorageLocation
from cdcwire.workload import Workload
from best_of import best_seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cdcwire-storage-bench-") as tmp:
        uri = f"local://{tmp}/layout?protocol=csv&include-commit-ts=true&output-old-value=true"
        rows = cdcwire.write_storage(uri, Workload(args.events, seed=7))
        files = [str(p) for p in (Path(tmp) / "layout").rglob("CDC*.csv")]
        spark = cs.spark_session(master=args.master)
        runs = {
            "spark.read.csv (baseline)": lambda: spark.read.csv(files).write.format("noop").mode("overwrite").save(),
            "cs.read of the layout": lambda: cs.read(spark, uri).write.format("noop").mode("overwrite").save(),
            "cs.read, csv-tier=reference": lambda: reference_tier(spark, uri).write.format("noop").mode("overwrite").save(),
            "cdcwire.read_storage (one process)": lambda: sum(1 for _ in cdcwire.read_storage(uri)),
        }
        timings = best_seconds(runs, args.repeat)
        start = time.perf_counter()
        summary = cs.materialize(spark, uri, str(Path(tmp) / "tables"))
        materialized = time.perf_counter() - start
        base = timings["spark.read.csv (baseline)"]
        versions = len({Path(f).parent.parent for f in files})
        print(f"{rows} rows in {len(files)} files of {versions} table versions, {args.master}")
        for name, seconds in timings.items():
            print(f"{name:<38} {rows / seconds:>10,.0f} rows/s  {base / seconds:5.2f}x")
        read = timings["cs.read of the layout"]
        print(f"{'cs.materialize of the layout (1 run)':<38} {rows / materialized:>10,.0f} rows/s  {base / materialized:5.2f}x"
              f"  ({read / materialized:.2f}x cs.read; {len(summary.tables)} tables up to {summary.release_ts})")
        spark.stop()


def reference_tier(spark, uri: str):
    """``cs.read`` of the layout with every csv file read by the reference tier."""
    register_data_sources(spark)
    checkpoint = read_checkpoint(StorageLocation.parse(uri).storage)
    return (spark.read.format("cdcwire-storage").option("source-uri", uri).option("checkpoint", str(checkpoint))
            .option("csv-tier", "reference").load())


if __name__ == "__main__":
    main()
