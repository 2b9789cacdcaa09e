"""Routing events to (topic, partition), with broadcast, handle-key splits and column selectors."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Protocol

from ..contract.codec import Broadcast, Codec, EventPolicy
from ..model.events import DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_row_event
from ..model.table_announcement import TableAnnouncement
from .column_selectors import ColumnSelector, first_selector
from .partitioners import Partitioner
from .rules import DispatchRule, column_selectors_of, rules_from_params

from ..uris.sink_uri import SinkConfig


class Sink(Protocol):
    """What the dispatcher reads of a sink: its config and its codec. A
    :class:`cdcwire.sinks.sink.Sink` is one; the dispatcher sits below the sinks' room
    and names only what it reads."""

    @property
    def config(self) -> SinkConfig: ...

    @property
    def codec(self) -> Codec: ...


@dataclass(frozen=True, slots=True)
class Route:
    topic: str
    partition: int
    event: Event
    #: 0 the whole event; 1 the delete half, 2 the insert half of a split key-changing update
    half: int = 0


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
                build_row_event(row.commit_ts, row.schema, row.table, None, row.pre_columns, row.table_id,
                                table_schema=row.table_schema),
                build_row_event(row.commit_ts, row.schema, row.table, row.columns, None, row.table_id,
                                table_schema=row.table_schema),
            )
    return (row,)


class Dispatcher:
    """Decides topic and partition for every event of one sink (its config's rules, its
    codec's broadcast policy).

    ``partition_count(topic)`` gives the number of partitions to use for a topic
    (the sink's ``partition-num`` unless a transport knows better).

    A row's event in its routes has only the columns its table's column selector keeps
    (see :mod:`cdcwire.dispatch.column_selectors`), selected before its partition is
    computed, as the reference does. ``select_columns=False`` only checks what a selector
    must not drop and routes the rows whole: the Spark routing stage drops the columns in
    Arrow instead (:mod:`cdcwire.spark.writer.column_selection`).
    """

    def __init__(
        self,
        sink: Sink,
        partition_count: Optional[Callable[[str], int]] = None,
        rules: Optional[list[DispatchRule]] = None,
        select_columns: bool = True,
    ) -> None:
        config = sink.config
        self.default_topic = config.topic
        self.policy: EventPolicy = sink.codec.policy(config)
        if rules is None:
            rules = config.dispatch_rules or rules_from_params(config.params)
        self._rules = list(rules)
        self.column_selectors: tuple[ColumnSelector, ...] = column_selectors_of(rules)
        self.select_columns = select_columns
        num = int(config.params.get("partition-num") or 3)
        #: output-raw-change-event: key-changing updates are not split
        self.raw_changes = bool(config.params.get("output-raw-change-event"))
        self._count = partition_count or (lambda _topic: num)
        self._counts: dict[str, int] = {}
        self._tables: dict[tuple[str, str], tuple[str, Partitioner, Optional[ColumnSelector]]] = {}
        self.topics: set[str] = {self.default_topic}
        self._announced: set[tuple[str, str]] = set()  # tables whose announcement was routed

    def partitions(self, topic: str) -> int:
        n = self._counts.get(topic)
        if n is None:
            n = self._counts[topic] = self._count(topic)
        return n

    def _table(self, schema: str, table: str) -> tuple[str, Partitioner, Optional[ColumnSelector]]:
        """A table's topic, partitioner and column selector, checked together once: a selector
        that drops a column the table's ``columns`` rule hashes refuses the table (the
        reference's ``VerifyTables``), for its rows and its DDL alike."""
        key = (schema, table)
        hit = self._tables.get(key)
        if hit is None:
            rule = next((r for r in self._rules if r.matches(schema, table)), None)
            if rule is None:  # the implicit catch-all
                rule = DispatchRule(("*.*",))
            selector = first_selector(self.column_selectors, schema, table) if self.column_selectors else None
            if selector is not None and rule.hashes_named_columns:
                selector.check_hashed(schema, table, rule.columns)
            topic = rule.topic.render(schema, table) if rule.topic is not None else self.default_topic
            hit = self._tables[key] = (topic, rule.make_partitioner(), selector)
            self.topics.add(topic)
        return hit

    def selector_for(self, schema: str, table: str) -> Optional[ColumnSelector]:
        """The column selector of a table's rows, None when they keep every column."""
        if not self.column_selectors:
            return None
        return self._table(schema, table)[2]

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

    def announcements(self, event: Event) -> list[Route]:
        """The routes of a table's announcement, for a codec whose policy asks for them
        (``announce_tables``): when ``event`` is the first row of its table this dispatcher
        routes, a :class:`~cdcwire.model.table_announcement.TableAnnouncement` to every partition
        of its topic (or the first), to go before the row's own routes. Otherwise none."""
        how = self.policy.announce_tables
        if how is Broadcast.NONE or not isinstance(event, RowChangedEvent):
            return []
        key = (event.schema, event.table)
        if key in self._announced:
            return []
        self._announced.add(key)
        topic, _, selector = self._table(event.schema, event.table)
        row = event if selector is None else selector.apply(event, self.select_columns)  # the columns it is sent with
        return self._broadcast(topic, how, TableAnnouncement(row))

    def route(self, event: Event) -> list[Route]:
        if isinstance(event, RowChangedEvent):
            topic, part, selector = self._table(event.schema, event.table)
            n = self.partitions(topic)
            rows = (event,) if self.raw_changes else split_key_change(event)
            if selector is not None:  # the halves of a key change are split on the whole row, as upstream
                rows = tuple(selector.apply(row, self.select_columns) for row in rows)
            if len(rows) == 1:
                return [Route(topic, part(rows[0], n), rows[0])]
            return [Route(topic, part(row, n), row, half) for half, row in enumerate(rows, 1)]
        if isinstance(event, DDLEvent):
            return self._broadcast(self.topic_for(event.schema, event.table), self.policy.ddl, event)
        if isinstance(event, ResolvedEvent):
            routes: list[Route] = []
            for topic in sorted(self.topics):
                routes.extend(self._broadcast(topic, self.policy.resolved, event))
            return routes
        raise TypeError(f"not a cdcwire event: {event!r}")
