"""``cdcwire.spark.tables.materialize``: change streams applied into tables, Parquet or Delta.

    summary = cs.materialize(spark, "kafka://.../orders?protocol=canal-json&enable-tidb-extension=true",
                             "/data/tables", format="delta")
    summary = cs.materialize(spark, "s3://bucket/prefix?protocol=csv&include-commit-ts=true", "/data/tables")

Each run reads the source from where the last run stopped, keeps the events above the
release point for later (see :mod:`cdcwire.spark.tables.table_changes`), applies the rest to one
table per upstream table (typed columns, see :mod:`cdcwire.spark.tables.changelog`) and commits
its progress with the tables (:mod:`cdcwire.spark.tables.table_state`). A re-run continues
exactly from there; a failed run leaves the last commit, and running again applies the
same events to the same result. ``materialize_stream`` does the same for every
micro-batch of a streaming frame. A TiCDC storage-sink layout (``s3://``, ``local://``) is read
from where the last run stopped as well (:mod:`cdcwire.spark.reader.layout_since`); its release
point is its checkpoint, which the read stops at, so nothing waits.

Stages of one run::

    read (offsets from the state) ─┬─ release point (resolved ts per partition)
    pending events of the last run ┘   ├─ above it: pending, for the next run
                                       └─ at or below it, above each table's applied ts:
                                          row changes → last change per key → typed rows
                                          → rewritten buckets (Parquet snapshot / Delta commit) → state commit
"""

from __future__ import annotations

import json
import shutil
import time
from contextlib import nullcontext
from decimal import Decimal
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DecimalType

from ...contract.codec import Broadcast
from ...transports.data_loss import DataLossError
from ...foundation.errors import CdcwireError
from ...foundation.redact import redact_url
from ...sinks.sink import SinkLike, open_sink
from ...transports.storage.layout import read_checkpoint
from ...transports.storage.location import StorageLocation, is_storage_uri, shown_uri
from ...transports.storage.position import LayoutPosition
from .changelog import columns_from_signatures, image_signature
from .commit_journal import clear_commits, note_commits, tables_to_check
from .delta_tables import applied_ts, change_delta_files, committed_after, empty_delta
from . import iceberg_tables
from .iceberg_renames import rename_iceberg_tables
from .parquet_tables import changed_snapshot, empty_snapshot, linked_snapshot, remove_snapshot, rows_in
from ..reader.layout_since import read_layout_since
from ..reader.message_ranges import plan_message_ranges
from ..reader.pinned_read import read_ranges, table_filter_option
from ..runtime.run_steps import step
from ..runtime.session_settings import session_settings
from .table_changes import (
    ROW_KINDS, ReleasePoint, conflicting_changes, decided_changes, release_point_of, row_changes,
)
from .table_buckets import write_settings
from .table_renames import RENAME_TYPES, final_name, journal, make_moves, relabelled, renamed_entries, renamed_tables_of, renames_of
from .table_state import STATE_FILE, TablesState, state_saved_at
from .table_wipes import Wipe, dropped_at, wiped_tables, wipes_of, without_wiped
from .ddl_policy import DDLOutcome, DDLPolicy, decide, policy_of
from .column_ddls import ColumnChange, changed_arrow, changed_images, changes_of, with_added_columns
from .partition_ddls import applied_wipes, learn, partition_images
from .dropped_tables import expired, park, restore, undone_drops, unrecovered
from .table_apply import TableRun, write_tables

FORMATS = ("parquet", "delta", "iceberg")
#: Staged events and changes are read back in column batches of this many rows (Spark's
#: 4,096 default, times two row images of 24 KB, was 200 MB a batch: an OutOfMemoryError in a
#: 512 MiB driver); a batch's memory follows its rows' width, so wide tables need few rows a batch.
_READ_BACK = {"spark.sql.parquet.columnarReaderBatchSize": "512"}
_EVENT_COLUMNS_KEPT = ("kind", "commit_ts", "schema", "table", "columns", "pre_columns", "handle_key_only", "ddl_type", "query",
                       "topic", "partition", "offset", "_seq")


@dataclass(frozen=True, slots=True)
class TableCounts:
    """One table's counts in a run. ``inserted``/``updated``/``deleted``: the net effect on the
    table (rows new to it, rows already there and rewritten, rows removed), one per key however
    many times the run changed it; ``insert_events``/``update_events``/``delete_events``: the
    change events applied, replayed copies counted once (those are ``duplicates``)."""

    inserted: int = 0
    updated: int = 0
    deleted: int = 0
    insert_events: int = 0
    update_events: int = 0
    delete_events: int = 0
    duplicates: int = 0
    key_only: int = 0
    zero_dates: int = 0


