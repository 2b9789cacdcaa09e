"""The JVM routing tier: the routing stage as Spark SQL expressions, no Python worker.

It gives every event the routing columns the Python tier (:mod:`cdcwire.spark.writer.routing`)
gives it, byte for byte: the topic from the rule's topic expression (Kafka's name rules as
:mod:`cdcwire.uris.topics` applies them), the partition by the reference's hashes
(CRC-32 of schema + table, XOR-ed with CRC-32 of each handle-key column's name + value text,
see :mod:`cdcwire.spark.writer.sql_value_text`), DDL and resolved events broadcast per the
codec's policy, key-changing updates split into a delete and an insert half, and the
rank, sequence and sub columns the sort uses. The events never leave the JVM here; the
encoding stage is the first to convert them.

What stays in Python, and so where :func:`routing_tier` keeps the Python tier:

- a dead-letter directory: routing dead-letters records one by one, with their text;
- an input read permissively (``_malformed`` column): its records go to dead letters or fail
  with their source, which Python routing reads;
- column selectors, the ``columns`` rule, and rules files whose first rule does not match
  every table (table-filter globs per table are the Python dispatcher's).

Two implementations of the same rules: the Java tier's ``io.cdcwire.spark.RoutedCopies`` (a
pass over Spark's internal rows) routes where the session has the Java tier's jar, and these
Spark SQL expressions, the statement of every rule, route where it has not (Spark evaluates
their lambdas interpreted, row by row: three to five times the Java pass's time). The tests
hold both to the Python tier.

Malformed rows are still refused: a row the expressions cannot place (no kind, no commit ts,
a row without schema, table or image) goes to the first topic-partition, and the encoding
stage checks every batch of this tier (``EncodingTask.checks_rows``) with the same checks
and the same error as Python routing. Events the protocol has no message for become count
rows (``_cdc_counts`` set), as the Python tier's counts travel; the encoding stage counts the
routed copies themselves.
"""

from __future__ import annotations

import json
import re
from typing import Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ...contract.codec import Broadcast
from ...foundation.errors import CdcwireError
from ...dispatch.rules import DispatchRule, column_selectors_of, rules_from_params
from ...sinks.sink import Sink
from ..jvm.jar import ROUTED_COPIES, java_class
from ..rows.schema import EVENT_COLUMNS
from ..runtime.tiers import tier_setting
from ..runtime.job_errors import raised_in_sql
from .routing import ROUTED_SCHEMA, RoutePlan, UnplannedTopicError
from .routing_counts import COUNTS_COLUMN, COUNTS_TYPE, COUNTERS
from .sql_value_text import hash_text

#: The session setting that picks the routing tier: ``auto`` (the JVM tier where it serves)
#: or ``python`` (always the Python tier).
TIER_SETTING = "spark.cdcwire.routing"
_HANDLE_KEY = 0x02  # ColumnFlag.HANDLE_KEY
_UNSAFE = "[^A-Za-z0-9._-]"
_ROW_KINDS = ("insert", "update", "delete")


def sink_rules(sink: Sink) -> list[DispatchRule]:
    """The rules the sink's dispatcher uses (see :class:`cdcwire.dispatch.Dispatcher`)."""
    config = sink.config
    return list(config.dispatch_rules or rules_from_params(config.params))


def jvm_tier_refusal(sink: Sink, df: DataFrame, dead_letter: Optional[str]) -> Optional[str]:
    """Why the JVM tier cannot route this write, or None when it can."""
    if dead_letter:
        return "the write has a dead-letter directory (records are dead-lettered one by one in Python)"
    if "_malformed" in df.columns:
        return "the input was read permissively (its malformed records carry their source to Python)"
    rules = sink_rules(sink)
    if column_selectors_of(rules):
        return "the sink has column selectors"
    if rules and rules[0].matchers != ("*.*",):
        return "the sink's first dispatch rule does not match every table"
    if rules and rules[0].hashes_named_columns:
        return "the sink's partition rule is 'columns'"
    return None


def routing_tier(sink: Sink, df: DataFrame, dead_letter: Optional[str]) -> tuple[str, str]:
    """The tier that routes a write, ``"jvm"`` or ``"python"``, and why: the one place it is chosen."""
    if tier_setting(df.sparkSession, TIER_SETTING, "routing") == "python":
        return "python", f"{TIER_SETTING}=python"
    refusal = jvm_tier_refusal(sink, df, dead_letter)
    if refusal is not None:
        return "python", refusal
    return "jvm", "every rule of the sink has an expression"


