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
from pyspark.sql import functions as F

from ...values.type_codes import ColumnFlag

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
    move (a delete, an insert, a key-changing update's), with ``_key``, the event's place and ts.
    Each image's key is computed once (a column of its own, not an expression Spark would
    inline into every use: the key's JSON is the costliest expression of the step)."""
    keyed = events.where(F.col("kind").isin(*ROW_KINDS)).select(
        *_CHANGE_COLUMNS, "columns", "pre_columns",
        key_json(F.col("pre_columns")).alias("_old_key"), key_json(F.col("columns")).alias("_new_key"),
    )
    kind = F.col("kind")
    moved = F.coalesce((kind == "update") & (F.col("_old_key") != F.col("_new_key")), F.lit(False))

    def change(op: str, rank: int, key: str, image: str, half) -> F.Column:
        return F.struct(F.lit(op).alias("_op"), F.lit(rank).alias("_rank"), F.col(key).alias("_key"),
                        F.col(image).alias("_image"), moved.alias("_moved"), half.alias("_half"))

    both = F.array(
        F.when((kind == "delete") | moved, change("D", 0, "_old_key", "pre_columns", F.lit(True))),
        F.when(kind != "delete", change("U", 1, "_new_key", "columns", (kind == "insert") | moved)),
    )
    # one scan, one generator: a union of a delete and an upsert branch read the events twice
    return keyed.select(*_CHANGE_COLUMNS, F.inline(F.filter(both, lambda c: c.isNotNull())))


_KEY_AT_TS = ("schema", "table", "_key", "commit_ts")
_KEY = ("schema", "table", "_key")


def decided_changes(changes: DataFrame) -> DataFrame:
    """The changes of :func:`row_changes` with replayed copies collapsed, in ONE shuffle and ONE
    sort, each change kept at its first place in the log (a replayed range must not move an
    update after the delete that followed it), with:

    - ``_copies``: how many copies of the change there were (1 + its replays);
    - ``_order``: how changes of one key at one commit ts are ordered (see the module doc);
    - ``_conflict``: true where they cannot be ordered;
    - ``_last``: true on the change that decides its key's row: the last by commit ts, then
      ``_order`` (delete first in a swap of keys), then log position (``_seq`` orders events
      within one message).

    Copies are the same op on the same key at the same ts with the same image. Images are
    compared by two independent hashes of the whole image (64 + 32 bits: Spark's xxhash64 and
    murmur3), not by their JSON: building the JSON of every image of a run was the step's
    largest cost. Two different images of one key, op and ts would have to collide in 96 bits
    to be taken for copies.

    Every window groups by a prefix of one sort order, (schema, table, key, ts, op, image
    hashes, place), and the deciding change is found by a maximum over the key rather than a
    descending sort, so Spark clusters the changes once (by schema, table, key), sorts each
    partition once and never moves a change again: a run's nested images cross the network once.
    """
    clustered = changes.repartition(*_KEY).withColumn("_h64", F.xxhash64("_image")).withColumn(
        "_h32", F.hash("_image"))
    same = Window.partitionBy(*_KEY_AT_TS, "_op", "_h64", "_h32").orderBy(
        F.col("partition").asc_nulls_first(), F.col("offset").asc_nulls_first(), F.col("_seq")
    )
    first = (
        clustered.withColumn("_n", F.row_number().over(same))
        .withColumn("_copies", F.count(F.lit(1)).over(same.rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)))
        .where(F.col("_n") == 1)
        .drop("_n", "_h64", "_h32")
    )
    at_ts = Window.partitionBy(*_KEY_AT_TS)
    n = F.count(F.lit(1)).over(at_ts)
    moved = F.sum(F.col("_moved").cast("int")).over(at_ts)
    halves = F.sum(F.col("_half").cast("int")).over(at_ts)
    deletes = F.sum((F.col("_op") == "D").cast("int")).over(at_ts)
    swap = (n == 2) & (halves == 2) & (deletes == 1)
    ordered = first.withColumn("_order", F.when(swap, F.col("_rank")).otherwise(F.lit(0))).withColumn(
        "_conflict", (n > 1) & (moved > 0) & ~swap
    )
    # the deciding change: the greatest (ts, _order, partition, offset, _seq) of its key; a null
    # partition or offset is the least, as a descending sort with nulls last puts it
    place = F.struct("commit_ts", "_order", "partition", "offset", "_seq")
    return ordered.withColumn("_last", place.eqNullSafe(F.max(place).over(Window.partitionBy(*_KEY))))


def conflicting_changes(distinct: DataFrame) -> DataFrame:
    """(schema, table, _key, commit_ts) where one key has several changes at one commit ts and a
    key-changing update among them, other than two rows swapping keys: no order is sure to be right."""
    return distinct.where("_conflict").select(*_KEY_AT_TS).distinct()