@dataclass(frozen=True, slots=True)
class MaterializeSummary:
    """What a run applied. ``release_ts`` None: the protocol has no resolved events, so
    everything read was applied (``complete`` False: a later event may still change rows)."""

    out: str
    format: str
    release_ts: Optional[int]
    complete: bool
    events_read: int
    pending: int
    tables: dict[str, TableCounts] = field(default_factory=dict)
    waiting: tuple[str, ...] = ()
    seconds: float = 0.0
    nothing_new: bool = False  # the source held no message past the last run's offsets: no job ran
    ddls: dict[str, list[DDLOutcome]] = field(default_factory=dict)  # per table, the run's DDLs and what was done
    ddl_policy: str = "apply"

    def report(self) -> str:
        if self.nothing_new:
            return f"nothing to do: the source holds nothing new since the last run into {self.out}; tables unchanged"
        if self.release_ts is None:
            up_to = "everything read (this protocol sends no resolved events: rows are as of the last event read)"
        elif self.waiting:
            up_to = f"nothing yet: no resolved ts from {', '.join(self.waiting)}"
        else:
            up_to = f"resolved ts {self.release_ts}"
        lines = [
            f"materialized {len(self.tables)} table(s) into {self.out} ({self.format}) up to {up_to}",
            f"events read {self.events_read}, pending above the resolved ts {self.pending}, {self.seconds:.1f}s",
            f"{'':<32} {'events applied':^29} {'rows of the table':^29}",
            f"{'table':<32} {'inserts':>9} {'updates':>9} {'deletes':>9} {'inserted':>9} {'updated':>9} {'deleted':>9}"
            f" {'duplicates':>10} {'key-only':>9} {'zero dates':>10}",
        ]
        for name, c in sorted(self.tables.items()):
            lines.append(f"{name:<32} {c.insert_events:>9} {c.update_events:>9} {c.delete_events:>9}"
                         f" {c.inserted:>9} {c.updated:>9} {c.deleted:>9} {c.duplicates:>10} {c.key_only:>9}"
                         f" {c.zero_dates:>10}")
        if self.ddls:
            lines.append(f"DDLs (policy {self.ddl_policy}):")
            for name, seen in sorted(self.ddls.items()):
                for d in seen:
                    lines.append(f"  {name:<30} ts {d.ts} {d.ddl_type}: {d.action} ({_short(d.query)})")
        return "\n".join(lines)


def _short(query: str) -> str:
    query = " ".join(query.split())
    return query if len(query) <= 60 else query[:57] + "..."


def materialize(
    spark: SparkSession,
    source_uri: SinkLike,
    out: str,
    format: str = "parquet",
    topics: Optional[Union[str, Sequence[str]]] = None,
    tables: Optional[Union[str, Sequence[str]]] = None,
    time_zone: str = "UTC",
    fail_on_data_loss: bool = True,
    ddl_policy: str = "apply",
    catalog: Optional[dict] = None,
    include_ddls: Union[str, Sequence[str], None] = None,
    exclude_ddls: Union[str, Sequence[str], None] = None,
) -> MaterializeSummary:
    """Apply the source's events since the last run into one table per upstream table under
    ``out``; see the module doc. ``tables``: a table filter (``"shop.*,!shop.tmp_*"``).
    ``fail_on_data_loss`` (default True): a partition that no longer holds the offset the last
    run stopped at (retention), or ends before it (the topic was deleted and written again), is
    a :class:`~cdcwire.transports.data_loss.DataLossError`; False: one warning, read from its earliest.
    A storage-sink layout: read from each directory's last file read before, up to its checkpoint
    (``topics`` does not apply; csv rows need ``include-commit-ts=true``). ``ddl_policy``: what
    is done with the DDLs, "apply" (a replay), "skip-destructive" or "stop" (see
    :mod:`cdcwire.spark.tables.ddl_policy`); ``include_ddls`` / ``exclude_ddls``: the DDL kinds
    applied / not applied (``"TRUNCATE_TABLE,DROP_*"``; default: every kind). ``catalog``: for ``format="iceberg"``, PyIceberg's
    ``load_catalog`` properties of the catalog to keep the tables in (``{"type": "rest", "uri": ...}``);
    None: a SQL catalog on SQLite under OUT (see :mod:`.iceberg_tables`)."""
    ddl_policy = policy_of(ddl_policy, include_ddls, exclude_ddls)
    _check_catalog(format, catalog)
    run = prepare_materialize(source_uri, out, format, topics, tables, fail_on_data_loss)
    if run.nothing_new is not None:
        return run.nothing_new
    state = run.state
    if run.layout is not None:
        read = read_layout_since(spark, run.layout, str(source_uri), state.layout, table_filter_option(tables))
        if read.events is None:  # the checkpoint has not moved since the check: nothing new, no Spark job
            return _nothing_new(out, format, state.release_ts, state.release_ts is not None, run.started)
        return apply_events(spark, read.events, out, format, state, True, time_zone, layout=read.position,
                            ddl_policy=ddl_policy, catalog=catalog)
    try:
        events = read_ranges(spark, run.sink.config.uri, run.ranges, tables=table_filter_option(tables))
    except DataLossError as exc:
        raise _offsets_of_state(out, exc) from None
    return apply_events(spark, events, out, format, state, _has_resolved(run.sink), time_zone, ddl_policy=ddl_policy,
                        catalog=catalog)


@dataclass(slots=True)
class PreparedRun:
    """What a run of :func:`materialize` learns before Spark: the source (a layout or a sink), the
    state of ``out``, the message ranges to read, and ``nothing_new``, the run's whole summary
    when the source holds nothing past the last run (then no Spark session is needed at all)."""

    layout: Optional[StorageLocation]
    sink: object
    state: TablesState
    ranges: list
    started: float
    nothing_new: Optional[MaterializeSummary] = None


