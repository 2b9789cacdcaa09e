"""cs.materialize of more events than fit in the executor's memory: the memory is shrunk, not
the data. A session of its own (a subprocess: the JVM's heap is fixed when it starts) with a
512 MiB driver, which in local mode is the executor too, materializes 16,000 events of rows
about 24 KB wide (some 400 MB of row images, nearly the whole heap and several times the
memory Spark gives its tasks), and the table equals an in-order replay.

Before the reader bounded its batches in bytes (``BATCH_BYTES``) the run died in its first stage, the staging write: the
Python source hands Spark Arrow batches of 4,096 events whatever their size (here ~190 MB,
allocated off-heap, whose limit is the heap's 512 MiB), so bounding the run's memory needs
batches bounded in bytes, staged Parquet read back in small column batches (``_READ_BACK``) and
no persisted changes.
"""

from __future__ import annotations

import pytest

import os
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent
from cdcwire.spark.tables.table_state import TablesState

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
EVENTS, KEYS, WIDTH = 16_000, 4_000, 24_000

RUN = textwrap.dedent(
    """\
    import sys
    from cdcwire import spark as cs
    from cdcwire.cli.run_command import spark_failure

    spark = cs.spark_session("local[2]", log_level="ERROR", **{"spark.driver.memory": "512m"})
    try:
        print(cs.materialize(spark, sys.argv[1], sys.argv[2]).events_read)
    except Exception as exc:
        sys.exit(spark_failure(exc, "materialize"))
    """
)


def _image(key: int, n: int) -> tuple[Column, ...]:
    text = f"{key}:{n}:".ljust(WIDTH, chr(ord("a") + n % 26))
    return (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
            Column("body", ColumnType.VARCHAR, ColumnFlag.NULLABLE, text, "varchar(32000)"))


def _stream() -> tuple[list, dict[int, str]]:
    """Inserts of KEYS rows, then updates of them round and round; the table a replay leaves."""
    events, table, ts = [], {}, 100 << 18
    for n in range(EVENTS):
        ts += 1 << 18
        key = n % KEYS
        image = _image(key, n)
        events.append(RowChangedEvent(ts, "shop", "docs", image, _image(key, n - KEYS) if key in table else None))
        table[key] = image[1].value
        if n % 500 == 499:
            events.append(ResolvedEvent(ts))
    return [*events, ResolvedEvent(ts + 1)], table


def _where_it_failed(stderr: str) -> str:
    """The run's one-line failure and the JVM frames under the first out-of-memory error, if any."""
    lines = stderr.splitlines()
    at = next((i for i, line in enumerate(lines) if "OutOfMemory" in line or "OutOfDirectMemory" in line), len(lines) - 1)
    return "\n".join([lines[-1] if lines else "", *lines[at:at + 12]])


@pytest.mark.long_because("more events than fit in a deliberately small driver, in a JVM of its own")
def test_a_run_over_more_events_than_fit_in_memory_finishes_equal_to_a_replay(tmp_path) -> None:
    events, replayed = _stream()
    uri = f"file://{tmp_path}/src/docs?protocol=canal-json&enable-tidb-extension=true&partition-num=2&partition=index-value"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    out = tmp_path / "tables"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run([sys.executable, "-c", RUN, uri, str(out)], capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, _where_it_failed(done.stderr)
    copies = sum(2 if isinstance(e, ResolvedEvent) else 1 for e in events)  # resolved: one per partition
    assert int(done.stdout.split()[-1]) == copies
    rows = pq.read_table(out / TablesState.load(str(out), "parquet").snapshots["shop.docs"]).to_pylist()
    assert {r["id"]: r["body"] for r in rows} == replayed
