"""cs.materialize and cs.write on ``local-cluster[2,1,1024]``: two executor JVMs of their own, as
on a real cluster (every task's data crosses a process boundary, nothing is shared with the
driver). Materialize gives the same Parquet and Delta tables as the suite's local session, after
a first run (and, in a longer run, an incremental one); a canal-json write is encoded by the
Java tier (its jar reaches the executors through ``spark.jars``), as the Python codec encodes it.

PySpark has one SparkContext per Python process, and the suite's session is that one, so the
local-cluster session runs in a subprocess of its own (a module fixture started once and
stopped at the end): it reads one JSON request a line on stdin and answers one on stdout.
Spark's local-cluster workers keep their executors' logs under ``SPARK_HOME/work``; the
subprocess gets a ``SPARK_HOME`` of links to PySpark's own files in a temporary directory, so
nothing is written into the installed package.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Iterator

import pyarrow.parquet as pq
import pytest

import cdcwire
from cdcwire import ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.tables.table_state import TablesState
from cdcwire.workload import Workload

MASTER = "local-cluster[2,1,1024]"

#: The local-cluster side: one session, then ``{"uri", "out", "format"}`` per line → the
#: run's summary, or the error, as one JSON line. Its first line says how many executors joined.
SERVER = textwrap.dedent(
    """\
    import json, sys, time
    from cdcwire import spark as cs
    from cdcwire.spark.session import log4j_file

    jit = "-XX:TieredStopAtLevel=1"  # C1 only, in the driver and the executors: as the suite's own session
    spark = cs.spark_session(sys.argv[1], app_name="cdcwire-local-cluster", shuffle_partitions=4, log_level="OFF",
                             **{"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={log4j_file('OFF')} {jit}",
                                "spark.executor.extraJavaOptions": jit})
    tracker, deadline = spark.sparkContext.statusTracker(), time.monotonic() + 240
    while len(tracker.getExecutorInfos()) < 3 and time.monotonic() < deadline:  # the driver and 2 executors
        time.sleep(0.5)
    print(json.dumps({"executors": len(tracker.getExecutorInfos()) - 1}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "events" in request:  # a write: the summary, and the tier that encoded it
                from cdcwire import open_sink
                from cdcwire.spark.writer.jvm_encoding import encoding_tier

                events = cs.read_events(spark, request["events"])
                tier = encoding_tier(open_sink(request["uri"]), events, "jvm")[0]
                summary = cs.write(events, request["uri"])
                print(json.dumps({"messages": summary.messages, "reconciles": summary.reconciles, "tier": tier}),
                      flush=True)
                continue
            summary = cs.materialize(spark, request["uri"], request["out"], format=request["format"])
            print(json.dumps({"events_read": summary.events_read, "tables": sorted(summary.tables)}), flush=True)
        except Exception as exc:
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
    spark.stop()
    """
)


class ClusterSession:
    """A ``local-cluster`` session in a subprocess, asked to materialize one run at a time: the
    run starts, and its answer is read when the caller has done its own work meanwhile."""

    def __init__(self, process: subprocess.Popen, executors: int) -> None:
        self.process, self.executors = process, executors

    def start_materialize(self, uri: str, out: Path, fmt: str) -> None:
        self.process.stdin.write(json.dumps({"uri": uri, "out": str(out), "format": fmt}) + "\n")
        self.process.stdin.flush()

    def write(self, events: Path, uri: str) -> dict:
        """``cs.write`` of the events in a JSON Lines file, on the cluster: its answer."""
        self.process.stdin.write(json.dumps({"events": str(events), "uri": uri}) + "\n")
        self.process.stdin.flush()
        return self.summary()

    def summary(self) -> dict:
        answer = json.loads(self.process.stdout.readline() or '{"error": "the local-cluster session ended"}')
        assert "error" not in answer, answer["error"]
        return answer


def _spark_home(directory: Path) -> Path:
    """A SPARK_HOME of links to PySpark's files, in which the workers' ``work`` directory can be made."""
    import pyspark

    package = Path(pyspark.__file__).parent
    directory.mkdir()
    for entry in package.iterdir():
        if entry.name != "work":
            (directory / entry.name).symlink_to(entry)
    return directory


@pytest.fixture(scope="module")
def cluster(tmp_path_factory) -> Iterator[ClusterSession]:
    home = _spark_home(tmp_path_factory.mktemp("local-cluster") / "spark-home")
    env = {**os.environ, "SPARK_HOME": str(home), "PYSPARK_PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}  # the executors' workers import this cdcwire
    process = subprocess.Popen([sys.executable, "-c", SERVER, MASTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=env)
    try:
        ready = json.loads(process.stdout.readline() or '{"executors": 0}')
        yield ClusterSession(process, ready["executors"])
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


EVENTS = list(Workload(800, seed=7, tables=3))
#: a first run up to a commit in the middle, an incremental run over the rest (key changes and
#: deletes of rows the first run wrote, an ADD COLUMN or two)
HALF = next(i for i, e in enumerate(EVENTS) if i >= len(EVENTS) // 2 and isinstance(e, ResolvedEvent))
#: The suite makes the first run (executors write every bucket, the driver commits); a longer
#: run adds the incremental one (executors read the buckets the first run wrote):
#: CDCWIRE_CLUSTER_RUNS=2.
RUNS = (EVENTS[:HALF + 1], [*EVENTS[HALF + 1:], ResolvedEvent(EVENTS[-1].commit_ts + 1)])[
    : int(os.environ.get("CDCWIRE_CLUSTER_RUNS", "1"))]
TABLES = ("shop.orders", "shop.customers", "app.files")


def _write_with_a_replay(uri: str, events: list) -> None:
    messages = cdcwire.encode(uri, events)
    cdcwire.write(uri, messages)
    cdcwire.write(uri, messages[len(messages) // 3: len(messages) // 2])


def _rows(out: Path, fmt: str, table: str) -> list[dict]:
    if fmt == "delta":
        from deltalake import DeltaTable

        rows = DeltaTable(str(out / table)).to_pyarrow_table().to_pylist()
    else:
        rows = pq.read_table(out / TablesState.load(str(out), "parquet").snapshots[table]).to_pylist()
    return sorted(rows, key=lambda r: r["id"])


def _replayed_ids(events: list, table: str) -> list[int]:
    schema, name = table.split(".")
    ids: set[int] = set()
    for e in events:
        if isinstance(e, RowChangedEvent) and (e.schema, e.table) == (schema, name):
            if e.pre_columns is not None:
                ids.discard(next(c.value for c in e.pre_columns if c.name == "id"))
            if e.columns is not None:
                ids.add(next(c.value for c in e.columns if c.name == "id"))
    return sorted(ids)


def test_the_cluster_has_two_executor_jvms_besides_the_driver(cluster) -> None:
    assert cluster.executors == 2


#: Parquet in the suite (three JVMs start for it); a longer run adds Delta: CDCWIRE_CLUSTER_FORMATS=parquet,delta.
FORMATS = os.environ.get("CDCWIRE_CLUSTER_FORMATS", "parquet").split(",")


@pytest.mark.long_because("a local-cluster of a driver and two executor JVMs, started for this module")
@pytest.mark.parametrize("fmt", FORMATS)
def test_materialize_on_a_local_cluster_gives_the_tables_of_local_mode(spark, cluster, tmp_path, fmt) -> None:
    uri = (f"file://{tmp_path}/src/w?protocol=canal-json&enable-tidb-extension=true&partition-num=2"
           "&partition=index-value")
    on_cluster, local = tmp_path / "cluster", tmp_path / "local"
    for run, events in enumerate(RUNS, 1):
        _write_with_a_replay(uri, events)
        cluster.start_materialize(uri, on_cluster, fmt)  # the two sessions run side by side
        local_run = cs.materialize(spark, uri, str(local), format=fmt)
        cluster_run = cluster.summary()
        assert cluster_run == {"events_read": local_run.events_read, "tables": sorted(local_run.tables)}, run
        for table in TABLES:
            rows = _rows(local, fmt, table)
            assert _rows(on_cluster, fmt, table) == rows, (run, table)
            assert [r["id"] for r in rows] == _replayed_ids([e for r in RUNS[:run] for e in r], table), (run, table)


def test_a_canal_json_write_on_a_local_cluster_is_encoded_in_java_as_the_python_codec_encodes_it(cluster, tmp_path) -> None:
    from cdcwire.model.event_json import write_jsonl

    events = EVENTS[:300]
    with open(tmp_path / "events.jsonl", "w", encoding="utf-8") as out:
        write_jsonl(events, out)
    uri = f"file://{tmp_path}/sink/w?protocol=canal-json&enable-tidb-extension=true&partition-num=2"
    answer = cluster.write(tmp_path / "events.jsonl", uri)
    expected = cdcwire.encode(uri, events)
    assert answer == {"messages": len(expected), "reconciles": True, "tier": "jvm"}

    def by_partition(messages) -> dict:
        out: dict = {}
        for m in messages:  # canal-json's ts is the wall clock: blanked
            out.setdefault((m.topic, m.partition), []).append(re.sub(rb'"ts":\d+', b'"ts":0', m.value))
        return out

    assert by_partition(cdcwire.read(uri)) == by_partition(expected)