def _lit_map(pairs: dict) -> Column:
    items = [F.lit(x) for kv in pairs.items() for x in kv]
    return F.create_map(*items)


class _Routes:
    """The route expressions of one sink and plan."""

    def __init__(self, sink: Sink, plan: RoutePlan) -> None:
        config = sink.config
        rules = sink_rules(sink)
        self.rule = rules[0] if rules else DispatchRule(("*.*",))
        self.policy = sink.codec.policy(config)
        self.raw_changes = bool(config.params.get("output-raw-change-event"))
        self.default_topic = config.topic
        self.plan = plan
        index = plan.index()
        self.base = _lit_map({t: index[(t, 0)] for t in plan.partition_counts if plan.partition_counts[t]})
        self.counts = _lit_map(dict(plan.partition_counts))
        self.keys = F.array(*(F.lit(k) for k in plan.shuffle_keys))

    def table_topic(self, schema: Column, table: Column) -> Column:
        """:meth:`cdcwire.uris.topics.TopicExpression.render`, names made safe first."""
        expr = self.rule.topic
        if expr is None:
            return F.lit(self.default_topic)
        names = {
            "{schema}": F.regexp_replace(F.coalesce(schema, F.lit("")), _UNSAFE, "_"),
            "{table}": F.regexp_replace(F.coalesce(table, F.lit("")), _UNSAFE, "_"),
        }
        pieces = [names.get(p, F.lit(p)) for p in re.split(r"(\{schema\}|\{table\})", expr.text) if p]
        topic = F.concat(*pieces) if pieces else F.lit("")
        return F.when(topic == ".", F.lit("_")).when(topic == "..", F.lit("__")).otherwise(topic)

    def ddl_topic(self) -> Column:
        """A schema-level DDL (no table) goes to the default topic."""
        table = F.col("table")
        return F.when(table.isNull() | (table == ""), F.lit(self.default_topic)).otherwise(
            self.table_topic(F.col("schema"), table)
        )

    def partition(self, image: Column, n: Column) -> Column:
        """:mod:`cdcwire.dispatch.partitioners` over one image."""
        rule = self.rule.partition
        if rule == "ts":
            return F.pmod(F.col("commit_ts"), n).cast("int")
        table_crc = F.crc32(F.concat(F.col("schema"), F.col("table")).cast("binary"))
        if rule in ("index-value", "rowid"):
            keys = F.filter(image, lambda c: c["flags"].bitwiseAND(_HANDLE_KEY) != 0)
            table_crc = F.aggregate(
                keys,
                table_crc,
                lambda h, c: h.bitwiseXOR(F.crc32(F.concat(c["name"].cast("binary"), hash_text(c)))),
            )
        return F.pmod(table_crc, n).cast("int")

    @staticmethod
    def _route(topic: Column, partition: Column, sub: int | Column, half: int) -> Column:
        return F.struct(
            topic.alias("topic"),
            partition.cast("int").alias("partition"),
            F.lit(sub).cast("byte").alias("sub") if isinstance(sub, int) else sub.cast("byte").alias("sub"),
            F.lit(half).cast("byte").alias("half"),
        )

    def row_routes(self) -> Column:
        """One route, or the two halves of a key-changing update (``split_key_change``)."""
        topic = self.table_topic(F.col("schema"), F.col("table"))
        n = F.try_element_at(self.counts, topic)
        new, old = F.col("columns"), F.col("pre_columns")
        whole = F.array(self._route(topic, self.partition(F.coalesce(new, old), n), 0, 0))
        if self.raw_changes:
            return whole
        halves = F.array(
            self._route(topic, self.partition(old, n), 0, 1), self._route(topic, self.partition(new, n), 1, 2)
        )
        return F.when(_key_changes(new, old), halves).otherwise(whole)

    def _broadcast(self, topic: str | Column, how: Broadcast, first_sub: int | Column = 0) -> Column:
        t = F.lit(topic) if isinstance(topic, str) else topic
        if how is Broadcast.NONE:
            return F.array().cast("array<struct<topic:string,partition:int,sub:tinyint,half:tinyint>>")
        if how is Broadcast.FIRST_PARTITION:
            return F.array(self._route(t, F.lit(0), first_sub, 0))
        n = F.try_element_at(self.counts, t)
        every = F.transform(F.sequence(F.lit(0), n - 1), lambda p: self._route(t, p, p + first_sub, 0))
        # an unplanned topic keeps one route, whose shuffle key then fails the job as Python routing does
        return F.when(n.isNull(), F.array(self._route(t, F.lit(0), first_sub, 0))).otherwise(every)

    def ddl_routes(self) -> Column:
        return self._broadcast(self.ddl_topic(), self.policy.ddl)

    def resolved_routes(self) -> Column:
        """Every planned topic in name order, subs counted across them (as the dispatcher lists them)."""
        parts, sub = [], 0
        for topic in sorted(self.plan.partition_counts):
            parts.append(self._broadcast(topic, self.policy.resolved, sub))
            how = self.policy.resolved
            sub += 0 if how is Broadcast.NONE else 1 if how is Broadcast.FIRST_PARTITION else self.plan.partition_counts[topic]
        return F.concat(*parts) if parts else self._broadcast("", Broadcast.NONE)

    def routes(self) -> Column:
        kind = F.col("kind")
        first_topic, first_partition = self.plan.partitions[0]
        to_check = F.array(self._route(F.lit(first_topic), F.lit(first_partition), 0, 0))
        unplaceable = (
            kind.isNull()
            | ~kind.isin("insert", "update", "delete", "ddl", "resolved")
            | F.col("commit_ts").isNull()
            | (kind.isin(*_ROW_KINDS) & (
                F.col("schema").isNull() | F.col("table").isNull()
                | F.coalesce(F.col("columns"), F.col("pre_columns")).isNull()
                | ((kind == "update") & (F.col("columns").isNull() | F.col("pre_columns").isNull()))
            ))
        )
        return (
            F.when(unplaceable, to_check)
            .when(kind == "ddl", self.ddl_routes())
            .when(kind == "resolved", self.resolved_routes())
            .otherwise(self.row_routes())
        )

    def shuffle_key(self, topic: Column, partition: Column) -> Column:
        base = F.try_element_at(self.base, topic)
        return F.when(
            base.isNull(),
            raised_in_sql(UnplannedTopicError, F.concat(
                F.lit("an event routes to topic '"), topic,
                F.lit("', which was not planned: the input gave other rows when the topics were planned"
                      " (read it once, e.g. df.cache(), or from a bounded source)"),
            )),
        ).otherwise(F.element_at(self.keys, base + partition + 1))


