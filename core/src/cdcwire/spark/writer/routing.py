"""Dispatch on Spark: the driver plans topics and partitions once, executors route every event.

The plan is small and picklable: the sink URI text, the topics with their
partition counts, and for every topic-partition an integer key that Spark's
hash partitioner sends to its own shuffle partition, so that one Spark task
encodes exactly one topic-partition.

Each routing task ends with one count row of what it did (events in, dead-lettered,
routed, ...): counts travel as data, see :mod:`cdcwire.spark.writer.routing_counts`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ByteType, IntegerType, LongType, StringType, StructField, StructType

from ...dispatch import ColumnSelectorError, Dispatcher
from ...foundation.errors import CdcwireError
from ...model.event_json import to_json
from ...model.events import DDLEvent, Event, ResolvedEvent, RowChangedEvent
from ...foundation.redact import redact_url
from ...sinks.sink import Sink
from ..runtime.collector import fewer_collections
from ..rows.arrow_events import batch_to_events, checked_events
from .column_selection import select_batch_columns
from ..runtime.job_errors import carried_to_driver
from .dead_letters import RejectedRecords, input_row, row_text
from .shuffle_keys import shuffle_keys
from .routing_counts import ARROW_COUNTS, COUNTS_COLUMN, COUNTS_TYPE, RoutingCounts
from ..rows.schema import ARROW_EVENT_FIELDS, EVENT_COLUMNS, EVENT_FIELDS
from ..runtime.sink_cache import cached_sink

#: Columns the routing stage adds (all dropped before encoding).
ROUTING_FIELDS = [
    StructField("_cdc_topic", StringType(), False),
    StructField("_cdc_partition", IntegerType(), False),
    StructField("_cdc_key", IntegerType(), False),  # shuffle key: one Spark partition per topic-partition
    StructField("_cdc_rank", ByteType(), False),  # at one commit ts: DDL, then rows, then resolved
    StructField("_cdc_seq", LongType(), False),  # input order
    StructField("_cdc_sub", ByteType(), False),  # the copy's place among an event's routes
    StructField("_cdc_half", ByteType(), False),  # 0 whole event, 1 delete half, 2 insert half of a key change
    StructField(COUNTS_COLUMN, COUNTS_TYPE),  # set only on a task's count row (see routing_counts)
]
ROUTED_SCHEMA = StructType([*EVENT_FIELDS, *ROUTING_FIELDS])
ROUTING_COLUMNS = tuple(f.name for f in ROUTING_FIELDS)
SORT_COLUMNS = ("_cdc_topic", "_cdc_partition", "commit_ts", "_cdc_rank", "_cdc_seq", "_cdc_sub")
RANK = {DDLEvent: 0, RowChangedEvent: 1, ResolvedEvent: 2}


@dataclass(frozen=True, slots=True)
class RoutePlan:
    sink_uri: str
    partition_counts: dict[str, int]
    partitions: tuple[tuple[str, int], ...]
    shuffle_keys: tuple[int, ...]
    dead_letter: Optional[str]
    #: Names this write's dead-letter files, so that a write never replaces another's.
    write_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    #: The tier that routes: "python" (this module) or "jvm" (:mod:`cdcwire.spark.writer.jvm_routing`).
    tier: str = "python"
    #: The tier that encodes: "python" (the codec's encoder) or "jvm" (:mod:`cdcwire.spark.writer.jvm_encoding`).
    encoding: str = "python"

    def __repr__(self) -> str:
        """The sink URI redacted: a plan is public (``cdcwire.spark.prepare``) and gets printed."""
        return (
            f"RoutePlan(sink_uri={redact_url(self.sink_uri)!r}, partition_counts={self.partition_counts!r}, "
            f"tasks={self.tasks}, dead_letter={self.dead_letter!r}, tier={self.tier!r}, encoding={self.encoding!r})"
        )

    @property
    def tasks(self) -> int:
        return len(self.partitions)

    def index(self) -> dict[tuple[str, int], int]:
        return {tp: i for i, tp in enumerate(self.partitions)}


class UnplannedTopicError(CdcwireError):
    """An event routes to a topic the driver did not plan: the input changed between the
    planning action and the routing one. A job error, never a dead letter."""


def needs_every_column(sink: Sink) -> bool:
    """Only the ``columns`` rule hashes non-key columns; other rules need the handle key at most."""
    return any(rule.hashes_named_columns for rule in sink.config.dispatch_rules)


def plan_routes(spark: SparkSession, df: DataFrame, sink: Sink, dead_letter: Optional[str]) -> RoutePlan:
    """Topics, partition counts (checked against a real Kafka topic once) and shuffle keys.

    With topic rules this reads the input once to find its tables; the routing stage reads
    it again, so the input must give the same rows twice (``cdcwire.spark.read`` pins its
    message ranges for that reason).
    """
    config = sink.config
    dispatcher = Dispatcher(sink)
    if any(rule.topic is not None for rule in config.dispatch_rules):
        pairs = (
            df.where(F.col("kind").isin("insert", "update", "delete", "ddl"))
            .select("schema", "table")
            .distinct()
            .collect()
        )
        for row in pairs:
            dispatcher.topic_for(row["schema"] or "", row["table"] or "")
    transport = sink.needs_transport()
    counts = {topic: transport.prepare_topic(config, topic) for topic in sorted(dispatcher.topics)}
    partitions = tuple((topic, p) for topic in sorted(counts) for p in range(counts[topic]))
    return RoutePlan(config.uri, counts, partitions, shuffle_keys(len(partitions)), dead_letter)


def planned_partition_count(plan: RoutePlan) -> Callable[[str], int]:
    """The dispatcher's partition counts, from the plan only."""

    def count(topic: str) -> int:
        n = plan.partition_counts.get(topic)
        if n is None:
            raise UnplannedTopicError(
                f"an event routes to topic {topic!r}, which was not planned: the input gave other rows when"
                " the topics were planned (read it once, e.g. df.cache(), or from a bounded source)"
            )
        return n

    return count