def prepare_materialize(
    source_uri: SinkLike,
    out: str,
    format: str = "parquet",
    topics: Optional[Union[str, Sequence[str]]] = None,
    tables: Optional[Union[str, Sequence[str]]] = None,
    fail_on_data_loss: bool = True,
) -> PreparedRun:
    """Everything :func:`materialize` checks and plans without a Spark session, so that ``cdcwire
    materialize`` refuses a source it cannot apply (a csv layout without ``include-commit-ts``, an
    output directory of another source) and says "nothing to do" before a JVM starts."""
    started = time.monotonic()
    _check_format(format)
    layout = _layout_location(source_uri, topics)
    sink = open_sink(source_uri) if layout is None else None
    state = TablesState.load(out, format)
    source = redact_url(sink.config.uri) if sink is not None else shown_uri(str(source_uri))
    if state.source and state.source != source:
        raise CdcwireError(f"{out} was materialized from {state.source}; it cannot continue from {source}")
    state.source = source
    table_filter = tables if tables is None or isinstance(tables, str) else ",".join(tables)
    if state.run and state.tables != table_filter:
        raise CdcwireError(
            f"{Path(out) / STATE_FILE} holds tables materialized with table filter {_filter_text(state.tables)}; this"
            f" run gives {_filter_text(table_filter)}: a table it adds would miss the events earlier runs read past;"
            f" give {_filter_text(state.tables)} again, or materialize into a new output directory"
        )
    state.tables = table_filter
    run = PreparedRun(layout, sink, state, [], started)
    if layout is not None:
        if state.layout is not None and read_checkpoint(layout.storage) == state.layout.checkpoint:
            run.nothing_new = _nothing_new(out, format, state.release_ts, state.release_ts is not None, started)
        return run
    topic_list = "" if topics is None else topics if isinstance(topics, str) else ",".join(topics)
    try:
        run.ranges = plan_message_ranges(sink, topic_list, None, json.dumps(state.offsets) if state.offsets else "",
                                         fail_on_data_loss=fail_on_data_loss)
    except DataLossError as exc:
        raise _offsets_of_state(out, exc) from None
    if all(r.end is not None and r.start is not None and r.start >= r.end for r in run.ranges):
        # nothing new since the last run: said without a Spark job (a read would still plan one);
        # the pending events wait on a resolved ts that has not come either
        run.nothing_new = _nothing_new(out, format, state.release_ts, False, started)
    return run


def _offsets_of_state(out: str, exc: DataLossError) -> DataLossError:
    """A damaged state, or a topic written again: the error says which file holds the offset."""
    return DataLossError(
        f"{Path(out) / STATE_FILE} field offsets: {exc}; if the state file is damaged, restore it or"
        " materialize into a new output directory"
    )


def _nothing_new(out: str, format: str, release_ts: Optional[int], complete: bool, started: float) -> MaterializeSummary:
    return MaterializeSummary(out, format, release_ts, complete, 0, 0, nothing_new=True,
                              seconds=time.monotonic() - started)


def materialize_stream(
    df: DataFrame, source_uri: SinkLike, out: str, checkpoint: str, format: str = "parquet", time_zone: str = "UTC",
    trigger: Optional[dict] = None, ddl_policy: str = "apply", catalog: Optional[dict] = None,
    include_ddls: Union[str, Sequence[str], None] = None, exclude_ddls: Union[str, Sequence[str], None] = None,
):
    """Apply every micro-batch of a streaming frame read back from ``source_uri`` (e.g.
    ``spark.readStream.format("cdcwire")``) as :func:`materialize` applies a run; returns the
    StreamingQuery. The source's offsets are the query's checkpoint; the state keeps the rest.
    A storage-sink layout (``spark.readStream.format("cdcwire-storage")``): each micro-batch is
    released up to its checkpoint, as a run of :func:`materialize` is (rows need their commit ts)."""
    _check_format(format)
    ddl_policy = policy_of(ddl_policy, include_ddls, exclude_ddls)
    _check_catalog(format, catalog)
    if not df.isStreaming:
        raise CdcwireError("materialize_stream takes a streaming DataFrame; materialize reads a source in batch")
    layout = _layout_location(source_uri, None)
    sink = open_sink(source_uri) if layout is None else None
    source = redact_url(sink.config.uri) if sink is not None else shown_uri(str(source_uri))
    has_resolved = _has_resolved(sink) if sink is not None else True

    def apply_batch(batch: DataFrame, batch_id: int) -> None:
        state = TablesState.load(out, format)
        state.source = source
        position = _layout_batch_position(state) if layout is not None else None
        apply_events(batch.sparkSession, batch, out, format, state, has_resolved, time_zone, layout=position,
                     ddl_policy=ddl_policy, catalog=catalog)

    writer = df.writeStream.foreachBatch(apply_batch).option("checkpointLocation", checkpoint)
    if trigger:
        writer = writer.trigger(**trigger)
    return writer.start()


def _layout_batch_position(state: TablesState) -> Callable[[DataFrame], LayoutPosition]:
    """How a micro-batch of a layout stream finds where it stops: its closing resolved event is
    the checkpoint it read up to (the release point). The stream's own checkpoint keeps its files;
    the state keeps the last run's, from which a later ``materialize`` reads again what is above
    the checkpoint (more than it must, never less)."""
    def position(events: DataFrame) -> LayoutPosition:
        ts = events.where(F.col("kind") == "resolved").agg(F.max("commit_ts")).first()[0]
        if ts is None:
            raise CdcwireError(
                "a micro-batch of the storage-sink layout stream holds no resolved event, which says the checkpoint"
                " it read up to: pass materialize_stream the frame spark.readStream.format('cdcwire-storage') loads,"
                " unfiltered"
            )
        return LayoutPosition.of(int(ts), state.layout.last_read() if state.layout is not None else {})
    return position


