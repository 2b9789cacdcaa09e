"""``cdcwire.spark.write``: event DataFrame -> dispatch -> order -> encode -> transport.

Two Spark stages and a shuffle:

1. routing: each event gets its topic-partitions (rows by the dispatch rules, key
   changes split, DDL and resolved broadcast per the codec's policy); malformed
   records go to the dead-letter path or fail the job. Spark SQL expressions route
   where they can (the JVM tier, :mod:`.writer.jvm_routing`); elsewhere a mapInArrow
   stage routes in Python (:mod:`.writer.routing`). ``routing_tier`` picks one per write;
2. ``repartition(n, shuffle key)`` puts each topic-partition in its own Spark
   partition, ``sortWithinPartitions`` orders it by commit ts (DDL before rows
   before resolved at one ts, then input order);
3. encoding (mapInArrow): one task per topic-partition streams its events
   through the codec's encoder and a writer of the write job.

The write job (``Transport.begin_write``) makes the write all or nothing where the
sink can be (``file://``: tasks stage, the driver publishes once ``collect()``
succeeded, and discards on any failure, a retried or lost task's leftovers
included); a delivering sink (``kafka://``) sends as tasks go, so a failed or
retried write delivers at least once. The summary says which.

Only counts come back to the driver: per topic-partition from the encoding stage,
and the routing stage's counts carried through the shuffle as rows (never an
accumulator, which a retried task would add to twice), so the summary reconciles
whatever Spark re-runs.
"""

from __future__ import annotations

import time
from pathlib import Path
from dataclasses import dataclass, field, replace
from typing import Iterable, Mapping, Optional, Union

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ..sinks.sink import Sink, SinkLike, open_sink
from ..foundation.errors import CdcwireError
from ..contract.transport import WriteJob
from ..transports.storage.location import StorageLocation, is_storage_uri
from .format import register_data_sources
from .writer.encoding import RESULT_SCHEMA, EncodingTask, encode_stage
from .runtime.job_errors import cdcwire_error_in, cdcwire_errors_raised
from .runtime.progress import progress_counter
from .writer.jvm_encoding import encoding_tier, jvm_encoded_partitions
from .writer.jvm_routing import jvm_routed, routing_tier
from .writer.layout_writer import LayoutWriteSummary, write_layout
from .writer.routing import ROUTED_SCHEMA, SORT_COLUMNS, RoutePlan, dispatch_stage, plan_routes
from .writer.routing_counts import COUNTERS, COUNTS_COLUMN
from .rows.schema import EVENT_COLUMNS, MALFORMED_TYPE, OPTIONAL_COLUMNS


@dataclass(frozen=True, slots=True)
class PartitionCount:
    events: int
    messages: int
    bytes: int


