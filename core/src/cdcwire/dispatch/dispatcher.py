"""Routing events to (topic, partition), with broadcast and handle-key splits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from ..codec import Broadcast, EventPolicy
from ..events import DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_row_event
from .partitioners import Partitioner
from .rules import DispatchRule, rules_from_params

if TYPE_CHECKING:
    from ..sink import Sink


@dataclass(frozen=True, slots=True)
class Route:
    topic: str
    partition: int
    event: Event


def split_key_change(row: RowChangedEvent) -> tuple[RowChangedEvent, ...]:
    """An update that changes a handle-key value becomes delete(old) + insert(new).

    Each half is then dispatched by its own key, so every change of one key
    value stays in one partition.
    """
    if row.columns is None or row.pre_columns is None:
        return (row,)
    old = {c.name: c.value for c in row.pre_columns if c.is_handle_key}
    if not old:
        return (row,)
    for c in row.columns:
        if c.is_handle_key and (c.name not in old or old[c.name] != c.value):
            return (
                build_row_event(row.commit_ts, row.schema, row.table, None, row.pre_columns, row.table_id),
                build_row_event(row.commit_ts, row.schema, row.table, row.columns, None, row.table_id),
            )
    return (row,)


class Dispatcher:
    """Decides topic and partition for every event of one sink (its config's rules, its
    codec's broadcast policy).

    ``partition_count(topic)`` gives the number of partitions to use for a topic
    (the sink's ``partition-num`` unless a transport knows better).
    """

    def __init__(
        self,
        sink: Sink,
        partition_count: Optional[Callable[[str], int]] = None,
        rules: Optional[list[DispatchRule]] = None,
    ) -> None:
        config = sink.config
        self.default_topic = config.topic
        self.policy: EventPolicy = sink.codec.policy(config)
        if rules is None:
            rules = list(config.dispatch_rules or rules_from_params(config.params))
        self._rules = list(rules)
        num = int(config.params.get("partition-num") or 3)
        #: output-raw-change-event: key-changing updates are not split
        self.raw_changes = bool(config.params.get("output-raw-change-event"))
        self._count = partition_count or (lambda _topic: num)
        self._counts: dict[str, int] = {}
        self._tables: dict[tuple[str, str], tuple[str, Partitioner]] = {}
        self.topics: set[str] = {self.default_topic}

    def partitions(self, topic: str) -> int:
        n = self._counts.get(topic)
        if n is None:
            n = self._counts[topic] = self._count(topic)
        return n

    def _table(self, schema: str, table: str) -> tuple[str, Partitioner]:
        key = (schema, table)
        hit = self._tables.get(key)
        if hit is None:
            rule = next((r for r in self._rules if r.matches(schema, table)), None)
            if rule is None:  # the implicit catch-all
                rule = DispatchRule(("*.*",))
            topic = rule.topic.render(schema, table) if rule.topic is not None else self.default_topic
            hit = self._tables[key] = (topic, rule.make_partitioner())
            self.topics.add(topic)
        return hit

    def topic_for(self, schema: str, table: str) -> str:
        if not table:  # schema-level DDL has no table: it goes to the default topic
            return self.default_topic
        return self._table(schema, table)[0]

    def observe(self, events: Iterable[Event]) -> None:
        """Learn the topics of a stream up front, so resolved events reach all of them."""
        for e in events:
            if not isinstance(e, ResolvedEvent):
                self.topic_for(e.schema, e.table)

    def _broadcast(self, topic: str, how: Broadcast, event: Event) -> list[Route]:
        if how is Broadcast.NONE:
            return []
        if how is Broadcast.FIRST_PARTITION:
            return [Route(topic, 0, event)]
        return [Route(topic, p, event) for p in range(self.partitions(topic))]

    def route(self, event: Event) -> list[Route]:
        if isinstance(event, RowChangedEvent):
            topic, part = self._table(event.schema, event.table)
            n = self.partitions(topic)
            if self.raw_changes:
                return [Route(topic, part(event, n), event)]
            return [Route(topic, part(row, n), row) for row in split_key_change(event)]
        if isinstance(event, DDLEvent):
            return self._broadcast(self.topic_for(event.schema, event.table), self.policy.ddl, event)
        if isinstance(event, ResolvedEvent):
            routes: list[Route] = []
            for topic in sorted(self.topics):
                routes.extend(self._broadcast(topic, self.policy.resolved, event))
            return routes
        raise TypeError(f"not a cdcwire event: {event!r}")