def apply_events(
    spark: SparkSession, events: DataFrame, out: str, format: str, state: TablesState, has_resolved: bool,
    time_zone: str = "UTC", layout: Union[LayoutPosition, Callable[[DataFrame], LayoutPosition], None] = None,
    ddl_policy: Union[str, DDLPolicy] = "apply", catalog: Optional[dict] = None,
) -> MaterializeSummary:
    """One run over a frame of events read back (topic, partition, offset): the stages above.
    ``layout``: the events are a storage-sink layout's up to this position's checkpoint, the
    release point (committed as the state's ``layout`` instead of offsets); or how to find that
    position in the staged events (a micro-batch of a layout stream)."""
    started = time.monotonic()
    with iceberg_tables.one_run(out, catalog) if format == "iceberg" else nullcontext():  # one catalog a run
        return _staged_run(spark, events, out, format, state, has_resolved, time_zone, layout, ddl_policy, catalog,
                           started)


def _staged_run(spark, events, out, format, state, has_resolved, time_zone, layout, ddl_policy, catalog, started):
    if state.renaming is not None:  # a run killed while it moved tables to their new names
        _finish_moves(out, state, format, catalog)
    run = state.run + 1
    # the events are read from the source once and staged on disk as Parquet (never cached in
    # memory: a run's events may be many times the executors' memory); every later stage reads
    # back only the columns it needs. ``_seq`` is fixed by the write.
    staged = f"_cdcwire/events-{run:06d}"
    step("staging events")
    to_stage = events.select(*(c for c in _EVENT_COLUMNS_KEPT if c != "_seq")).withColumn(
        "_seq", F.monotonically_increasing_id())
    to_stage.write.mode("overwrite").parquet(str(Path(out) / staged))
    try:
        fresh = _read_back(spark, str(Path(out) / staged), to_stage)
        if callable(layout):
            layout = layout(fresh)
        with session_settings(spark, {**_READ_BACK, **write_settings(spark)}):  # for the tables written side by side
            return _apply(spark, fresh, out, format, state, has_resolved, time_zone, run, started, layout, ddl_policy,
                          catalog)
    finally:
        remove_snapshot(out, staged)