@dataclass(frozen=True, slots=True)
class WriteSummary:
    """What a write did. It reconciles: ``events_in == events_encoded + events_without_message
    + events_dead_lettered``, and every routed copy was encoded or dead-lettered
    (``copies == copies_encoded + copies_dead_lettered``).

    ``events_without_message``: events the protocol has no message for (avro's DDL and
    resolved, canal-json's resolved without the extension). ``copies``: event copies after
    broadcast and key-change splits, the unit messages count in. An event is dead-lettered
    when routing refused it or the encoder refused any of its copies (its other copies,
    if the encoder took them, are written).

    ``all_or_nothing``: how the sink delivered (see :attr:`delivery`).
    """

    sink: str
    events_in: int
    events_encoded: int
    events_without_message: int
    events_dead_lettered: int
    copies: int
    copies_encoded: int
    messages: int
    bytes: int
    seconds: float
    partitions: dict[tuple[str, int], PartitionCount] = field(default_factory=dict)
    copies_dead_lettered: int = 0
    all_or_nothing: bool = False

    @classmethod
    def from_results(
        cls, sink: str, rows: Iterable[Mapping], seconds: float, all_or_nothing: bool = False
    ) -> "WriteSummary":
        """Sum the encoding stage's result rows (see ``encoding.RESULT_SCHEMA``): per topic-partition
        counts, the routing counts that rode the shuffle in them, and the encoder's refusals."""
        rows = list(rows)
        totals = {name: sum(r[name] for r in rows) for name in COUNTERS}
        refused = [seq for r in rows for seq in (r["refused_rows"] or ())]
        refused_events = len(set(refused))
        partitions: dict[tuple[str, int], PartitionCount] = {}
        for r in rows:
            if r["topic"] is None:
                continue
            key = (r["topic"], r["partition"])
            prev = partitions.get(key, PartitionCount(0, 0, 0))
            partitions[key] = PartitionCount(
                prev.events + r["events"], prev.messages + r["messages"], prev.bytes + r["bytes"]
            )
        return cls(
            sink=sink,
            events_in=totals["events_in"],
            events_encoded=totals["routed"] - refused_events,
            events_without_message=totals["without_message"],
            events_dead_lettered=totals["dead_lettered"] + refused_events,
            copies=totals["copies"],
            copies_encoded=sum(r["encoded"] for r in rows),
            messages=sum(r["messages"] for r in rows),
            bytes=sum(r["bytes"] for r in rows),
            seconds=seconds,
            partitions=partitions,
            copies_dead_lettered=len(refused),
            all_or_nothing=all_or_nothing,
        )

    @property
    def events_per_second(self) -> float:
        return self.events_in / self.seconds if self.seconds > 0 else 0.0

    @property
    def reconciles(self) -> bool:
        return (
            self.events_in == self.events_encoded + self.events_without_message + self.events_dead_lettered
            and self.copies == self.copies_encoded + self.copies_dead_lettered
        )

    @property
    def delivery(self) -> str:
        """How the sink delivered, and so what a failed or repeated write leaves."""
        if self.all_or_nothing:
            return (
                "all or nothing: every message was published at once after every task succeeded;"
                " a failed write publishes none"
            )
        return (
            "at least once: a failed or retried task may have delivered some of its messages before it"
            " failed, and a retried write sends them again (the idempotent producer keeps a task"
            " attempt's own resends from duplicating); consumers drop repeats by commit ts up to each"
            " resolved ts"
        )

    def report(self) -> str:
        """The closing summary, as ``cdcwire run`` prints it."""
        lines = [
            f"sink: {self.sink}",
            f"events in: {self.events_in}  encoded: {self.events_encoded}  without a message: "
            f"{self.events_without_message}  dead-lettered: {self.events_dead_lettered}  "
            f"({'reconciled' if self.reconciles else 'DOES NOT RECONCILE'})",
            f"copies (broadcast, splits): {self.copies}  messages: {self.messages}  bytes: {self.bytes}"
            + (f"  dead-lettered copies: {self.copies_dead_lettered}" if self.copies_dead_lettered else ""),
            f"delivery: {self.delivery}",
            f"{self.seconds:.1f}s  {self.events_per_second:,.0f} events/s",
            f"{'topic':<32} {'partition':>9} {'events':>9} {'messages':>9} {'bytes':>12}",
        ]
        for (topic, partition), c in sorted(self.partitions.items()):
            lines.append(f"{topic:<32} {partition:>9} {c.events:>9} {c.messages:>9} {c.bytes:>12}")
        return "\n".join(lines)


def with_malformed_column(df: DataFrame) -> DataFrame:
    """The event columns plus ``_malformed`` (null when the input has none); an input of the
    1.0 layout, without ``handle_key_only``, marks no row key-only."""
    cols = [
        F.col(f"`{c}`") if c in df.columns or c not in OPTIONAL_COLUMNS else F.lit(OPTIONAL_COLUMNS[c]).alias(c)
        for c in EVENT_COLUMNS
    ]
    if "_malformed" in df.columns:
        return df.select(*cols, "_malformed")
    return df.select(*cols, F.lit(None).cast(MALFORMED_TYPE).alias("_malformed"))


def prepare(
    df: DataFrame, sink_uri: SinkLike, dead_letter: Optional[str] = None
) -> tuple[DataFrame, RoutePlan]:
    """The event DataFrame laid out for a sink: routed, one Spark partition per topic-partition,
    each sorted. ``df.write.format("cdcwire")`` writes such a DataFrame exactly.

    Python routes it: the data source's tasks encode what they are given, unchecked, and
    only the Python tier checks every record before the shuffle."""
    register_data_sources(df.sparkSession)  # the laid-out frame is written with format("cdcwire")
    with cdcwire_errors_raised():  # planning runs Spark jobs over the input
        laid, plan = _laid_out(df, open_sink(sink_uri), dead_letter, jvm=False)
    return laid.where(F.col(COUNTS_COLUMN).isNull()).drop(COUNTS_COLUMN), plan


def _write_plan(df: DataFrame, sink: Sink, dead_letter: Optional[str], jvm: bool = True) -> RoutePlan:
    """The routes of a write and the tiers that route and encode it; ``jvm``: whether the JVM
    tier may route (where :func:`routing_tier` takes it)."""
    plan = plan_routes(df.sparkSession, df, sink, dead_letter)
    tier = routing_tier(sink, df, dead_letter)[0] if jvm else "python"
    return replace(plan, tier=tier, encoding=encoding_tier(sink, df, tier)[0])


