"""Applying a table's changes to a Delta table with MERGE, through delta-rs (``deltalake``).

delta-rs runs the MERGE in the driver. The executors write the typed changes to a staging
Parquet directory under OUT first; the driver then streams it into the MERGE in bounded
chunks (``MERGE_CHUNK_ROWS`` each, one commit a chunk), so neither the driver JVM nor the
Python process ever holds more than one chunk, however many rows changed. The last chunk's commit carries
the commit ts the table is applied up to (``cdcwire.applied_ts`` in its commit metadata).
New columns are merged into the schema; a column dropped upstream stays, nullable (delta-rs
cannot write column mapping, which a drop needs).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Iterator, Optional

import pyarrow as pa

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


def _chunks(changes: DataFrame, staging: Path) -> Iterator[tuple[pa.Table, bool]]:
    """The typed changes, written by the executors to ``staging`` and read back in chunks of
    at most ``MERGE_CHUNK_ROWS`` rows, each with whether it is the last; one empty chunk when
    there are no changes (its commit still records the applied ts). Columns are typed as
    Spark's own ``toArrow`` types them (timestamps in microseconds, UTC)."""
    import pyarrow.dataset as ds
    from pyspark.sql.pandas.types import to_arrow_schema

    changes.write.mode("overwrite").parquet(str(staging))
    schema = to_arrow_schema(changes.schema, error_on_duplicated_field_names_in_struct=True, timezone="UTC")
    parquet = ds.ParquetFileFormat(read_options={"coerce_int96_timestamp_unit": "us"})
    files = sorted(str(f) for f in staging.glob("*.parquet"))
    dataset = ds.dataset(files, format=parquet) if files else None
    total = dataset.count_rows() if dataset is not None else 0
    if not total:
        yield schema.empty_table(), True
        return
    done, pending = 0, []
    for batch in dataset.to_batches(batch_size=MERGE_CHUNK_ROWS):
        pending.append(batch)
        rows = sum(b.num_rows for b in pending)
        if rows >= MERGE_CHUNK_ROWS or done + rows == total:
            done += rows
            yield pa.Table.from_batches(pending).cast(schema), done == total
            pending = []


def apply_to_delta(
    out: str, table: str, changes: DataFrame, keys: list[str], applied: int, staging: str
) -> dict[str, int]:
    """MERGE the typed changes (``_op`` "U" upsert, "D" delete) into the table; counts of rows
    inserted, updated and deleted. ``staging``: a directory under OUT the changes pass through
    (removed here)."""
    deltalake = _deltalake()
    path = str(Path(out) / table)
    counts = {"inserted": 0, "updated": 0, "deleted": 0}
    columns = [c for c in changes.columns if c != "_op"]
    try:
        _merge_chunks(deltalake, path, _chunks(changes, Path(out) / staging), keys, columns, applied, counts)
    finally:
        shutil.rmtree(Path(out) / staging, ignore_errors=True)
    return counts


def _merge_chunks(deltalake, path: str, chunks, keys: list[str], columns: list[str], applied: int, counts) -> None:
    for chunk, last in chunks:
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
