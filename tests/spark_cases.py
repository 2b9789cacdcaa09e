"""Shared pieces of the Spark pipeline tests: workloads, sink URIs per protocol, order checks."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Optional

import cdcwire
from cdcwire.workload import Workload, write_workload

#: Every installed protocol, with the parameters the pipeline tests use.
PROTOCOLS = cdcwire.protocols()


def protocol_query(protocol: str, registry_url: Optional[str] = None, prefix: str = "t") -> str:
    """The query of a sink URI for ``protocol``: extensions on where they carry more, avro with a registry."""
    if protocol == "avro":
        assert registry_url, "avro needs a schema registry"
        return f"protocol=avro&enable-tidb-extension=true&schema-registry={registry_url}&topic-rule={prefix}_{{schema}}_{{table}}"
    if protocol == "canal-json":
        return "protocol=canal-json&enable-tidb-extension=true"
    return f"protocol={protocol}"


def workload_file(directory: Path, events: int = 1500, seed: int = 7, **kw) -> str:
    path = directory / f"workload-{events}-{seed}.jsonl"
    if not path.exists():
        write_workload(Workload(events, seed=seed, ddl_every=60, **kw), str(path))
    return str(path)


def check_order(rows: list) -> None:
    """The ordering promises over collected read-back rows (in read order): every row of one key in one
    partition; per partition, commit ts non-decreasing per table; a resolved ts after the rows it covers."""
    partitions_of_key: dict[tuple, set] = defaultdict(set)
    last_ts: dict[tuple, int] = {}
    resolved_at: dict[tuple, int] = {}
    for r in rows:
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