def _apply(spark, fresh, out, format, state, has_resolved, time_zone, run, started, layout,
           ddl_policy: Union[str, DDLPolicy] = "apply", catalog: Optional[dict] = None) -> MaterializeSummary:
    ddl_policy = policy_of(ddl_policy)
    pending_before = spark.read.parquet(str(Path(out) / state.pending)) if state.pending else None
    # (pending events staged by a version before the DDL columns were kept lack them)
    events = fresh if pending_before is None else fresh.unionByName(pending_before, allowMissingColumns=True)
    step("finding the release point")
    events_read, offsets, point, renames, ddls, names, latest = _read_counts_and_release_point(
        fresh, pending_before, state, has_resolved)
    if layout is not None:  # the read stopped at the layout's checkpoint: nothing above it waits
        offsets, point = state.offsets, ReleasePoint(layout.checkpoint, dict(state.resolved))
    ddl_outcomes, run_ddls = decide(ddls, ddl_policy, None if layout is not None else point.ts)  # stop: raises here
    undone = undone_drops(ddls, run_ddls)  # a DROP TABLE and its RECOVER within the run: nothing removed
    released = [w for w in wipes_of(ddls) if w.ts in run_ddls and w.ts not in undone]
    column_changes = changes_of(ddls, run_ddls, ddl_policy.behavior)
    partitions, partition_wipes = learn(ddls, state.partitions, None if layout is not None else point.ts)
    partition_wipes = applied_wipes(partition_wipes, run_ddls)  # a partitioning not known: raises here
    columns_changed: dict[str, list] = {}  # by the name each table ends the run with; partition wipes too
    for change in sorted([*column_changes, *partition_wipes], key=lambda c: c.ts):
        columns_changed.setdefault(final_name(renames, change.table, change.ts), []).append(change)
    step("keeping the events above it", events=events_read)
    is_row = F.col("kind").isin(*ROW_KINDS)
    # a DDL above the release point waits with the rows (a rename moves tables at once: see table_renames)
    changes = events.where(is_row | ((F.col("kind") == "ddl") & ~F.col("ddl_type").isin(*RENAME_TYPES)))
    changes = without_wiped(changes, released, renames)
    if partition_wipes:
        changes = partition_images(changes, partition_wipes, renames)
    rows = relabelled(changes, renames)
    if column_changes:  # by the names the rows now carry: a row from before a RENAME TABLE has the new one
        rows = changed_images(rows, [replace(c, table=final_name(renames, c.table, c.ts)) for c in column_changes])
    if point.ts is None or layout is not None or latest is None or latest <= point.ts:
        # nothing waits (the aggregate saw no change above the point): no pass to write none
        ready, later = rows.where(is_row), None
    else:
        ready, later = rows.where(is_row & (F.col("commit_ts") <= point.ts)), rows.where(F.col("commit_ts") > point.ts)
    pending_dir, pending = None, 0
    if later is not None:  # written, then counted from its Parquet footers: one job
        pending_dir = f"_cdcwire/pending-{run:06d}"
        later.write.mode("overwrite").parquet(str(Path(out) / pending_dir))
        pending = rows_in(out, pending_dir)
        if not pending:
            remove_snapshot(out, pending_dir)
            pending_dir = None
    missing, recovered = restore(out, format, state, ddls, run_ddls, run)  # RECOVER / FLASHBACK TABLE
    unrecovered(ddl_outcomes, missing)
    # the tables of earlier runs, listed only when a TRUNCATE / DROP of the run may empty one
    wiped_stored = {} if not released else wiped_tables(released, renames, _stored_tables(out, format, state, catalog))
    replaced, moved = _rename_tables(out, format, state, renames, run, catalog)
    replaced += recovered
    applied = dict(state.applied)
    if format == "delta":  # a killed run's commits: the tables it named before them (see commit_journal)
        saved = state_saved_at(out)
        for name in tables_to_check(out, state.journaled):
            if saved is not None and not committed_after(out, name, saved):
                continue  # its last commit came before the state's: the state's applied ts is the table's
            stored_ts = applied_ts(out, name)
            if stored_ts is not None:
                applied[name] = stored_ts
    elif format == "iceberg":  # a killed run's commits: what each table's snapshot says
        applied.update(iceberg_tables.applied_of_tables(out, catalog))
    emptied: dict[str, Wipe] = {}  # the tables of earlier runs a TRUNCATE / DROP empties, by their names now
    for name, wipe in wiped_stored.items():
        now = moved.get(name, name)
        if (name in moved or now not in moved.values()) and wipe.ts > applied.get(now, -1):
            emptied[now] = wipe
    columns_ts: dict[str, int] = {}
    for name, changed_columns in sorted(columns_changed.items()):  # the rows of earlier runs, changed first
        todo = [c for c in changed_columns if c.ts > applied.get(name, -1)]
        if not todo or name in emptied:
            continue
        if format == "parquet" and name in state.snapshots:
            replaced.append(state.snapshots[name])
            state.snapshots[name] = f"{name}/columns-{run:06d}"
            changed_snapshot(out, replaced[-1], state.snapshots[name], lambda rows, todo=todo: changed_arrow(rows, todo))
            columns_ts[name] = max(c.ts for c in todo)  # applied up to the DDL, once the run's rows are chosen
        elif format == "delta" and (Path(out) / name / "_delta_log").is_dir():
            note_commits(out, [name])
            change_delta_files(out, name, lambda rows, todo=todo: changed_arrow(rows, todo), run)
        elif format == "iceberg" and name in applied:
            iceberg_tables.change_files(out, name, lambda rows, todo=todo: changed_arrow(rows, todo), run, catalog)
    ready = _not_yet_applied(ready, {n: applied[n] for n in names | {r.new for r in renames} if n in applied})
    applied.update({name: max(ts, applied.get(name, 0)) for name, ts in columns_ts.items()})
    key_only_rows = F.coalesce(F.col("handle_key_only"), F.lit(False))
    # the changes, deduplicated and each key's last one marked, in one shuffle; staged on disk
    # as Parquet (as the events are) for the stages that read them again
    decided_dir = f"_cdcwire/decided-{run:06d}"
    step("deduplicating changes")
    to_decide = _staged_decisions(decided_changes(row_changes(ready.where(~key_only_rows))))
    to_decide.write.mode("overwrite").parquet(str(Path(out) / decided_dir))
    try:
        decided = _read_back(spark, str(Path(out) / decided_dir), to_decide)
        step("counting changes per table")
        stats, columns_of_tables = _table_stats(decided, ready.where(key_only_rows))
        keyless = sorted(name for name, r in stats.items() if r["keyless"])
        if keyless:
            raise CdcwireError(
                f"table(s) without a handle key cannot be materialized: {', '.join(keyless)} (a full-row apply could"
                " not tell a replayed event from a real duplicate row); leave them out with a table filter"
                f" (--tables '*.*,!{keyless[0]}')"
            )
        if any(r["conflicts"] for r in stats.values()):
            _refuse_conflicts(conflicting_changes(decided))
        last = decided.where("_last")
        changed = sorted(name for name, r in stats.items() if r["changes"])
        step("typing tables")
        columns_by_table = {name: cols for name, cols in columns_of_tables.items() if name in changed}
        snapshots = dict(state.snapshots)
        for name in changed:  # an added column no row of the run carries is the table's all the same
            since = dropped_at(name, released)
            columns_by_table[name] = with_added_columns(columns_by_table[name], [
                c for c in columns_changed.get(name, ()) if isinstance(c, ColumnChange) and c.ts > since])
        to_write = [
            TableRun(name, tuple(columns_by_table[name]), stats[name]["changes"],
                     point.ts if point.ts is not None else int(stats[name]["max_ts"]), name in emptied,
                     snapshots.get(name), tuple(columns_changed.get(name, ())))
            for name in changed
        ]
        if format == "delta":
            note_commits(out, [t.name for t in to_write])
        written, zero_dates = write_tables(spark, out, format, last, to_write, run, time_zone, catalog)
        counts: dict[str, TableCounts] = {}
        for t in to_write:
            name, done = t.name, written[t.name].counts
            if format == "parquet":
                replaced.append(snapshots.get(name))
                snapshots[name] = written[name].directory
            applied[name] = t.up_to
            r = stats[name]
            counts[name] = TableCounts(done["inserted"], done["updated"], done["deleted"], r["insert"], r["update"],
                                       r["delete"], r["duplicates"], r["key_only"], zero_dates.get(name, 0))
        for name, r in stats.items():
            if name not in counts and r["key_only"]:
                counts[name] = TableCounts(key_only=r["key_only"])
    finally:
        remove_snapshot(out, decided_dir)
    up_to_wipes = point.ts if point.ts is not None else max((w.ts for w in released), default=0)
    replaced += _empty_tables(out, format, state, {n: w for n, w in emptied.items() if n not in changed}, snapshots,
                              applied, up_to_wipes, run, catalog)
    replaced += expired(state, ddls, run_ddls, point.ts)  # dropped tables no longer kept for a RECOVER
    step("committing", done=len(changed), total=len(changed))
    previous_pending = state.pending
    state.offsets, state.resolved, state.applied = offsets, point.resolved, applied
    state.snapshots, state.pending, state.release_ts, state.run = snapshots, pending_dir, point.ts, run
    state.layout = layout if layout is not None else state.layout
    state.partitions = partitions
    state.journaled = True  # every Delta commit of the run was named first; a killed one's are in applied
    state.save(out)  # the commit: what follows only tidies up
    if format == "delta":
        clear_commits(out)
    for directory in replaced:
        remove_snapshot(out, directory)
    remove_snapshot(out, previous_pending)
    return MaterializeSummary(
        out, format, point.ts, point.ts is not None and not point.waiting, events_read, pending, counts, point.waiting,
        time.monotonic() - started, ddls=ddl_outcomes, ddl_policy=str(ddl_policy),
    )


