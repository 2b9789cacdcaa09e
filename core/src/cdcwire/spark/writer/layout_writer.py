"""``cdcwire.spark.write`` of an event DataFrame to a TiCDC storage-sink layout (``local://``,
``s3://``): the layout ``cdcwire.write_storage`` writes for the same events, with the rows
encoded and written on the executors.

1. A survey (one aggregate, nothing of the input's size comes back): per table its DDLs,
   its first row commit ts and its number of partitions, and the newest resolved and commit
   ts. The driver makes the write's :class:`~cdcwire.transports.storage.table_versions.TablePlan`
   from it (the table versions), as the Python writer does from its events.
2. The rows, shuffled by table (and partition, with ``enable-partition-separator``) and sorted
   by commit ts, then input order: a row's version and date rise with its commit ts, so each
   data directory's rows arrive together. Each task places its rows by the plan and streams
   each directory's rows into its data files as it encodes them (csv records, canal-json
   lines: the Python writer's :class:`~cdcwire.transports.storage.data_files.DataFiles`, the
   next file at ``file-size``), so what a task holds is one file's write buffer (1 MiB on
   disk, an 8 MiB part on S3) and a batch of rows, never a directory's data. Files go in a
   directory the layout already has after its files (never one a reader reads), and the
   task hands back one small row per file: its directory, name, counts and first row.
   Malformed records fail the write (a layout has no dead letters).
3. The driver takes each table version's first row (by commit ts, then input order) from
   those rows, the version's schema file from it, and publishes: schema files, each
   directory's index file, and the root checkpoint last. A failed write leaves the
   checkpoint where it was, and a reader reads the layout up to it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional

import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql.types import LongType, StringType, StructField, StructType

from ...foundation.errors import CdcwireError
from ...model.event_json import from_json, to_json
from ...model.events import DDLEvent, RowChangedEvent
from ...api.storage_writing import line_encoder
from ...transports.storage.data_files import (
    DataFiles, FirstRow, WrittenFile, checkpoint_ts, first_images, next_indexes, publish,
)
from ...transports.storage.location import StorageLocation
from ...transports.storage.paths import DataDir
from ...transports.storage.table_versions import TablePlan, existing_versions
from ..rows.arrow_events import checked_events
from ..rows.schema import EVENT_COLUMNS
from ..runtime.collector import fewer_collections
from ..runtime.job_errors import carried_to_driver, cdcwire_errors_raised
from .dead_letters import input_row

ROW_KINDS = ("insert", "update", "delete")

#: One row per data file a task wrote (ts and versions as text: they are unsigned 64-bit).
FILES_SCHEMA = StructType([
    StructField("schema", StringType(), False),
    StructField("table", StringType(), False),
    StructField("version", StringType(), False),
    StructField("partition", LongType()),
    StructField("date", StringType(), False),
    StructField("name", StringType(), False),
    StructField("rows", LongType(), False),
    StructField("bytes", LongType(), False),
    StructField("first_ts", StringType(), False),
    StructField("first_seq", LongType(), False),
    StructField("first_row", StringType(), False),  # event JSON of the first row (its image)
])


@dataclass(frozen=True, slots=True)
class LayoutWriteSummary:
    """What a write to a storage-sink layout did. It reconciles: every event of the input was a row
    written to a data file, a DDL (a schema file) or a resolved event (the checkpoint)."""

    sink: str
    events_in: int
    rows: int
    ddls: int
    resolved: int
    data_files: int
    schema_files: int
    bytes: int
    checkpoint: int
    seconds: float

    @property
    def reconciles(self) -> bool:
        return self.events_in == self.rows + self.ddls + self.resolved

    @property
    def events_per_second(self) -> float:
        return self.events_in / self.seconds if self.seconds > 0 else 0.0

    def report(self) -> str:
        return "\n".join([
            f"sink: {self.sink}",
            f"events in: {self.events_in}  rows: {self.rows}  DDLs: {self.ddls}  resolved: {self.resolved}"
            f"  ({'reconciled' if self.reconciles else 'DOES NOT RECONCILE'})",
            f"data files: {self.data_files}  schema files: {self.schema_files}  bytes: {self.bytes}"
            f"  checkpoint: {self.checkpoint}",
            f"{self.seconds:.1f}s  {self.events_per_second:,.0f} events/s",
        ])


@dataclass(frozen=True, slots=True)
class LayoutTask:
    """What the driver ships to every write task: the location (its URI), the table plan, and the
    next file index of each directory the layout already has (see ``data_files.next_indexes``)."""

    uri: str
    plan: TablePlan
    indexes: Mapping[DataDir, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"LayoutTask({StorageLocation.parse(self.uri).display()!r})"


@dataclass(frozen=True, slots=True)
class _Survey:
    plan: TablePlan
    rows: int
    ddls: int
    resolved: int
    groups: int  # table partitions with rows (about: a distinct count estimate): the write's tasks at most
    checkpoint: int


def write_layout(
    df: DataFrame, uri: str, dead_letter: Optional[str] = None, overwrite: bool = False
) -> LayoutWriteSummary:
    """Write the events of ``df`` (the event columns and ``_malformed``) as a layout at ``uri``."""
    location = StorageLocation.parse(uri)
    if dead_letter is not None:
        raise CdcwireError(
            f"a storage-sink layout has no dead letters ({location.display()}): a malformed record fails"
            " the write, which leaves the layout at its old checkpoint; filter the input or leave dead_letter out"
        )
    if overwrite:
        raise CdcwireError(
            f"overwrite does not apply to a storage-sink layout ({location.display()}): a write adds data files"
            " after the layout's own and moves its checkpoint; remove the layout yourself to start anew"
        )
    started = time.monotonic()
    events = df.withColumn("_cdc_seq", F.monotonically_increasing_id())
    try:
        with cdcwire_errors_raised():
            survey = _survey(events, location)
            rows = [r.asDict() for r in _laid_out(events, location, survey).mapInArrow(
                layout_stage(LayoutTask(uri, survey.plan, next_indexes(location))), FILES_SCHEMA).collect()]
        written = [_written(r) for r in rows]
        if sum(f.rows for f in written) != survey.rows:
            raise CdcwireError(
                f"the write put {sum(f.rows for f in written)} rows in data files, the survey of the input"
                f" counted {survey.rows}: the input gave other rows each time it was read (read it once, e.g."
                " df.cache(), or from a bounded source)"
            )
        schema_files = survey.plan.schema_files(first_images(written))
        checkpoint = publish(location, schema_files, written, survey.checkpoint)
    except BaseException as exc:
        exc.add_note(
            f"the write failed before it moved the checkpoint of {location.display()}: a reader reads the"
            " layout up to its old checkpoint (data files of this write that no index file names are not read)"
        )
        raise
    return LayoutWriteSummary(
        sink=location.display(), events_in=survey.rows + survey.ddls + survey.resolved,
        rows=sum(f.rows for f in written),
        ddls=survey.ddls, resolved=survey.resolved, data_files=len(written), schema_files=len(schema_files),
        bytes=sum(f.bytes for f in written), checkpoint=checkpoint, seconds=time.monotonic() - started,
    )


def _survey(events: DataFrame, location: StorageLocation) -> _Survey:
    """One aggregate over the input: per table its DDLs, first row ts and partitions; the resolved ts."""
    kind, ts = F.col("kind"), F.col("commit_ts")
    is_row = kind.isin(*ROW_KINDS) & ts.isNotNull() & F.col("schema").isNotNull() & F.col("table").isNotNull()
    is_ddl, is_resolved = kind == "ddl", kind == "resolved"
    found = (
        events.where(is_row | is_ddl | is_resolved)
        .groupBy(*(F.when(~is_resolved, F.col(c)).alias(c) for c in ("schema", "table")))
        .agg(
            F.min(F.when(is_row, ts)).alias("first_row_ts"),
            F.count(F.when(is_row, 1)).alias("rows"),
            F.count(F.when(is_resolved, 1)).alias("resolved"),
            F.max(F.when(is_resolved, ts)).alias("resolved_ts"),
            F.max(ts).alias("newest"),
            F.approx_count_distinct(F.when(is_row, F.coalesce(F.col("table_id"), F.lit(-1)))).alias("partitions"),
            F.collect_list(F.when(is_ddl, F.struct(*(F.col(f"`{c}`") for c in EVENT_COLUMNS), "_cdc_seq")))
            .alias("ddls"),
        )
        .toArrow()
    )
    first_row_ts = {
        (s, t): int(first)
        for s, t, first in zip(*(found.column(c).to_pylist() for c in ("schema", "table", "first_row_ts")))
        if first is not None
    }
    ddls = _ddl_events(found.column("ddls"))
    resolved = max((int(r) for r in found.column("resolved_ts").to_pylist() if r is not None), default=-1)
    newest = max((int(n) for n in found.column("newest").to_pylist() if n is not None), default=-1)
    return _Survey(
        plan=TablePlan.of(ddls, first_row_ts, existing_versions(location)), rows=_total(found, "rows"), ddls=len(ddls),
        resolved=_total(found, "resolved"), groups=_total(found, "partitions"),
        checkpoint=checkpoint_ts(resolved, newest),
    )


def _total(table: pa.Table, column: str) -> int:
    return int(pc.sum(table.column(column)).as_py() or 0)


def _ddl_events(column: pa.ChunkedArray) -> list[DDLEvent]:
    """The survey's DDL records as events, in input order, checked as every record is."""
    flat = [chunk.flatten() for chunk in column.chunks if len(chunk)]
    if not flat or not sum(len(f) for f in flat):
        return []
    records = pa.RecordBatch.from_struct_array(pa.concat_arrays(flat))
    records = records.take(pc.sort_indices(records.column("_cdc_seq")))
    events, problems = checked_events(records)
    if problems:
        _refuse(records, problems)
    return events  # type: ignore[return-value]


