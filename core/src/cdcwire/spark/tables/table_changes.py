"""From change events to the change each row key needs: the apply step of ``materialize``.

A change stream read back is delivered at least once, split across partitions and may run
ahead of what is complete. This module decides, in Spark columns:

- the release point: the resolved ts every partition has reached (the minimum over the
  partitions of each one's latest resolved ts). Events at or below it are complete and
  are applied; events above it wait for a later run (they are kept as pending). A stream
  without resolved events (avro; canal-json without the extension) has no release point:
  everything read is applied, and the summary says so;
- per table and handle key, the last change: replayed copies of an event are the same
  change and collapse (counted), each change at its first place in the log; then the
  changes are ordered by commit ts. An update that changes the key is a delete of the old
  key and an upsert of the new one (TiCDC sends it so, as a delete event and an insert
  event, unless ``output-raw-change-event``), so the row moves. TiDB changes a key at most
  once per commit ts, but a stream may hold several changes of one key at one ts:

  - a delete and an insert (or the halves of key-changing updates) are rows swapping keys
    in one transaction: the delete applies first, whatever the log order;
  - other changes without a key-changing update among them apply in log order (partition,
    offset, place in the message), as a replay in order would: an update then a delete
    of one key leaves no row;
  - any other mix with a key-changing update is refused naming the table, key and ts
    (:func:`conflicting_changes`), never guessed (a guess could keep a row the stream deleted);

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
from pyspark.sql.window import WindowSpec
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
    return release_point_of(rows, known, has_resolved)


def release_point_of(rows, known: dict[str, int], has_resolved: bool) -> ReleasePoint:
    """The release point from per-partition rows (``place``, the latest ``resolved`` ts there or
    None) of the partitions that hold events: :func:`release_point` without its job, for a run
    that gathers these in an aggregate of its own."""
    if not has_resolved:
        return ReleasePoint(None, dict(known))
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


#: What a change carries past :func:`row_changes`: the images leave as ``_image`` only (a change
#: with both images of its event would shuffle them twice for nothing).
_CHANGE_COLUMNS = ("schema", "table", "kind", "commit_ts", "partition", "offset", "_seq")


def row_changes(events: DataFrame) -> DataFrame:
    """Each row event as the changes it makes, one row per (key, change): ``_op`` "D" (delete
    the key) or "U" (upsert the key with ``_image``), ``_rank`` 0 for deletes and 1 for
    upserts (deletes first where a swap of keys asks for it), ``_moved`` true for the two
    changes of a key-changing update, ``_half`` true for a change that may be half of a key
    move (a delete, an insert, a key-changing update's), with ``_key``, the event's place and ts."""
    rows = events.where(F.col("kind").isin(*ROW_KINDS))
    old_key, new_key = key_json(F.col("pre_columns")), key_json(F.col("columns"))
    moved = (F.col("kind") == "update") & (old_key != new_key)
    deletes = rows.where((F.col("kind") == "delete") | moved).select(
        *_CHANGE_COLUMNS, F.lit("D").alias("_op"), F.lit(0).alias("_rank"), old_key.alias("_key"),
        F.col("pre_columns").alias("_image"), F.coalesce(moved, F.lit(False)).alias("_moved"),
        F.lit(True).alias("_half"),
    )
    upserts = rows.where(F.col("kind") != "delete").select(
        *_CHANGE_COLUMNS, F.lit("U").alias("_op"), F.lit(1).alias("_rank"), new_key.alias("_key"),
        F.col("columns").alias("_image"), F.coalesce(moved, F.lit(False)).alias("_moved"),
        ((F.col("kind") == "insert") | F.coalesce(moved, F.lit(False))).alias("_half"),
    )
    return deletes.unionByName(upserts)


_KEY_AT_TS = ("schema", "table", "_key", "commit_ts")


def distinct_changes(changes: DataFrame) -> DataFrame:
    """The changes with replayed copies collapsed, each kept at its first place in the log (a
    replayed range must not move an update after the delete that followed it), and ``_order``:
    how changes of one key at one commit ts are ordered (see the module doc), ``_conflict``
    true where they cannot be ordered, ``_copies`` how many copies of the change there were
    (1 + its replays: :func:`duplicate_count` without a job of its own)."""
    same = Window.partitionBy(*_KEY_AT_TS, "_op", "_image_json").orderBy(
        F.col("partition").asc_nulls_first(), F.col("offset").asc_nulls_first(), F.col("_seq")
    )
    first = (
        changes.withColumn("_image_json", F.to_json("_image"))
        .withColumn("_n", F.row_number().over(same))
        .withColumn("_copies", F.count(F.lit(1)).over(same.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)))
        .where(F.col("_n") == 1)
        .drop("_n", "_image_json")
    )
    at_ts = Window.partitionBy(*_KEY_AT_TS)
    n = F.count(F.lit(1)).over(at_ts)
    moved = F.sum(F.col("_moved").cast("int")).over(at_ts)
    halves = F.sum(F.col("_half").cast("int")).over(at_ts)
    deletes = F.sum((F.col("_op") == "D").cast("int")).over(at_ts)
    swap = (n == 2) & (halves == 2) & (deletes == 1)
    return first.withColumn("_order", F.when(swap, F.col("_rank")).otherwise(F.lit(0))).withColumn(
        "_conflict", (n > 1) & (moved > 0) & ~swap
    )


def conflicting_changes(distinct: DataFrame) -> DataFrame:
    """(schema, table, _key, commit_ts) where one key has several changes at one commit ts and a
    key-changing update among them, other than two rows swapping keys: no order is sure to be right."""
    return distinct.where("_conflict").select(*_KEY_AT_TS).distinct()


def _last_first(order_of: WindowSpec) -> WindowSpec:
    return order_of.orderBy(
        F.col("commit_ts").desc(), F.col("_order").desc(), F.col("partition").desc_nulls_last(),
        F.col("offset").desc_nulls_last(), F.col("_seq").desc(),
    )


def last_change_per_key(distinct: DataFrame) -> DataFrame:
    """Per (schema, table, key), the change that decides the row (of :func:`distinct_changes`):
    the last by commit ts, then ``_order`` (delete first in a swap of keys), then log position.
    ``_seq`` orders events within one message."""
    order = _last_first(Window.partitionBy("schema", "table", "_key"))
    return distinct.withColumn("_n", F.row_number().over(order)).where(F.col("_n") == 1).drop("_n")


def decided_changes(changes: DataFrame) -> DataFrame:
    """:func:`distinct_changes` with ``_last``: true on the change that decides its key's row
    (:func:`last_change_per_key`), in ONE shuffle. Every step groups by a superset of (schema,
    table, key), so once the changes are clustered by those three, Spark sorts within each
    partition and never moves a change again: a run's nested images cross the network once.
    The output comes sorted by table within each partition, so a reader of one table skips the
    others' row groups."""
    clustered = changes.repartition("schema", "table", "_key")
    order = _last_first(Window.partitionBy("schema", "table", "_key"))
    return distinct_changes(clustered).withColumn("_last", F.row_number().over(order) == 1)


def events_applied(distinct: DataFrame) -> DataFrame:
    """Per table and kind (insert, update, delete), how many distinct events were applied
    (replays collapsed): each event has one upsert, or one delete, among its changes."""
    one_per_event = (F.col("kind") != "update") | (F.col("_op") == "U")
    return distinct.where(one_per_event).groupBy("schema", "table", "kind").count()


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
