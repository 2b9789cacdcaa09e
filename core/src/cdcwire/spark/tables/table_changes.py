"""From change events to the change each row key needs: the apply step of ``materialize``.

A change stream read back is delivered at least once, split across partitions and may run
ahead of what is complete. This module decides, in Spark columns:

- the release point: the resolved ts every partition has reached (the minimum over the
  partitions of each one's latest resolved ts). Events at or below it are complete and
  are applied; events above it wait for a later run (they are kept as pending). A stream
  without resolved events (avro; canal-json without the extension) has no release point:
  everything read is applied, and the summary says so;
- per table and handle key, the last change, ordered by commit ts, then deletes before
  upserts at one commit ts (two rows that swap keys in one transaction come out right),
  then log position (partition, offset, place in the message). An update that changes
  the key is a delete of the old key and an upsert of the new one, so the row moves.
  Replayed copies of an event are the same change: they collapse, and are counted;
- what cannot be applied: rows that arrived with their handle key only (counted, never
  applied as rows), tables without a handle key (refused: a full-row apply could not tell
  a replay from a real duplicate row).

The key of a row is the JSON of its handle-key columns' names and values, sorted by name,
so the same key from any image compares equal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ...type_codes import ColumnFlag

_HANDLE_KEY = int(ColumnFlag.HANDLE_KEY)
ROW_KINDS = ("insert", "update", "delete")


@dataclass(frozen=True, slots=True)
class ReleasePoint:
    """Where a run may apply up to. ``ts`` None: no resolved events at all (apply everything);
    ``resolved`` the latest resolved ts of each ``topic/partition`` seen so far."""

    ts: Optional[int]
    resolved: dict[str, int] = field(default_factory=dict)
    waiting: tuple[str, ...] = ()  # partitions with events but no resolved ts yet: they hold everything back


def release_point(events: DataFrame, known: dict[str, int], has_resolved: bool) -> ReleasePoint:
    """The release point of ``events`` (a frame read back, with topic and partition) given the
    latest resolved ts ``known`` per partition from earlier runs. One small Spark job."""
    if not has_resolved:
        return ReleasePoint(None, dict(known))
    place = F.concat_ws("/", F.col("topic"), F.col("partition").cast("string"))
    rows = (
        events.where(F.col("kind").isNotNull())
        .groupBy(place.alias("place"))
        .agg(F.max(F.when(F.col("kind") == "resolved", F.col("commit_ts"))).alias("resolved"))
        .collect()
    )
    resolved = dict(known)
    waiting = []
    for row in rows:
        if row["resolved"] is not None:
            resolved[row["place"]] = max(int(row["resolved"]), resolved.get(row["place"], 0))
        elif row["place"] not in resolved:
            waiting.append(row["place"])
    if waiting:
        return ReleasePoint(0, resolved, tuple(sorted(waiting)))
    return ReleasePoint(min(resolved.values()) if resolved else 0, resolved)


def key_json(image: F.Column) -> F.Column:
    """The row key of an image: its handle-key columns' (name, value), sorted by name, as JSON;
    null when the image has no handle-key column."""
    keys = F.filter(image, lambda c: (c["flags"].bitwiseAND(F.lit(_HANDLE_KEY))) != 0)
    pairs = F.array_sort(F.transform(keys, lambda c: F.struct(c["name"].alias("n"), c["value"].alias("v"))))
    return F.when(F.size(keys) > 0, F.to_json(pairs))


def row_changes(events: DataFrame) -> DataFrame:
    """Each row event as the changes it makes, one row per (key, change): ``_op`` "D" (delete
    the key) or "U" (upsert the key with ``_image``), ``_rank`` 0 for deletes and 1 for
    upserts (deletes first at one commit ts), with ``_key``, the event's place and ts."""
    rows = events.where(F.col("kind").isin(*ROW_KINDS))
    old_key, new_key = key_json(F.col("pre_columns")), key_json(F.col("columns"))
    moved = (F.col("kind") == "update") & (old_key != new_key)
    deletes = rows.where((F.col("kind") == "delete") | moved).select(
        "*", F.lit("D").alias("_op"), F.lit(0).alias("_rank"), old_key.alias("_key"),
        F.col("pre_columns").alias("_image"),
    )
    upserts = rows.where(F.col("kind") != "delete").select(
        "*", F.lit("U").alias("_op"), F.lit(1).alias("_rank"), new_key.alias("_key"),
        F.col("columns").alias("_image"),
    )
    return deletes.unionByName(upserts)


def last_change_per_key(changes: DataFrame) -> DataFrame:
    """Per (schema, table, key), the change that decides the row: the last by commit ts, then
    upserts after deletes, then log position. ``_seq`` orders events within one message."""
    order = Window.partitionBy("schema", "table", "_key").orderBy(
        F.col("commit_ts").desc(), F.col("_rank").desc(), F.col("partition").desc_nulls_last(),
        F.col("offset").desc_nulls_last(), F.col("_seq").desc(),
    )
    return changes.withColumn("_n", F.row_number().over(order)).where(F.col("_n") == 1).drop("_n")


def duplicate_count(changes: DataFrame) -> DataFrame:
    """Per table, how many changes were copies of another (a replayed range, a producer retry):
    the same op on the same key at the same commit ts with the same image."""
    same = ["schema", "table", "_key", "commit_ts", "_op", F.to_json("_image").alias("_image_json")]
    return (
        changes.select(*same)
        .groupBy("schema", "table", "_key", "commit_ts", "_op", "_image_json")
        .count()
        .groupBy("schema", "table")
        .agg(F.sum(F.col("count") - 1).alias("duplicates"))
    )