def _read_back(spark: SparkSession, path: str, written: DataFrame) -> DataFrame:
    """What the run just wrote to ``path`` from ``written``, read with ``written``'s schema: read
    without one, Spark starts a job to take the schema from the files' footers (a job per
    staging step of every run, for a schema the run already has)."""
    return spark.read.schema(written.schema).parquet(path)


def _staged_decisions(decided: DataFrame) -> DataFrame:
    """The decided changes as staged: every change keeps its image's signature (the table's
    columns come from all of them), but only the change deciding its key's row keeps the image
    itself. In a stream of many changes per row, the values of the changes that do not decide
    were most of what the step wrote and read back, for nothing."""
    return decided.withColumn("signature", image_signature(F.col("_image"))).withColumn(
        "_image", F.when(F.col("_last"), F.col("_image")))


def _read_counts_and_release_point(fresh, pending_before, state, has_resolved):
    """(events read, the next offset per partition, the release point, the renames among the new
    DDLs, every DDL row new or pending, the tables the rows name, the latest commit ts of a row or
    DDL event), from one aggregate per partition over the new events and the pending ones of the
    last run (a partition whose rows all wait, with no resolved ts yet, still holds the release
    point back)."""
    marked = fresh.withColumn("_fresh", F.lit(True))
    if pending_before is not None:
        marked = marked.unionByName(pending_before.withColumn("_fresh", F.lit(False)), allowMissingColumns=True)
    place = F.concat_ws("/", "topic", F.col("partition").cast("string"))
    rows = marked.groupBy(place.alias("place")).agg(
        F.max(F.when(F.col("_fresh"), F.col("offset"))).alias("last"),
        F.count_if(F.col("_fresh")).alias("n"),
        F.count_if(F.col("kind").isNotNull()).alias("events"),
        F.max(F.when(F.col("kind") == "resolved", F.col("commit_ts"))).alias("resolved"),
        F.collect_list(F.when(F.col("_fresh") & F.col("ddl_type").isin(*RENAME_TYPES),
                              F.struct("_seq", "commit_ts", "schema", "table", "query"))).alias("renames"),
        F.collect_list(F.when(F.col("kind") == "ddl",
                              F.struct("_seq", "commit_ts", "schema", "table", "ddl_type", "query"))).alias("ddls"),
        F.collect_set(F.when(F.col("kind").isin(*ROW_KINDS), F.struct("schema", "table"))).alias("names"),
        F.max(F.when(F.col("kind").isin(*ROW_KINDS, "ddl"), F.col("commit_ts"))).alias("latest"),
    ).collect()
    offsets = dict(state.offsets)
    for r in rows:
        if r["last"] is not None:  # a partition whose offsets restarted (loss accepted) goes back
            offsets[r["place"]] = int(r["last"]) + 1
    point = release_point_of([r for r in rows if r["events"]], state.resolved, has_resolved)
    renames = renames_of(sorted((d for r in rows for d in r["renames"]), key=lambda d: d["_seq"]))
    ddls = sorted((d for r in rows for d in r["ddls"]), key=lambda d: d["_seq"])
    names = {f"{n['schema']}.{n['table']}" for r in rows for n in r["names"]}
    latest = max((int(r["latest"]) for r in rows if r["latest"] is not None), default=None)
    return sum(r["n"] for r in rows), offsets, point, renames, ddls, names, latest