def _value_equal(a: Column, b: Column) -> Column:
    """Python's ``==`` of two VALUE structs' values (None, int, float, str, bytes): numbers by
    value across fields (NaN equal to nothing), text and bytes only to their own kind."""
    def none(v: Column) -> Column:
        return v.isNull() | (
            v["int"].isNull() & v["uint"].isNull() & v["double"].isNull() & v["string"].isNull() & v["binary"].isNull()
        )

    def integer(v: Column) -> Column:
        return F.coalesce(v["int"].cast("decimal(20,0)"), v["uint"])

    return (
        (none(a) & none(b))
        | F.coalesce(a["string"] == b["string"], F.lit(False))
        | F.coalesce(a["binary"] == b["binary"], F.lit(False))
        | F.coalesce(integer(a) == integer(b), F.lit(False))
        | F.coalesce((a["double"] == b["double"]) & ~F.isnan(a["double"]), F.lit(False))
        | F.coalesce(integer(a).cast("double") == b["double"], F.lit(False))
        | F.coalesce(a["double"] == integer(b).cast("double"), F.lit(False))
    )


def _key_changes(new: Column, old: Column) -> Column:
    """:func:`cdcwire.dispatch.dispatcher.split_key_change`'s test: an update with handle-key
    columns in its old image whose new image has a handle-key column that is new or changed."""
    def keys(image: Column) -> Column:
        return F.filter(image, lambda c: c["flags"].bitwiseAND(_HANDLE_KEY) != 0)

    old_keys = keys(old)
    changed = F.exists(
        keys(new),
        lambda c: ~F.exists(old_keys, lambda o: (o["name"] == c["name"]) & _value_equal(o["value"], c["value"])),
    )
    return new.isNotNull() & old.isNotNull() & (F.size(old_keys) > 0) & changed


