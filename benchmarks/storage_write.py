"""Writing a TiCDC storage-sink csv layout with ``cs.write`` against ``cdcwire.write_storage`` and
``df.write.csv`` of the same rows, in one run.

The events: a generated workload (every column kind, four tables), as an event DataFrame read
from JSON Lines and cached, so each write starts from the same rows in memory. Baseline: Spark's
own ``df.write.csv`` of the same rows (commit ts, schema, table and the image's values as JSON
text: no types, no layout, no order). Then ``cs.write`` of the DataFrame to a ``local://`` layout
(csv with commit ts and old values, day directories: the layout, its order and its TiCDC
records), and ``cdcwire.write_storage`` of the same events in this process. Each figure is the
best of ``--repeat`` runs in rows per second and its ratio to the baseline. On a shared machine
only the ratios mean something.

    .venv/bin/python benchmarks/storage_write.py [--events N] [--master local[2]] [--repeat 3]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import cdcwire
from cdcwire import spark as cs
from cdcwire.workload import Workload
from pyspark.sql import functions as F
from best_of import best_seconds

OPTIONS = "protocol=csv&include-commit-ts=true&output-old-value=true"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=50_000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cdcwire-storage-write-bench-") as tmp:
        events = list(Workload(args.events, seed=7))
        source = Path(tmp) / "events.jsonl"
        with open(source, "w", encoding="utf-8") as out:
            cdcwire.write_jsonl(events, out)
        spark = cs.spark_session(master=args.master)
        df = cs.read_events(spark, str(source)).cache()
        rows = df.where(F.col("kind").isin("insert", "update", "delete")).count()
        flat = df.where(F.col("kind").isin("insert", "update", "delete")).select(
            F.col("commit_ts").cast("string"), "schema", "table",
            F.to_json(F.coalesce("columns", "pre_columns").getField("value")).alias("values"),
        )

        def fresh(name: str) -> str:
            path = Path(tmp) / name
            shutil.rmtree(path, ignore_errors=True)
            return str(path)

        runs = {
            "df.write.csv (baseline)": lambda: flat.write.mode("overwrite").csv(fresh("plain")),
            "cs.write to a layout": lambda: cs.write(df, f"local://{fresh('spark')}?{OPTIONS}"),
            "cdcwire.write_storage (one process)": lambda: cdcwire.write_storage(f"local://{fresh('python')}?{OPTIONS}",
                                                                                 events),
        }
        timings = best_seconds(runs, args.repeat)
        base = timings["df.write.csv (baseline)"]
        print(f"{rows} rows of {len(events)} events, {args.master}")
        for name, seconds in timings.items():
            print(f"{name:<38} {rows / seconds:>10,.0f} rows/s  {base / seconds:5.2f}x")
        spark.stop()


if __name__ == "__main__":
    main()