def _table_stats(decided: DataFrame, key_only: DataFrame) -> tuple[dict[str, dict[str, int]], dict[str, list]]:
    """Per table, from one aggregate over the decided changes: events applied per kind (replays
    collapsed), duplicates, key-only rows, changes without a key (a keyless table), changes that
    conflict, the number of changes, the latest commit ts; and the table's columns
    (:func:`~cdcwire.spark.tables.changelog.columns_from_signatures`). The aggregate groups by
    table and image signature (a handful per table), and the counts are summed here."""
    flagged = decided.select(
        "schema", "table", "kind", "_op", "_key", "_copies", "_conflict", "commit_ts", F.lit(False).alias("_hko"),
        "signature",
    ).unionByName(key_only.select(
        "schema", "table", "kind", F.lit("U").alias("_op"), F.lit("").alias("_key"), F.lit(1).cast("int").alias("_copies"),
        F.lit(False).alias("_conflict"), "commit_ts", F.lit(True).alias("_hko"),
    ), allowMissingColumns=True)
    change, one_per_event = ~F.col("_hko"), (F.col("kind") != "update") | (F.col("_op") == "U")
    ts = F.col("commit_ts").cast(DecimalType(20, 0))
    rows = flagged.groupBy("schema", "table", "signature").agg(
        *(F.count_if(change & one_per_event & (F.col("kind") == k)).alias(k) for k in ROW_KINDS),
        F.coalesce(F.sum(F.when(change, F.col("_copies") - 1)), F.lit(0)).alias("duplicates"),
        F.count_if(F.col("_hko")).alias("key_only"),
        F.count_if(change & F.col("_key").isNull()).alias("keyless"),
        F.count_if(F.col("_conflict")).alias("conflicts"),
        F.count_if(change).alias("changes"),
        F.max("commit_ts").alias("max_ts"),
        F.min(F.when(change, ts)).alias("first"), F.max(F.when(change, ts)).alias("last"),
    ).collect()
    stats: dict[str, dict[str, int]] = {}
    for r in rows:
        table = stats.setdefault(f"{r['schema']}.{r['table']}", {})
        for k, v in r.asDict().items():
            if k in _SUMMED:
                table[k] = table.get(k, 0) + int(v or 0)
            elif k == "max_ts" and v is not None:
                table[k] = max(table.get(k, 0), int(v))
        table.setdefault("max_ts", 0)
    return stats, columns_from_signatures(r for r in rows if r["first"] is not None)


_SUMMED = (*ROW_KINDS, "duplicates", "key_only", "keyless", "conflicts", "changes")


def _rename_tables(out: str, format: str, state: TablesState, renames, run: int,
                   catalog: Optional[dict] = None) -> tuple[list[str], dict[str, str]]:
    """Give the tables of earlier runs the names the run's renames not applied yet give them (see
    :mod:`.table_renames`); (the Parquet snapshots to remove after the commit, {old name: new}). A renamed Parquet
    table's snapshot is linked under its new name (``<new>/renamed-N``), so the directory a
    reader finds is named for the table, whether or not the run changes it."""
    new = [r for r in renames if state.renamed_ts is None or r.ts > state.renamed_ts]
    if not new:
        return [], {}
    state.renamed_ts = max(r.ts for r in new)
    moved = renamed_tables_of(_stored_tables(out, format, state, catalog), new)
    if not moved:
        return [], {}
    before = state.snapshots
    state.applied = renamed_entries(state.applied, moved)
    state.snapshots = renamed_entries(state.snapshots, moved)
    for old, name in moved.items():
        if old in before:
            state.snapshots[name] = f"{name}/renamed-{run:06d}"
            linked_snapshot(out, before[old], state.snapshots[name])
    dropped = [d for name, d in before.items() if name in moved or name in moved.values()]
    if format in ("delta", "iceberg"):  # Delta directories moved, Iceberg tables renamed in their catalog: now,
        state.renaming = journal(moved)  # through a journal in the state
        state.save(out)
        _finish_moves(out, state, format, catalog)
    return dropped, moved


def _empty_tables(out: str, format: str, state: TablesState, emptied: dict[str, Wipe], snapshots: dict[str, str],
                  applied: dict[str, int], up_to: int, run: int, catalog: Optional[dict] = None) -> list[Optional[str]]:
    """The tables of earlier runs a TRUNCATE or DROP empties and no later change of the run
    writes again (see :mod:`.table_wipes`): a truncated one is left with no rows, applied up to
    ``up_to``; a dropped one leaves the output. Parquet: in ``snapshots`` and ``applied``, for the
    run's commit; the snapshots to remove after it. Delta: a commit of no rows; a dropped
    table's directory is removed once a state without it is saved (a run killed in between
    reads the DROP again and finds nothing to remove)."""
    replaced: list[Optional[str]] = []
    dropped_delta = []
    if format == "delta":
        note_commits(out, [name for name, wipe in emptied.items() if not wipe.drops])
    for name, wipe in sorted(emptied.items()):
        if format == "parquet":
            replaced.append(snapshots.pop(name, None))
            if wipe.drops:
                if wipe.kind == "drop":  # kept for a RECOVER TABLE (see dropped_tables)
                    park(out, format, state.dropped, name, wipe.ts, applied.get(name), replaced[-1])
                applied.pop(name, None)
            else:
                snapshots[name] = f"{name}/run-{run:06d}"
                empty_snapshot(out, replaced[-1], snapshots[name])
                applied[name] = up_to
        elif wipe.drops:
            dropped_delta.append((name, wipe, applied.pop(name, None)))
        elif format == "iceberg":
            iceberg_tables.truncate_table(out, name, up_to, catalog)
            applied[name] = up_to
        else:
            empty_delta(out, name, up_to)
            applied[name] = up_to
    if dropped_delta:
        for name, _, _ in dropped_delta:
            state.applied.pop(name, None)
        state.save(out)
        for name, wipe, applied_before in dropped_delta:
            if format == "iceberg":
                iceberg_tables.drop_table(out, name, catalog)  # a RECOVER finds no copy kept: reported not applied
                continue
            if wipe.kind == "drop":  # kept for a RECOVER TABLE (see dropped_tables)
                park(out, format, state.dropped, name, wipe.ts, applied_before)
            shutil.rmtree(Path(out) / name, ignore_errors=True)
    return replaced


