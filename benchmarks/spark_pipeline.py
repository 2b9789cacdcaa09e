"""Encode and write N generated events with each protocol to the file sink on Spark local[2],
against a plain Spark baseline that writes the same events as JSON (df.write.json), in the same run.

    python benchmarks/spark_pipeline.py [--sizes 100000,1000000] [--master local[2]]

Both sides start from the same Parquet file of the event DataFrame (made once, not timed).
Prints events/s per protocol, the ratio to the baseline, and the driver's peak memory.
"""

from __future__ import annotations

import argparse
import contextlib
import resource
import shutil
import tempfile
import time
from pathlib import Path


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="100000,1000000")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--protocols", default="")
    args = ap.parse_args()

    import cdcwire
    from cdcwire import spark as cs
    from cdcwire.workload import Workload, write_workload

    names = [p for p in args.protocols.split(",") if p] or cdcwire.protocols()
    work = Path(tempfile.mkdtemp(prefix="cdcwire-bench-"))
    spark = cs.spark_session(args.master, shuffle_partitions=8)
    results = []
    with contextlib.ExitStack() as stack:
        registry = ""
        if "avro" in names:
            from cdcwire_avro.testing import LocalSchemaRegistry

            registry = stack.enter_context(LocalSchemaRegistry()).url
        for size in [int(s) for s in args.sizes.split(",")]:
            jsonl = work / f"events-{size}.jsonl"
            t = time.monotonic()
            write_workload(Workload(size, seed=42), str(jsonl))
            parquet = str(work / f"events-{size}.parquet")
            cs.read_events(spark, str(jsonl)).write.parquet(parquet)
            jsonl.unlink()
            print(f"# {size} events generated and stored as Parquet in {time.monotonic() - t:.0f}s", flush=True)
            events = cs.read_events(spark, parquet)

            t = time.monotonic()
            events.write.json(str(work / f"baseline-{size}"))
            base_s = time.monotonic() - t
            shutil.rmtree(work / f"baseline-{size}")
            results.append((size, "baseline df.write.json", base_s, size / base_s, 1.0, 0, peak_mib()))
            print(f"{size:>9} baseline {size / base_s:>10,.0f} events/s", flush=True)
            for protocol in names:
                query = f"protocol={protocol}"
                if protocol == "avro":
                    query += f"&schema-registry={registry}&topic-rule=b{size}_{{schema}}_{{table}}"
                sink = work / f"sink-{protocol}-{size}"
                summary = cs.write(events, f"file://{sink}/events?{query}&partition-num=6")
                assert summary.reconciles, summary.report()
                rate = size / summary.seconds
                results.append((size, protocol, summary.seconds, rate, rate / (size / base_s), summary.bytes, peak_mib()))
                print(f"{size:>9} {protocol} {rate:>10,.0f} events/s", flush=True)
                shutil.rmtree(sink)
    shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"{'events':>9}  {'writer':<24} {'seconds':>8} {'events/s':>10} {'vs baseline':>11} {'bytes':>13} {'driver peak MiB':>15}")
    for size, name, seconds, rate, ratio, size_bytes, peak in results:
        print(f"{size:>9}  {name:<24} {seconds:>8.1f} {rate:>10,.0f} {ratio:>10.2f}x {size_bytes:>13,} {peak:>15.0f}")


if __name__ == "__main__":
    main()
