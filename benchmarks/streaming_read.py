"""Streaming read rate against the batch ``cs.read`` of the same topic, in one run.

The topic (``file://`` by default; ``--kafka HOST:PORT`` for a broker) holds a generated
workload. The batch read is ``cs.read(...)`` written to Spark's ``noop`` sink; the streaming
read is ``spark.readStream.format("cdcwire")`` with ``Trigger.AvailableNow`` into the same
sink, once uncapped and once capped at ``--cap`` messages per micro-batch. Each figure is
events per second, and its ratio to the batch read.

    .venv/bin/python benchmarks/streaming_read.py [--events N] [--protocol P] [--cap M] [--kafka HOST:PORT]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
import uuid
from pathlib import Path

import cdcwire
from cdcwire import spark as cs
from cdcwire.workload import Workload


def _batch(spark, uri: str) -> float:
    start = time.perf_counter()
    cs.read(spark, uri).write.format("noop").mode("overwrite").save()
    return time.perf_counter() - start


def _stream(spark, uri: str, checkpoint: str, cap: int | None) -> float:
    start = time.perf_counter()
    reader = spark.readStream.format("cdcwire").option("source-uri", uri)
    if cap:
        reader = reader.option("maxOffsetsPerTrigger", cap)
    query = reader.load().writeStream.format("noop").option("checkpointLocation", checkpoint) \
        .trigger(availableNow=True).start()
    query.awaitTermination()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--protocol", default="canal-json")
    parser.add_argument("--cap", type=int, default=5_000)
    parser.add_argument("--kafka", help="bootstrap HOST:PORT of a broker (default: a file:// sink)")
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cdcwire-stream-bench-"))
    extra = "&enable-tidb-extension=true" if args.protocol == "canal-json" else ""
    topic = f"bench_{uuid.uuid4().hex[:8]}"
    where = f"kafka://{args.kafka}" if args.kafka else f"file://{work}"
    uri = f"{where}/{topic}?protocol={args.protocol}{extra}&partition-num=4"
    try:
        cdcwire.write(uri, cdcwire.encode(uri, Workload(args.events, seed=9)))
        spark = cs.spark_session(args.master, **{"spark.ui.showConsoleProgress": "false"})
        events = cs.read(spark, uri).count()  # and a warm-up: JVM, Python workers
        batch = _batch(spark, uri)
        uncapped = _stream(spark, uri, str(work / "ckpt-1"), None)
        capped = _stream(spark, uri, str(work / "ckpt-2"), args.cap)
        print(f"{args.protocol}, {events:,} decoded events, {where.split(':')[0]}://, {args.master}")
        print(f"{'read':<44} {'events/s':>10} {'ratio':>6}")
        for label, seconds in (("cs.read (batch)", batch), ("readStream, availableNow, uncapped", uncapped),
                               (f"readStream, availableNow, {args.cap} messages a batch", capped)):
            print(f"{label:<44} {events / seconds:>10,.0f} {batch / seconds:>6.2f}")
        spark.stop()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
