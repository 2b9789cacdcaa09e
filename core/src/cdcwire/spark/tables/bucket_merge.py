"""One bucket's old rows and its changes merged with pyarrow, inside a task.

The same merge as :func:`~cdcwire.spark.tables.table_buckets.rewrite_buckets`'s Spark join
(old rows full-outer-joined with the changes on the key), for the rows of one bucket at a
time: the one plan over all tables (:mod:`.tables_job`) runs it in its tasks, one bucket
per call, so no Spark job is started per table. Pure pyarrow: no Spark, no session.

A row no change names stays; an upsert replaces or adds its key's row; a delete drops it.
The columns in order: the old ones, then those the changes add; a column the upsert no longer
has is null in its row; a column whose type the changes widen (``int`` to ``bigint``) is
widened in the old rows. The counts are the net effect on the bucket: rows inserted (new
keys), updated (keys already there) and deleted.
"""

from __future__ import annotations

from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

UPSERT, DELETE = "U", "D"


def merge_bucket(old: Optional[pa.Table], changes: pa.Table, ops: pa.Array, keys: list[str]) -> tuple[pa.Table, dict[str, int]]:
    """(the bucket's new rows, counts): ``changes`` holds one change per key, typed, with
    ``ops`` ("U" or "D") beside it; ``old``: the bucket's rows before (None: a new bucket)."""
    upsert = pc.equal(ops, UPSERT)
    upserts = changes.filter(upsert)
    if old is None or old.num_columns == 0:
        return upserts, {"inserted": upserts.num_rows, "updated": 0, "deleted": 0}
    types = {f.name: _common(old.schema.field(f.name).type, f.type) if f.name in old.column_names else f.type
             for f in changes.schema}
    for f in old.schema:
        types.setdefault(f.name, f.type)
    old, changes = _cast(old, types), _cast(changes, types)
    named = changes.select(keys).append_column("_op", ops)
    matched = old.select(keys).join(named, keys, join_type="inner").column("_op")
    updated = pc.sum(pc.equal(matched, UPSERT)).as_py() or 0
    deleted = pc.sum(pc.equal(matched, DELETE)).as_py() or 0
    kept = old.join(named.select(keys), keys, join_type="left anti") if named.num_rows else old
    columns = list(old.column_names) + [c for c in changes.column_names if c not in old.column_names]
    schema = pa.schema([pa.field(c, types[c]) for c in columns])
    rows = pa.concat_tables([_aligned(kept, schema), _aligned(changes.filter(upsert), schema)])
    return rows, {"inserted": upserts.num_rows - updated, "updated": updated, "deleted": deleted}


def read_bucket(paths: list[str]) -> Optional[pa.Table]:
    """A bucket's old rows from its files (None when it has none); files of older runs may lack
    later columns or hold narrower types: unified as the bucket's rows."""
    import pyarrow.parquet as pq

    if not paths:
        return None
    tables = [pq.read_table(p) for p in paths]
    return tables[0] if len(tables) == 1 else pa.concat_tables(tables, promote_options="permissive")


def _common(a: pa.DataType, b: pa.DataType) -> pa.DataType:
    """The type holding both (a widening upstream); the changes' type where none does."""
    if a.equals(b):
        return a
    try:
        return pa.unify_schemas([pa.schema([("c", a)]), pa.schema([("c", b)])], promote_options="permissive").field("c").type
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return b


def _cast(rows: pa.Table, types: dict[str, pa.DataType]) -> pa.Table:
    target = pa.schema([pa.field(f.name, types[f.name]) for f in rows.schema])
    return rows if target.equals(rows.schema) else rows.cast(target)


def _aligned(rows: pa.Table, schema: pa.Schema) -> pa.Table:
    """``rows`` with ``schema``'s columns, in its order: a column it lacks is null."""
    arrays = [rows.column(f.name) if f.name in rows.column_names else pa.nulls(rows.num_rows, f.type) for f in schema]
    return pa.Table.from_arrays(arrays, schema=schema)
