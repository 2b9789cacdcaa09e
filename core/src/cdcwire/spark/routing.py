"""Dispatch on Spark: the driver plans topics and partitions once, executors route every event.

The plan is small and picklable: the sink URI text, the topics with their
partition counts, and for every topic-partition an integer key that Spark's
hash partitioner sends to its own shuffle partition, so that one Spark task
encodes exactly one topic-partition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional

import pyarrow as pa
from pyspark import AccumulatorParam
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ByteType, IntegerType, LongType, StringType, StructField, StructType

from ..dispatch import Dispatcher
from ..errors import CdcwireError
from ..event_json import to_json
from ..events import DDLEvent, Event, ResolvedEvent, RowChangedEvent
from ..sink_uri import SinkConfig
from .arrow_events import batch_to_events
from .dead_letter import DeadLetterWriter
from .schema import EVENT_COLUMNS, EVENT_FIELDS
from .sink_cache import sink_config

#: Columns the routing stage adds (all dropped before encoding).
ROUTING_FIELDS = [
    StructField("_cdc_topic", StringType(), False),
    StructField("_cdc_partition", IntegerType(), False),
    StructField("_cdc_key", IntegerType(), False),  # shuffle key: one Spark partition per topic-partition
    StructField("_cdc_rank", ByteType(), False),  # at one commit ts: DDL, then rows, then resolved
    StructField("_cdc_seq", LongType(), False),  # input order
    StructField("_cdc_sub", ByteType(), False),  # the copy's place among an event's routes
    StructField("_cdc_half", ByteType(), False),  # 0 whole event, 1 delete half, 2 insert half of a key change
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

    @property
    def tasks(self) -> int:
        return len(self.partitions)

    def index(self) -> dict[tuple[str, int], int]:
        return {tp: i for i, tp in enumerate(self.partitions)}


def needs_every_column(config: SinkConfig) -> bool:
    """Only the ``columns`` rule hashes non-key columns; other rules need the handle key at most."""
    return any(rule.hashes_named_columns for rule in config.dispatch_rules)


def plan_routes(spark: SparkSession, df: DataFrame, config: SinkConfig, dead_letter: Optional[str]) -> RoutePlan:
    """Topics, partition counts (checked against a real Kafka topic once) and shuffle keys."""
    dispatcher = Dispatcher(config)
    if any(rule.topic is not None for rule in config.dispatch_rules):
        pairs = (
            df.where(F.col("kind").isin("insert", "update", "delete", "ddl"))
            .select("schema", "table")
            .distinct()
            .collect()
        )
        for row in pairs:
            dispatcher.topic_for(row["schema"] or "", row["table"] or "")
    counts = {topic: config.transport.prepare_topic(config, topic) for topic in sorted(dispatcher.topics)}
    partitions = tuple((topic, p) for topic in sorted(counts) for p in range(counts[topic]))
    return RoutePlan(config.uri, counts, partitions, shuffle_keys(spark, len(partitions)), dead_letter)


def shuffle_keys(spark: SparkSession, n: int) -> tuple[int, ...]:
    """For each i < n an int whose Spark hash (Murmur3, seed 42) is i mod n: ``repartition(n, key)``
    then puts topic-partition i alone in shuffle partition i."""
    found: dict[int, int] = {}
    limit = max(64, 16 * n)
    while len(found) < n:
        rows = (
            spark.range(0, limit)
            .select(F.col("id").cast("int").alias("k"), F.expr(f"pmod(hash(cast(id as int)), {n})").alias("p"))
            .collect()
        )
        for row in rows:
            found.setdefault(row["p"], row["k"])
        limit *= 4
    return tuple(found[i] for i in range(n))


class CountersParam(AccumulatorParam):
    """Element-wise sums of the routing stage's counters."""

    def zero(self, value: tuple) -> tuple:
        return (0,) * len(value)

    def addInPlace(self, a: tuple, b: tuple) -> tuple:  # noqa: N802 - pyspark's name
        return tuple(x + y for x, y in zip(a, b))


#: Order of the routing counters: input records, dead-lettered, without a message, routed events, copies.
COUNTERS = ("events_in", "dead_lettered", "without_message", "routed", "copies")


def _where(event: Event) -> str:
    if isinstance(event, ResolvedEvent):
        return f"resolved@{event.ts}"
    return f"{event.schema}.{event.table}@{event.commit_ts}"


def dispatch_stage(plan: RoutePlan, counters) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The mapInArrow function of the routing stage (runs on executors)."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        config = sink_config(plan.sink_uri)
        dispatcher = Dispatcher(config, partition_count=plan.partition_counts.__getitem__)
        dispatcher.topics = set(plan.partition_counts)
        tp_index = plan.index()
        keys = plan.shuffle_keys
        keys_only = not needs_every_column(config)
        ctx = TaskContext.get()
        dead: Optional[DeadLetterWriter] = None
        if plan.dead_letter:
            name = f"part-route-{ctx.partitionId() if ctx else 0}-{ctx.attemptNumber() if ctx else 0}.jsonl"
            dead = DeadLetterWriter(plan.dead_letter, name)
        totals = [0] * len(COUNTERS)
        try:
            for batch in batches:
                malformed = batch.column("_malformed").to_pylist() if "_malformed" in batch.schema.names else None
                seqs = batch.column("_cdc_seq").to_pylist()
                events = batch_to_events(batch, keys_only=keys_only)
                take: list[int] = []
                tps: list[int] = []
                ranks: list[int] = []
                subs: list[int] = []
                halves: list[int] = []
                totals[0] += len(events)
                for i, event in enumerate(events):
                    if event is None:
                        bad = malformed[i] if malformed is not None else None
                        source = bad["source"] if bad else f"input row {seqs[i]}"
                        reason = bad["reason"] if bad else "the row has no event kind"
                        if dead is None:
                            raise CdcwireError(f"malformed input record at {source}: {reason}")
                        dead.write(source, reason, bad["text"] if bad else "")
                        totals[1] += 1
                        continue
                    try:
                        routes = dispatcher.route(event)
                    except CdcwireError as exc:
                        if dead is None:
                            raise CdcwireError(f"cannot dispatch {_where(event)}: {exc}") from None
                        full = batch_to_events(batch.slice(i, 1))[0]
                        dead.write(_where(event), str(exc), to_json(full))
                        totals[1] += 1
                        continue
                    if not routes:
                        totals[2] += 1
                        continue
                    totals[3] += 1
                    totals[4] += len(routes)
                    rank = RANK[type(event)]
                    for sub, route in enumerate(routes):
                        take.append(i)
                        tps.append(tp_index[(route.topic, route.partition)])
                        ranks.append(rank)
                        subs.append(sub)
                        if route.event is event:
                            halves.append(0)
                        else:
                            halves.append(1 if route.event.columns is None else 2)
                if not take:
                    continue
                picked = batch.select(list(EVENT_COLUMNS)).take(pa.array(take, pa.int32()))
                yield pa.RecordBatch.from_arrays(
                    [
                        *picked.columns,
                        pa.array([plan.partitions[t][0] for t in tps], pa.string()),
                        pa.array([plan.partitions[t][1] for t in tps], pa.int32()),
                        pa.array([keys[t] for t in tps], pa.int32()),
                        pa.array(ranks, pa.int8()),
                        pa.array([seqs[i] for i in take], pa.int64()),
                        pa.array(subs, pa.int8()),
                        pa.array(halves, pa.int8()),
                    ],
                    names=[*EVENT_COLUMNS, *ROUTING_COLUMNS],
                )
        finally:
            if dead is not None:
                dead.close()
            counters.add(tuple(totals))

    return run

