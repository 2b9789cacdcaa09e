"""One stream out of many partitions, in commit-ts order: what TiCDC's own Go consumer does.

Why it can be done at all (REFERENCE.md, "Ordering promises"): in a partition the first
copy of each event arrives in commit-ts order per table, and a resolved ts R comes after
every event of that partition with commit ts <= R. So once every partition has passed R,
every event with commit ts <= R has arrived: those are released sorted by commit ts, the
rest are held. A partition with no resolved ts yet holds everything back.

Delivery is at least once, and DDL and resolved events are broadcast, so what arrives
holds copies. A row or DDL event at or below its own partition's resolved ts, or at or
below what was already released, is a replay (its first copy came before that resolved
ts) and is dropped. Above it, a row is known by its place only (topic, partition, offset
and index in the message): a message read again is dropped, but two equal rows at two
places are both kept, because a table without a key can change two identical rows in one
transaction and content cannot tell that from a replay. A DDL is known by its commit ts,
table and query: its broadcast copies (one per partition, each at its own place) are one
event. Resolved events are not released one per partition:
the merged stream carries one resolved event each time the ts it released up to advances.
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass
from typing import Hashable, Optional

from ..foundation.errors import CdcwireError
from .events import DDLEvent, Event, ResolvedEvent, RowChangedEvent

PartitionKey = tuple[str, int]


class CannotOrderError(CdcwireError, ValueError):
    """The protocol sends no resolved events, so nothing says when a commit ts is complete."""


@dataclass(frozen=True, slots=True)
class Placed:
    """An event and the place of the message it came in; no place for an event the merge made
    (the resolved event that says how far the merged stream has been released)."""

    event: Event
    topic: Optional[str] = None
    partition: Optional[int] = None
    offset: Optional[int] = None
    #: The message's Kafka timestamp (ms) and headers, where the transport has them.
    timestamp: Optional[int] = None
    headers: Optional[tuple[tuple[str, Optional[bytes]], ...]] = None
    #: The event's index among the events of its message.
    index: Optional[int] = None


class ResolvedWatermarks:
    """Each partition's resolved ts (the highest seen) and the least of them over the partitions
    being followed: the ts every one of them has passed, None while one has none yet."""

    def __init__(self) -> None:
        self._ts: dict[PartitionKey, Optional[int]] = {}
        self._minimum: Optional[int] = None

    def track(self, key: PartitionKey) -> None:
        """A partition to wait for; until its first resolved event the minimum is None."""
        if key not in self._ts:
            self._ts[key] = None
            self._minimum = None

    def advance(self, key: PartitionKey, ts: int) -> bool:
        """Record a resolved ts of one partition; False when it is not past what it had (a replay)."""
        current = self._ts.get(key)
        if current is not None and ts <= current:
            return False
        self._ts[key] = ts
        values = self._ts.values()
        self._minimum = None if None in values else min(values)  # type: ignore[type-var]
        return True

    def of(self, key: PartitionKey) -> Optional[int]:
        return self._ts.get(key)

    @property
    def minimum(self) -> Optional[int]:
        return self._minimum

    def __contains__(self, key: object) -> bool:
        return key in self._ts


def identity(event: Event, topic: str, partition: int, offset: Optional[int] = None,
             index: Optional[int] = None) -> Optional[Hashable]:
    """What makes two deliveries the same event: for a row its place (topic, partition, offset,
    index in the message; None without a full place: never a copy, since equal content is not
    the same row); for a DDL its commit ts, table and query (its broadcast copies are at other
    places); for a resolved event its ts."""
    if isinstance(event, RowChangedEvent):
        if offset is None or index is None:
            return None
        return ("row", topic, partition, offset, index)
    if isinstance(event, DDLEvent):
        return ("ddl", event.commit_ts, event.schema, event.table, event.query)
    return ("resolved", event.ts)


class OrderedEvents:
    """Merges the events of many partitions into one stream in commit-ts order.

    ``add`` what each partition delivers, in its order; ``release`` gives, sorted by commit ts
    (a DDL before rows of the same ts, else in arrival order), the events every partition has
    passed, then a resolved event with that ts. ``released_up_to``: everything at or below it
    was released before (by an earlier run whose offsets are being resumed): a row or DDL
    there is a replay.
    """

    def __init__(self, released_up_to: Optional[int] = None) -> None:
        self.watermarks = ResolvedWatermarks()
        self.released_up_to = released_up_to
        #: Dropped: replays (at or below a resolved ts or what was released) and copies of held events.
        self.replays = 0
        self.copies = 0
        self._heap: list[tuple[int, int, int, Placed, Optional[Hashable]]] = []
        self._order = itertools.count()
        self._held: set[Hashable] = set()
        self._held_offsets: dict[PartitionKey, dict[int, int]] = {}

    def __len__(self) -> int:
        """How many events are held (above the ts every partition has passed)."""
        return len(self._heap)

    def track(self, topic: str, partition: int) -> None:
        """A partition to merge; it holds everything back until it delivers a resolved event."""
        self.watermarks.track((topic, partition))

    def add(self, event: Event, topic: str, partition: int, offset: Optional[int] = None,
            index: Optional[int] = None) -> bool:
        """Take one delivered event, ``index`` its place among its message's events; False when it
        was dropped (a replay, a copy, a resolved event that does not advance its partition)."""
        key = (topic, partition)
        if isinstance(event, ResolvedEvent):
            self.watermarks.track(key)
            return self.watermarks.advance(key, event.ts)
        ts = event.commit_ts
        passed = self.watermarks.of(key)
        if (passed is not None and ts <= passed) or (self.released_up_to is not None and ts <= self.released_up_to):
            self.replays += 1
            return False
        ident = identity(event, topic, partition, offset, index)
        if ident is not None:
            if ident in self._held:
                self.copies += 1
                return False
            self._held.add(ident)
        self.watermarks.track(key)
        rank = 0 if isinstance(event, DDLEvent) else 1
        placed = Placed(event, topic, partition, offset, index)
        heapq.heappush(self._heap, (ts, rank, next(self._order), placed, ident))
        if offset is not None:
            counts = self._held_offsets.setdefault(key, {})
            counts[offset] = counts.get(offset, 0) + 1
        return True

    def release(self, limit: Optional[int] = None) -> list[Placed]:
        """The held events at or below the ts every partition has passed (and at or below ``limit``),
        in commit-ts order, then one resolved event with that ts when it advanced."""
        upto = self.watermarks.minimum
        if upto is None:
            return []
        if limit is not None:
            upto = min(upto, limit)
        out: list[Placed] = []
        heap = self._heap
        while heap and heap[0][0] <= upto:
            _, _, _, placed, ident = heapq.heappop(heap)
            if ident is not None:
                self._held.discard(ident)
            if placed.offset is not None:
                self._forget_offset((placed.topic, placed.partition), placed.offset)  # type: ignore[arg-type]
            out.append(placed)
        if self.released_up_to is None or upto > self.released_up_to:
            self.released_up_to = upto
            out.append(Placed(ResolvedEvent(upto)))
        return out

    def held_offset(self, topic: str, partition: int) -> Optional[int]:
        """The lowest offset of a message of this partition with an event still held: where a
        resumed read must start so that nothing held is lost (None: nothing held)."""
        counts = self._held_offsets.get((topic, partition))
        return next(iter(counts)) if counts else None

    def _forget_offset(self, key: PartitionKey, offset: int) -> None:
        counts = self._held_offsets[key]
        left = counts[offset] - 1
        if left:
            counts[offset] = left
        else:
            del counts[offset]