def _finish_moves(out: str, state: TablesState, format: str, catalog: Optional[dict] = None) -> None:
    def saved(renaming: dict) -> None:
        state.renaming = renaming
        state.save(out)

    if format == "iceberg":
        rename_iceberg_tables(out, state.renaming, saved, catalog)
    else:
        make_moves(out, state.renaming, saved)
    state.renaming = None
    state.save(out)


def _stored_tables(out: str, format: str, state: TablesState, catalog: Optional[dict] = None) -> list[str]:
    """The tables of earlier runs: the state's, and the format's under OUT (a killed run's new
    Delta table, an Iceberg table of OUT's catalog); a Parquet table is its snapshot in the state."""
    return sorted(set(state.applied) | set(state.snapshots) | set(_format_tables_in(out, format, catalog)))


def _format_tables_in(out: str, format: str, catalog: Optional[dict] = None) -> list[str]:
    """The tables of the format under OUT (Delta directories, Iceberg tables in OUT's catalog);
    none for Parquet (a Parquet table is named in the state, or is not one)."""
    if format == "iceberg":
        return iceberg_tables.tables_in(out, catalog)
    if format == "parquet":
        return []
    return tables_to_check(out, journaled=False)


def _not_yet_applied(rows: DataFrame, applied: dict[str, int]) -> DataFrame:
    """Rows above their table's applied ts: at or below it they are replays of applied events.
    ``applied``: the tables the rows may name (those of a run's events, not every table stored).
    The applied ts are one map (schema -> table -> ts) read from one JSON literal and looked up
    per row: Spark folds it into one constant, so neither the plan nor its generated code grows
    with the tables (a CASE naming hundreds of them overflowed the JVM's 64 KB method limit; a
    map of one literal per table took seconds to analyse), and no job sends it to the executors
    (a broadcast join of a small frame of them started two on every incremental run)."""
    if not applied:
        return rows
    by_schema: dict[str, dict[str, int]] = {}
    for name, ts in applied.items():
        schema, table = name.split(".", 1)
        by_schema.setdefault(schema, {})[table] = ts
    limits = F.from_json(F.lit(json.dumps(by_schema)), "map<string, map<string, decimal(20,0)>>")
    applied_ts = F.try_element_at(F.try_element_at(limits, F.col("schema")), F.col("table"))
    return rows.where(applied_ts.isNull() | (F.col("commit_ts") > applied_ts))


def _filter_text(tables: Optional[str]) -> str:
    return "none (every table)" if tables is None else repr(tables)


def _refuse_conflicts(conflicts: DataFrame) -> None:
    """One key changed several times at one commit ts with a key-changing update among the
    changes (not a swap of keys): TiDB never sends that, and no order of them is sure to be right."""
    found = conflicts.orderBy("commit_ts", "schema", "table", "_key").limit(3).collect()
    if found:
        first = found[0]
        raise CdcwireError(
            f"{first['schema']}.{first['table']} key {_key_text(first['_key'])} changes more than once at commit ts"
            f" {first['commit_ts']} with a key-changing update among the changes"
            f"{' (and more keys)' if len(found) > 1 else ''}: TiDB sends one change per key and commit ts,"
            " so the order to apply them in is unknown; check the producer of the stream"
        )


def _key_text(key: str) -> str:
    """``id=1`` from a row key's JSON (see :func:`~cdcwire.spark.tables.table_changes.key_json`)."""
    def value(v):
        return next((x for x in v.values() if x is not None), None) if isinstance(v, dict) else v

    return ",".join(f"{pair['n']}={value(pair.get('v'))}" for pair in json.loads(key))


def _layout_location(source_uri: SinkLike, topics) -> Optional[StorageLocation]:
    """The storage-sink layout the source URI names (None: a sink's topic), checked for what
    materialize needs of it: each row's commit ts, which orders a key's changes and tells the
    rows a later run reads again from the ones it has not applied."""
    if not is_storage_uri(source_uri):
        return None
    location = StorageLocation.parse(str(source_uri))
    if topics is not None:
        raise CdcwireError(f"{location.display()} is a storage-sink layout, read whole: topics do not apply to it")
    needed = location.commit_ts_parameter()
    if needed is not None:
        raise CdcwireError(
            f"{location.display()}: materialize needs each row's commit ts, to order a key's changes and to tell the"
            f" rows an earlier run applied: give {needed}=true (TiCDC must write the layout with it)"
        )
    return location


def _has_resolved(sink) -> bool:
    return sink.codec.policy(sink.config).resolved != Broadcast.NONE


def _check_catalog(format: str, catalog: Optional[dict]) -> None:
    if catalog is not None and format != "iceberg":
        raise CdcwireError(f"catalog properties are for Iceberg tables; format {format!r} keeps its tables in OUT alone:"
                           " give format='iceberg' or leave the catalog out")


def _check_format(format: str) -> None:
    if format not in FORMATS:
        raise CdcwireError(f"unknown table format {format!r}: one of {', '.join(FORMATS)}")
