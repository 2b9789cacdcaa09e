"""Applying a table's changes to a Delta table with MERGE, through delta-rs (``deltalake``).

delta-rs runs the MERGE in the driver, so the changes are collected there in bounded
chunks (``MERGE_CHUNK_ROWS`` each, one commit a chunk). The last chunk's commit carries
the commit ts the table is applied up to (``cdcwire.applied_ts`` in its commit metadata).
New columns are merged into the schema; a column dropped upstream stays, nullable (delta-rs
cannot write column mapping, which a drop needs).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from pyspark.sql import DataFrame

from ...extras import extra_required

MERGE_CHUNK_ROWS = 200_000
APPLIED_TS = "cdcwire.applied_ts"


def _deltalake():
    with extra_required("delta", "materialize --format delta"):
        import deltalake
    return deltalake


def applied_ts(out: str, table: str) -> Optional[int]:
    """The commit ts a Delta table was applied up to, from its latest commit that says."""
    path = Path(out) / table
    if not (path / "_delta_log").exists():
        return None
    deltalake = _deltalake()
    for commit in deltalake.DeltaTable(str(path)).history(20):
        if APPLIED_TS in commit:
            return int(json.loads(commit[APPLIED_TS]) if isinstance(commit[APPLIED_TS], str) else commit[APPLIED_TS])
    return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def apply_to_delta(out: str, table: str, changes: DataFrame, keys: list[str], applied: int) -> dict[str, int]:
    """MERGE the typed changes (``_op`` "U" upsert, "D" delete) into the table; counts of rows
    inserted, updated and deleted."""
    deltalake = _deltalake()
    path = str(Path(out) / table)
    counts = {"inserted": 0, "updated": 0, "deleted": 0}
    arrow = changes.toArrow()
    columns = [c for c in arrow.column_names if c != "_op"]
    chunks = [arrow.slice(i, MERGE_CHUNK_ROWS) for i in range(0, max(arrow.num_rows, 1), MERGE_CHUNK_ROWS)]
    for n, chunk in enumerate(chunks):
        last = n == len(chunks) - 1
        properties = deltalake.CommitProperties(custom_metadata={APPLIED_TS: json.dumps(applied)} if last else None)
        if not (Path(path) / "_delta_log").exists():
            rows = chunk.filter(chunk.column("_op").to_numpy(zero_copy_only=False) == "U").drop_columns(["_op"])
            deltalake.write_deltalake(path, rows, commit_properties=properties)
            counts["inserted"] += rows.num_rows
            continue
        on = " AND ".join(f"target.{_quoted(k)} = source.{_quoted(k)}" for k in keys)
        values = {_quoted(c): f"source.{_quoted(c)}" for c in columns}
        metrics = (
            deltalake.DeltaTable(path)
            .merge(chunk, on, source_alias="source", target_alias="target", merge_schema=True,
                   commit_properties=properties)
            .when_matched_delete(predicate="source._op = 'D'")
            .when_matched_update(updates=values, predicate="source._op = 'U'")
            .when_not_matched_insert(updates=values, predicate="source._op = 'U'")
            .execute()
        )
        counts["inserted"] += metrics.get("num_target_rows_inserted", 0)
        counts["updated"] += metrics.get("num_target_rows_updated", 0)
        counts["deleted"] += metrics.get("num_target_rows_deleted", 0)
    return counts