def _laid_out(events: DataFrame, location: StorageLocation, survey: _Survey) -> DataFrame:
    """The rows (and any malformed record, to be refused), one table partition's in one task, by commit ts."""
    kind = F.col("kind")
    bad_resolved = (kind == "resolved") & (
        F.col("commit_ts").isNull() | F.col("columns").isNotNull() | F.col("pre_columns").isNotNull()
    )
    rows = events.where(kind.isNull() | ~kind.isin("ddl", "resolved") | bad_resolved)
    key = ["schema", "table"] + (["table_id"] if location["enable-partition-separator"] else [])
    shuffle_partitions = int(events.sparkSession.conf.get("spark.sql.shuffle.partitions") or 200)
    tasks = max(1, min(survey.groups, shuffle_partitions))
    return rows.repartition(tasks, *key).sortWithinPartitions(*key, "commit_ts", "_cdc_seq")


def layout_stage(task: LayoutTask) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function of the write (runs on executors)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        with carried_to_driver("the storage-layout write"), fewer_collections():  # see job_errors
            yield from write_data_files(task, batches)

    return run


def write_data_files(task: LayoutTask, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Place, encode and put the data files of sorted rows; one result batch, a row per file."""
    location = StorageLocation.parse(task.uri)
    encode_line = line_encoder(location)
    written: list[WrittenFile] = []
    current: Optional[DataFiles] = None
    done: set[DataDir] = set()
    try:
        for batch in batches:
            events, problems = checked_events(batch)
            if problems:
                _refuse(batch, problems)
            for seq, event in zip(batch.column("_cdc_seq").to_pylist(), events):
                if not isinstance(event, RowChangedEvent):
                    continue
                directory = task.plan.data_dir(location, event)
                if current is None or directory != current.directory:
                    if current is not None:
                        written.extend(current.close())
                    if directory in done:  # the sort keeps a directory's rows together: never
                        raise CdcwireError(f"rows of {directory.path()} came apart: the write's rows were not sorted")
                    done.add(directory)
                    current = DataFiles(location, directory, encode_line, task.indexes.get(directory, 1))
                current.add(event, seq)
        if current is not None:
            written.extend(current.close())
    except BaseException:
        if current is not None:
            current.abort()  # its file in progress; the files put before are past the index files, unread
        raise
    yield _files_batch(written)


def _refuse(batch: pa.RecordBatch, problems: dict[int, str]) -> None:
    """Fail the write for the first malformed record (a layout has no dead letters)."""
    seqs = batch.column("_cdc_seq").to_pylist()
    row = min(problems, key=lambda i: seqs[i])
    bad: Any = batch.column("_malformed")[row].as_py() if "_malformed" in batch.schema.names else None
    source = bad["source"] if bad else input_row(seqs[row])
    reason = bad["reason"] if bad else problems[row]
    raise CdcwireError(f"malformed input record at {source}: {reason}")


def _files_batch(files: list[WrittenFile]) -> pa.RecordBatch:
    def column(values: list, kind: pa.DataType) -> pa.Array:
        return pa.array(values, kind)

    d = [f.directory for f in files]
    return pa.RecordBatch.from_arrays(
        [
            column([x.schema for x in d], pa.string()), column([x.table for x in d], pa.string()),
            column([str(x.version) for x in d], pa.string()), column([x.partition for x in d], pa.int64()),
            column([x.date for x in d], pa.string()), column([f.name for f in files], pa.string()),
            column([f.rows for f in files], pa.int64()), column([f.bytes for f in files], pa.int64()),
            column([str(f.first.commit_ts) for f in files], pa.string()),
            column([f.first.seq for f in files], pa.int64()),
            column([to_json(RowChangedEvent(f.first.commit_ts, x.schema, x.table, f.first.image))
                    for f, x in zip(files, d)], pa.string()),
        ],
        names=[f.name for f in FILES_SCHEMA.fields],
    )


def _written(row: dict) -> WrittenFile:
    directory = DataDir(int(row["version"]), row["schema"], row["table"], row["partition"], row["date"])
    first = from_json(row["first_row"])
    assert isinstance(first, RowChangedEvent)
    return WrittenFile(directory, row["name"], row["rows"], row["bytes"],
                       FirstRow(int(row["first_ts"]), row["first_seq"], first.image))
