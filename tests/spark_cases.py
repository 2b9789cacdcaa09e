"""Shared pieces of the Spark pipeline tests: workloads, sink URIs per protocol, order checks,
and a routing task run by hand (as Spark runs it, attempts and all)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Iterable, Optional

import pyarrow as pa

import cdcwire
from cdcwire.spark.rows.arrow_events import events_to_permissive_batch
from cdcwire.workload import Workload, write_workload

#: Every installed protocol, with the parameters the pipeline tests use.
PROTOCOLS = cdcwire.protocols()


def protocol_query(protocol: str, registry_url: Optional[str] = None, prefix: str = "t") -> str:
    """The query of a sink URI for ``protocol``: extensions on where they carry more, avro with a registry."""
    if protocol == "avro":
        assert registry_url, "avro needs a schema registry"
        return f"protocol=avro&enable-tidb-extension=true&schema-registry={registry_url}&topic-rule={prefix}_{{schema}}_{{table}}"
    if protocol in ("canal-json", "debezium"):  # debezium rows read back only with the extension
        return f"protocol={protocol}&enable-tidb-extension=true"
    return f"protocol={protocol}"


def workload_file(directory: Path, events: int = 1500, seed: int = 7, **kw) -> str:
    path = directory / f"workload-{events}-{seed}.jsonl"
    if not path.exists():
        write_workload(Workload(events, seed=seed, ddl_every=60, **kw), str(path))
    return str(path)


def check_order(rows: list) -> None:
    """The ordering promises over read-back rows: every row of one key in one partition; per
    partition, commit ts non-decreasing per table; a resolved ts after the rows it covers.

    Rows are put in log order first (topic, partition, offset): ``collect()`` promises no order
    across partitions. Events of one message share an offset and keep their collected order,
    which is the order one read task decoded them in."""
    partitions_of_key: dict[tuple, set] = defaultdict(set)
    last_ts: dict[tuple, int] = {}
    resolved_at: dict[tuple, int] = {}
    for r in sorted(rows, key=lambda r: (r["topic"], r["partition"], r["offset"])):
        place = (r["topic"], r["partition"])
        ts = int(r["commit_ts"])
        if r["kind"] == "resolved":
            resolved_at[place] = max(resolved_at.get(place, 0), ts)
            continue
        if r["kind"] in ("insert", "update", "delete"):
            image = r["columns"] if r["columns"] is not None else r["pre_columns"]
            key = tuple(json.dumps(c["value"].asDict(), default=str) for c in image if c["flags"] & 2)
            partitions_of_key[(r["topic"], r["schema"], r["table"], key)].add(r["partition"])
            if ts == 0:  # the protocol does not carry this event's commit ts (an avro tombstone)
                continue
            table = (place, r["schema"], r["table"])
            assert ts >= last_ts.get(table, 0), f"{place}: commit ts {ts} after {last_ts[table]} in {r['table']}"
            last_ts[table] = ts
        assert ts > resolved_at.get(place, -1), f"{place}: event at ts {ts} after resolved {resolved_at[place]}"
    spread = {k: v for k, v in partitions_of_key.items() if len(v) > 1}
    assert not spread, f"keys in more than one partition: {list(spread.items())[:3]}"


def first_copies(rows: list) -> list:
    """Read-back rows without redelivered copies: the first copy of each event in each partition,
    in log order. At-least-once delivery may repeat a message after a retry; the ordering promises
    hold for first copies."""
    seen: set[tuple] = set()
    firsts = []
    for r in sorted(rows, key=lambda r: (r["topic"], r["partition"], r["offset"])):
        event = r.asDict(recursive=True)
        del event["offset"]
        key = json.dumps(event, sort_keys=True, default=str)
        if key not in seen:
            seen.add(key)
            firsts.append(r)
    return firsts


# --- one routing task, run as Spark would run it, without Spark ----------------------------


class TaskAttempt:
    """What the routing stage asks of pyspark's TaskContext: the partition and the attempt."""

    def __init__(self, partition: int, attempt: int) -> None:
        self.partition, self.attempt = partition, attempt

    def partitionId(self) -> int:  # noqa: N802 - pyspark's name
        return self.partition

    def taskAttemptId(self) -> int:  # noqa: N802 - pyspark's name
        return self.attempt


def routing_input(events: list, malformed: Optional[dict[int, dict]] = None) -> pa.RecordBatch:
    """A batch as the routing stage gets it: events, ``_malformed`` (``malformed[i]`` replaces
    event i with a malformed record) and the input row sequence ``_cdc_seq``."""
    malformed = malformed or {}
    rows = [None if i in malformed else e for i, e in enumerate(events)]
    batch = events_to_permissive_batch(rows, [malformed.get(i) for i in range(len(events))])
    return batch.append_column("_cdc_seq", pa.array(range(len(events)), pa.int64()))


def run_routing_task(plan, batches: Iterable[pa.RecordBatch], attempt: TaskAttempt, monkeypatch) -> list[pa.RecordBatch]:
    """Every batch one attempt of a routing task yields (its shuffle output)."""
    from pyspark import TaskContext

    from cdcwire.spark.writer.routing import dispatch_stage

    monkeypatch.setattr(TaskContext, "get", classmethod(lambda cls: attempt))
    return list(dispatch_stage(plan)(iter(batches)))


def shuffled(batches: list[pa.RecordBatch]) -> list[pa.RecordBatch]:
    """Routing output as an encoding task receives it: grouped by topic-partition, in order."""
    order = [(name, "ascending") for name in ("_cdc_topic", "_cdc_partition", "_cdc_seq", "_cdc_sub")]
    return pa.Table.from_batches(batches).sort_by(order).to_batches()