def jvm_routed(events: DataFrame, sink: Sink, plan: RoutePlan, java: Optional[bool] = None) -> DataFrame:
    """The routed copies of ``events`` (event columns and ``_cdc_seq``), as the Python tier's
    routing stage gives them (:data:`cdcwire.spark.writer.routing.ROUTED_SCHEMA`). ``java``:
    route with the Java tier's pass (None: where the session has its jar) or the SQL expressions."""
    router = java_class(events.sparkSession, ROUTED_COPIES) if java is not False else None
    if java and router is None:
        raise CdcwireError("the Java tier's routing is not on this session's classpath (spark.jars)")
    if router is not None:
        return _java_routed(events, sink, plan, router)
    r = _Routes(sink, plan)
    kind = F.col("kind")
    rank = F.when(kind == "ddl", 0).when(kind == "resolved", 2).otherwise(1).cast("byte")
    exploded = events.select(*(F.col(f"`{c}`") for c in EVENT_COLUMNS), "_cdc_seq", rank.alias("_cdc_rank"),
                             F.explode_outer(r.routes()).alias("_route"))
    route = F.col("_route")
    no_message = route.isNull()
    first_topic, first_partition = plan.partitions[0]
    topic = F.coalesce(route["topic"], F.lit(first_topic))
    partition = F.coalesce(route["partition"], F.lit(first_partition))
    marker = F.struct(*(F.lit(1 if name in ("events_in", "without_message") else 0).cast("long").alias(name)
                        for name in COUNTERS))
    return exploded.select(
        *(F.col(f"`{c}`") for c in EVENT_COLUMNS),  # a count row's columns are never read
        topic.alias("_cdc_topic"),
        partition.alias("_cdc_partition"),
        r.shuffle_key(topic, partition).cast("int").alias("_cdc_key"),
        F.when(no_message, F.lit(3)).otherwise(F.col("_cdc_rank")).cast("byte").alias("_cdc_rank"),
        F.when(no_message, F.lit(-1)).otherwise(F.col("_cdc_seq")).cast("long").alias("_cdc_seq"),
        F.coalesce(route["sub"], F.lit(0)).cast("byte").alias("_cdc_sub"),
        F.coalesce(route["half"], F.lit(0)).cast("byte").alias("_cdc_half"),
        F.when(no_message, marker).otherwise(F.lit(None).cast(COUNTS_TYPE)).alias(COUNTS_COLUMN),
    )


def route_config(sink: Sink, plan: RoutePlan) -> str:
    """The plan as the Java router reads it: the JSON text ``RoutedCopies`` is made with."""
    r = _Routes(sink, plan)
    expr = r.rule.topic
    pieces = None
    if expr is not None:
        names = {"{schema}": ["schema"], "{table}": ["table"]}
        pieces = [names.get(p, ["lit", p]) for p in re.split(r"(\{schema\}|\{table\})", expr.text) if p]
    index = plan.index()
    counts = plan.partition_counts
    return json.dumps({
        "pieces": pieces,
        "default_topic": r.default_topic,
        "rule": r.rule.partition,
        "ddl": r.policy.ddl.value,  # Broadcast: "all", "first" or "none", as RoutedCopies reads them
        "resolved": r.policy.resolved.value,
        "raw_changes": r.raw_changes,
        "topics": [[t, counts[t], index[(t, 0)] if counts[t] else None] for t in sorted(counts)],
        "keys": list(plan.shuffle_keys),
        "first": list(plan.partitions[0]),
        "unplanned_error": f"{UnplannedTopicError.__module__}.{UnplannedTopicError.__qualname__}",
    })


def _java_routed(events: DataFrame, sink: Sink, plan: RoutePlan, router) -> DataFrame:
    """:func:`jvm_routed` by the Java tier: a pass over the internal rows of ``events`` (whose
    columns are the event columns in order, then ``_cdc_seq``), back into a DataFrame."""
    spark = events.sparkSession
    events = events.select(*(F.col(f"`{c}`") for c in EVENT_COLUMNS), "_cdc_seq")
    jdf = events._jdf
    output = spark._jsparkSession.parseDataType(ROUTED_SCHEMA.json())
    rows = jdf.queryExecution().toRdd().toJavaRDD().mapPartitions(router(route_config(sink, plan), jdf.schema(), output))
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows.rdd(), output, False), spark)