def _where(event: Event) -> str:
    if isinstance(event, ResolvedEvent):
        return f"resolved@{event.ts}"
    return f"{event.schema}.{event.table}@{event.commit_ts}"


class BatchRouter:
    """Routes the batches of one routing task: each event to its topic-partitions, rejected
    records aside, and counts of what it did.

    Rows leave with only the columns their table's column selector keeps (dropped in Arrow,
    see :mod:`cdcwire.spark.writer.column_selection`); the dispatcher checks each row against its
    selector first. A selector that drops what a row needs fails the job (a configuration
    error, as ``cdcwire.encode`` raises it), never a dead letter."""

    def __init__(self, plan: RoutePlan, rejected: RejectedRecords) -> None:
        sink = cached_sink(plan.sink_uri)
        self.plan = plan
        self.rejected = rejected
        self.counts = RoutingCounts()
        # rows are checked against their column selector here, their columns dropped in Arrow
        self.dispatcher = Dispatcher(
            sink, partition_count=planned_partition_count(plan), select_columns=False
        )
        self.dispatcher.topics = set(plan.partition_counts)
        self.tp_index = plan.index()
        self.keys_only = not needs_every_column(sink)

    def route(self, batch: pa.RecordBatch) -> Optional[pa.RecordBatch]:
        """The routed copies of a batch's events, or None when it has none."""
        seqs = batch.column("_cdc_seq").to_pylist()
        events, problems = checked_events(batch, keys_only=self.keys_only)
        if problems:
            self._reject_malformed(batch, problems, seqs)
        counts, plan = self.counts, self.plan
        take: list[int] = []
        tps: list[int] = []
        ranks: list[int] = []
        subs: list[int] = []
        halves: list[int] = []
        selecting = bool(self.dispatcher.column_selectors)
        selectors: list = []
        counts.events_in += len(events)
        for i, event in enumerate(events):
            if event is None:
                continue
            try:
                routes = self.dispatcher.route(event)
            except (UnplannedTopicError, ColumnSelectorError):
                raise
            except CdcwireError as exc:
                full = batch_to_events(batch.slice(i, 1))[0]
                where = _where(event)
                self.rejected.take(where, str(exc), to_json(full), f"cannot dispatch {where}: {exc}")
                continue
            if not routes:
                counts.without_message += 1
                continue
            counts.routed += 1
            counts.copies += len(routes)
            rank = RANK[type(event)]
            if selecting:
                selector = (
                    self.dispatcher.selector_for(event.schema, event.table)
                    if isinstance(event, RowChangedEvent)
                    else None
                )
                selectors.extend([selector] * len(routes))
            for sub, route in enumerate(routes):
                take.append(i)
                tps.append(self.tp_index[(route.topic, route.partition)])
                ranks.append(rank)
                subs.append(sub)
                halves.append(route.half)
        if not take:
            return None
        keys = plan.shuffle_keys
        picked = batch.select(list(EVENT_COLUMNS)).take(pa.array(take, pa.int32()))
        if selecting:
            picked = select_batch_columns(picked, selectors)
        return pa.RecordBatch.from_arrays(
            [
                *picked.columns,
                pa.array([plan.partitions[t][0] for t in tps], pa.string()),
                pa.array([plan.partitions[t][1] for t in tps], pa.int32()),
                pa.array([keys[t] for t in tps], pa.int32()),
                pa.array(ranks, pa.int8()),
                pa.array([seqs[i] for i in take], pa.int64()),
                pa.array(subs, pa.int8()),
                pa.array(halves, pa.int8()),
                pa.nulls(len(take), ARROW_COUNTS),
            ],
            names=[*EVENT_COLUMNS, *ROUTING_COLUMNS],
        )

    def _reject_malformed(self, batch: pa.RecordBatch, problems: dict[int, str], seqs: list[int]) -> None:
        sources = batch.column("_malformed").to_pylist() if "_malformed" in batch.schema.names else None
        for i in sorted(problems):
            bad = sources[i] if sources is not None else None
            source = bad["source"] if bad else input_row(seqs[i])
            reason = bad["reason"] if bad else problems[i]
            record = bad["text"] if bad else row_text(batch.select(list(EVENT_COLUMNS)), i)
            self.rejected.take(source, reason, record, f"malformed input record at {source}: {reason}")

    def count_row(self, task_number: int) -> pa.RecordBatch:
        """The task's counts as one row, sent to the shuffle partition of ``task_number``."""
        self.counts.dead_lettered = self.rejected.count
        t = task_number % self.plan.tasks
        topic, partition = self.plan.partitions[t]
        return pa.RecordBatch.from_arrays(
            [
                *(pa.nulls(1, f.type) for f in ARROW_EVENT_FIELDS),
                pa.array([topic], pa.string()),
                pa.array([partition], pa.int32()),
                pa.array([self.plan.shuffle_keys[t]], pa.int32()),
                pa.array([3], pa.int8()),
                pa.array([-1], pa.int64()),
                pa.array([0], pa.int8()),
                pa.array([0], pa.int8()),
                self.counts.as_arrow(),
            ],
            names=[*EVENT_COLUMNS, *ROUTING_COLUMNS],
        )


def dispatch_stage(plan: RoutePlan) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function of the routing stage (runs on executors): routed copies of
    every event, then one count row. Dead letters are published once all input is routed."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        with carried_to_driver("the routing stage"):  # a cdcwire error reaches the driver as itself
            yield from _route_task(plan, batches)

    return run


def _route_task(plan: RoutePlan, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    from pyspark import TaskContext

    task: Any = TaskContext.get()
    rejected = RejectedRecords.for_task(plan.dead_letter, plan.write_id, task)
    router = BatchRouter(plan, rejected)
    try:
        with fewer_collections():
            for batch in batches:
                routed = router.route(batch)
                if routed is not None:
                    yield routed
        rejected.publish()
    except BaseException:
        rejected.discard()
        raise
    yield router.count_row(task.partitionId() if task is not None else 0)