def _laid_out(
    df: DataFrame, sink: Sink, dead_letter: Optional[str], jvm: bool = True, plan: Optional[RoutePlan] = None,
    staging_area: Optional[str] = None,
) -> tuple[DataFrame, RoutePlan]:
    """As :func:`prepare`, with the routing tasks' count rows still in (see routing_counts);
    ``jvm``: as :func:`_write_plan` (``plan``: made already); ``staging_area``: a write job's, where
    the JVM encoding tier stages what it made (see writer.jvm_staging)."""
    plan = plan or _write_plan(df, sink, dead_letter, jvm)
    tier = plan.tier
    events = with_malformed_column(df).withColumn("_cdc_seq", F.monotonically_increasing_id())
    if tier == "jvm":
        routed = jvm_routed(events.drop("_malformed"), sink, plan)
    else:
        routed = events.mapInArrow(dispatch_stage(plan), ROUTED_SCHEMA)
    laid = routed.repartition(plan.tasks, "_cdc_key").sortWithinPartitions(*SORT_COLUMNS)
    if plan.encoding == "jvm":
        laid = jvm_encoded_partitions(laid, sink, staging_area=None if dead_letter else staging_area)
    return laid, plan


def write(
    df: DataFrame,
    sink_uri: SinkLike,
    dead_letter: Optional[str] = None,
    overwrite: bool = False,
) -> Union[WriteSummary, LayoutWriteSummary]:
    """Dispatch, order, encode and write every event of ``df`` to the sink; see the module doc.

    A storage-sink location (``local:///dir?protocol=csv``, ``s3://bucket/prefix?...``) gets
    the layout ``cdcwire.write_storage`` writes, its data files written on the executors (see
    :mod:`cdcwire.spark.writer.layout_writer`), and a :class:`LayoutWriteSummary`.

    ``dead_letter``: a directory for malformed records and events the encoder refuses (a row
    over ``max-message-bytes``), each with its reason and place; without it the first one
    fails the job, naming its place (source and line, topic/partition/offset, or input row)
    and the reason. ``overwrite``: replace what the sink's topics hold (``file://`` only).

    A failed write raises with a note saying what it left: on ``file://`` nothing (nor its
    dead letters); on ``kafka://`` whatever tasks had delivered, which a retry sends again.
    A cdcwire error raised in any Spark task (reading the input, planning, routing, encoding)
    is raised as itself, attributes and all, as ``cdcwire.encode`` would (see job_errors).
    """
    if is_storage_uri(sink_uri):
        StorageLocation.parse(str(sink_uri)).warn_if_not_continuable()
        return write_layout(with_malformed_column(df), str(sink_uri), dead_letter, overwrite)
    sink = open_sink(sink_uri)
    config = sink.config
    started = time.monotonic()
    with cdcwire_errors_raised():  # planning runs Spark jobs over the input: nothing to clean up yet
        plan = _write_plan(df, sink, dead_letter)
    job = sink.needs_transport().begin_write(config, plan.sink_uri, overwrite=overwrite)
    task = EncodingTask(
        job, plan.sink_uri, plan.dead_letter, plan.write_id, progress_counter(), checks_rows=plan.tier == "jvm",
        jvm_values=plan.encoding == "jvm",
    )
    try:
        # On file://, the messages Java made are staged by Java, in the job's area (see writer.jvm_staging).
        laid, plan = _laid_out(df, sink, dead_letter, plan=plan, staging_area=job.staging_area())
        rows = laid.mapInArrow(encode_stage(task), RESULT_SCHEMA).collect()
        job.publish([r["receipt"] for r in rows if r["receipt"]])
    except BaseException as exc:
        err = None if isinstance(exc, CdcwireError) else cdcwire_error_in(exc)
        failure = err if err is not None else exc
        try:
            job.discard()
            if plan.dead_letter:
                discard_dead_letters(plan.dead_letter, plan.write_id)
        except Exception as cleanup:  # the write's own error stays the one raised
            failure.add_note(f"removing what the failed write had staged also failed: {cleanup}")
        failure.add_note(after_failure(job, config.redacted_uri))
        if err is not None:
            raise err from None
        raise
    seconds = time.monotonic() - started
    return WriteSummary.from_results(config.redacted_uri, rows, seconds, job.all_or_nothing)


def after_failure(job: WriteJob, sink: str) -> str:
    """What a failed write left at the sink, for the error's note."""
    if job.all_or_nothing:
        return f"nothing was published to {sink}: a failed write publishes nothing"
    return (
        f"messages that tasks had delivered to {sink} before the failure stay there (delivery is at"
        " least once): a retry sends them again"
    )


def discard_dead_letters(directory: str, write_id: str) -> None:
    """Remove a failed write's dead letters (its routing and encoding tasks published theirs as
    they finished): its retry writes them again, under a new write id."""
    for path in Path(directory).glob(f"part-*-{write_id}-*.jsonl"):
        path.unlink(missing_ok=True)
