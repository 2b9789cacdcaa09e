"""Following a source: its events as they are written, for as long as the caller wants them.

    with cdcwire.follow("kafka://host:9092/orders?protocol=canal-json&enable-tidb-extension=true",
                        ordered=True, group="audit") as events:
        for event in events:
            ...

Every transport's reader is bounded (a read ends at the high watermark of its call), so
following is a loop over bounded reads: each partition's watermark is polled and each new
range read through the transport's :class:`~cdcwire.contract.transport.MessageReader`, on any
transport (``kafka://``, ``file://``). Topics that a pattern names and partitions that
appear while following are picked up, read from their beginning.

Unordered (the default), events come as each partition delivers them, partition after
partition; a broadcast DDL or resolved event is given once (its first copy), and replays
of rows pass through. ``ordered=True`` merges the partitions into one stream in commit-ts
order, released up to the resolved ts every partition has passed, replays and copies
dropped (:mod:`cdcwire.model.ordered_events`): protocols that send no resolved events cannot be
ordered this way and are refused up front.

``group``: a consumer group, on a transport that keeps them (``kafka://``; see
:class:`~cdcwire.contract.transport.OffsetsCapability`, which a start at a time needs too). Reading
starts from the group's committed offsets and commits after each batch the caller has taken: delivery is at least once (an event handed
out but not yet committed when the follower stops without closing comes again). Ordered,
the commit also records the ts released so far, and a resumed follower drops what was
released before it.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, Iterator, Optional, Sequence, Union

from ..foundation.bounded_cache import BoundedCache
from ..contract.codec import Broadcast
from ..transports.data_loss import checked_offset
from ..foundation.errors import CdcwireError, TransportError
from ..model.events import DDLEvent, Event, ResolvedEvent
from ..model.message import Message
from ..model.ordered_events import CannotOrderError, OrderedEvents, PartitionKey, Placed, ResolvedWatermarks
from .poll_decoding import PollDecoder
from ..sinks.sink import SinkLike, open_sink
from ..foundation.time_points import TIME_FORMS_BESIDE_OFFSETS, TimeError, parse_time
from ..uris.topic_selection import select_topics
from ..contract.transport import OffsetsCapability, lacks_offsets
from .storage_following import STORAGE_FOLLOW_OPTIONS, StorageFollower
from ..transports.storage.location import is_storage_uri

log = logging.getLogger(__name__)

#: The metadata a group commit of an ordered follower carries: the ts it released up to.
RELEASED_METADATA = "cdcwire-released:"
#: The most messages read from one partition in one round before the next partition's turn.
MESSAGES_PER_READ = 5000


class FollowError(CdcwireError, ValueError):
    """A follow that cannot be set up as asked (a start position, an option the transport lacks)."""


@dataclass(frozen=True, slots=True)
class StartAt:
    """Where reading starts in each partition: ``beginning``, ``end``, ``offset`` (``value`` >= 0,
    or < 0 for that many messages before the end) or ``timestamp`` (``value`` in ms; a transport
    that offers :class:`~cdcwire.contract.transport.OffsetsCapability` only)."""

    kind: str
    value: int = 0

    @classmethod
    def parse(cls, text: Union[str, int, "StartAt"]) -> "StartAt":
        """``beginning``, ``end``, ``OFFSET`` (``-N``: the last N of each partition), or a time
        (:mod:`cdcwire.foundation.time_points`: ``@MS``, ISO-8601, ``tso:N``; a bare number is an offset)."""
        if isinstance(text, StartAt):
            return text
        if isinstance(text, int) and not isinstance(text, bool):
            return cls("offset", text)
        word = str(text).strip()
        if word in ("beginning", "end"):
            return cls(word)
        if word.lstrip("-").isascii() and word.lstrip("-").isdigit() and word.count("-") <= 1:
            return cls("offset", int(word))
        try:
            return cls("timestamp", parse_time(word, "start position", bare_number="").ms)
        except TimeError:
            raise FollowError(
                f"start position {word!r} is not 'beginning', 'end', an offset (-N: the last N messages)"
                f" or a time: {TIME_FORMS_BESIDE_OFFSETS}"
            ) from None


@dataclass(frozen=True, slots=True)
class FollowOptions:
    """How to follow a source, read once and checked in one place (:func:`follow` and
    :class:`Follower` both take it, so a parameter is named, defaulted and validated once).

    ``topics``: names and patterns (:func:`cdcwire.uris.topic_selection.select_topics`; new matches
    are picked up). ``partitions``: only these. ``tables``: a TiDB table filter. ``start``:
    ``"beginning"``, ``"end"``, an offset (``-N``: the last N of each partition) or a time
    (``"@MS"``, ISO-8601 or ``"tso:N"``, :mod:`cdcwire.foundation.time_points`; on a transport with
    :class:`~cdcwire.contract.transport.OffsetsCapability`, such as ``kafka://``). ``until``: end once
    every partition's resolved ts has reached this time (a TSO, or a text in any of the time
    forms; events above it are not given). ``exit_at_end``: end once a round of reads finds
    nothing new in any partition (``kcat -e``). ``count``: end after this many events.
    ``group``: a consumer group (committed offsets, at least once; a transport with
    :class:`~cdcwire.contract.transport.OffsetsCapability`). ``ordered``: one stream in commit-ts order
    (:mod:`cdcwire.model.ordered_events`). ``poll_interval``: seconds between rounds that found
    nothing. ``skip_undecodable``: count and skip a message that does not decode.
    ``broadcast_copies``: unordered, every copy of a broadcast DDL or resolved event, as
    delivered. ``fail_on_data_loss`` (default True): a partition that no longer holds the offset
    it is followed from (retention), or ends before it (the topic was deleted and written
    again), is a :class:`~cdcwire.transports.data_loss.DataLossError`; False: one warning, and it is
    followed on from its earliest offset.

    ``start`` becomes a :class:`StartAt`, ``until`` a TSO and ``partitions`` a tuple; a value
    out of range is a :class:`FollowError` here, before any connection.
    """

    topics: Optional[Union[str, Sequence[str]]] = None
    partitions: Optional[Sequence[int]] = None
    tables: Optional[Union[str, Sequence[str]]] = None
    start: Union[str, int, StartAt] = "beginning"
    until: Optional[Union[int, str]] = None
    count: Optional[int] = None
    group: Optional[str] = None
    ordered: bool = False
    poll_interval: float = 0.5
    skip_undecodable: bool = False
    broadcast_copies: bool = False
    fail_on_data_loss: bool = True
    exit_at_end: bool = False

    def __post_init__(self) -> None:
        until = self.until
        if isinstance(until, str):
            until = parse_time(until, "until").tso
        if self.count is not None and self.count < 1:
            raise FollowError(f"count must be at least 1, got {self.count}")
        if until is not None and not 0 <= until < 2**64:
            raise FollowError(f"until must be a ts (0..2^64-1), got {until}")
        if not self.poll_interval > 0:
            raise FollowError(f"poll_interval must be a positive number of seconds, got {self.poll_interval}")
        if self.ordered and self.broadcast_copies:
            raise FollowError("an ordered stream gives each broadcast event once: broadcast_copies needs ordered=False")
        if self.group is not None and not self.group.strip():
            raise FollowError("group must be a consumer group id, not empty")
        object.__setattr__(self, "until", until)
        object.__setattr__(self, "start", StartAt.parse(self.start))
        object.__setattr__(self, "poll_interval", float(self.poll_interval))
        object.__setattr__(self, "partitions", tuple(self.partitions) if self.partitions else None)

    def offsets_needed_for(self) -> Optional[str]:
        """What of these options needs the transport's :class:`~cdcwire.contract.transport.OffsetsCapability`
        (to say so when it lacks it), or None."""
        if self.group is not None:
            return "a consumer group (group=, --group)"
        if isinstance(self.start, StartAt) and self.start.kind == "timestamp":
            return "a start at a time (start=, --from @MS, ISO-8601 or tso:N)"
        return None


class _FirstCopies:
    """Unordered following gives a broadcast DDL or resolved event once: its first copy.

    A later copy is recognised while it can still come: until every partition's resolved ts
    has passed the event's ts. Past that, a copy is a replay and is dropped as well, so what
    is remembered stays small; a protocol with no resolved events keeps a bounded cache.
    """

    def __init__(self, watermarks: ResolvedWatermarks) -> None:
        self._watermarks = watermarks
        self._seen: BoundedCache[Any, int] = BoundedCache()
        self.copies = 0

    def first(self, event: Event) -> bool:
        if isinstance(event, DDLEvent):
            key: Any = (event.commit_ts, event.schema, event.table, event.query)
        elif isinstance(event, ResolvedEvent):
            key = event.ts
        else:
            return True
        floor = self._watermarks.minimum
        if key in self._seen or (floor is not None and event.commit_ts <= floor):
            self.copies += 1
            return False
        self._seen.remember(key, event.commit_ts)
        return True

    def prune(self) -> None:
        """Forget what every partition has passed (called when the least resolved ts advanced)."""
        floor = self._watermarks.minimum
        if floor is not None and self._seen:
            for key in [k for k, ts in self._seen.items() if ts <= floor]:
                del self._seen[key]


class Follower:
    """Follows a source (see :func:`follow`); iterate it for events, :meth:`placed` for events
    with their message's place. Use it as a context manager (or call :meth:`close`): leaving
    the block commits a group's offsets for what was taken and closes the clients.

    Counters for a summary: ``events`` handed out, ``messages`` read, ``skipped``
    (undecodable, with ``skip_undecodable``), ``last_offsets`` per ``(topic, partition)``,
    :attr:`resolved_ts` (the least resolved ts over the partitions followed), ``stopped_by``.
    """

    def __init__(self, source_uri: SinkLike, options: Optional[FollowOptions] = None, **keywords: Any) -> None:
        if options is None:
            options = FollowOptions(**keywords)
        elif keywords:
            raise TypeError(f"Follower takes FollowOptions or keywords, not both (got {', '.join(sorted(keywords))})")
        self.options = options
        self.sink = open_sink(source_uri)
        self.start: StartAt = options.start  # type: ignore[assignment]
        self.fail_on_data_loss = options.fail_on_data_loss
        self.until: Optional[int] = options.until  # type: ignore[assignment]
        self.count = options.count
        self.exit_at_end = options.exit_at_end
        self.poll_interval = options.poll_interval
        ordered, group = options.ordered, options.group
        if ordered or self.until is not None:
            self._needs_resolved_events(ordered)
        self._topics_spec = options.topics
        self._partitions_spec = list(options.partitions) if options.partitions else None
        self._decode = PollDecoder(self.sink, skip_undecodable=options.skip_undecodable, tables=options.tables)
        self._merger: Optional[OrderedEvents] = OrderedEvents() if ordered else None
        self._watermarks = self._merger.watermarks if self._merger is not None else ResolvedWatermarks()
        self._copies = None if (ordered or options.broadcast_copies) else _FirstCopies(self._watermarks)
        self._next: dict[PartitionKey, int] = {}
        self._committed: dict[PartitionKey, int] = {}
        self._committed_metadata: Optional[str] = None
        self._outbox: deque[Placed] = deque()
        self._handed: Optional[Placed] = None
        self._released_handed: Optional[int] = None
        self._stopping = threading.Event()
        self._started = False
        self._closed = False
        self._processed_on_close = False
        self._gen: Optional[Iterator[Placed]] = None
        self.events = 0
        self.messages = 0
        self.last_offsets: dict[PartitionKey, int] = {}
        #: Offsets asked for that the partition no longer held (retention), per partition.
        self.gone: dict[PartitionKey, int] = {}
        self.stopped_by: Optional[str] = None
        transport = self.sink.needs_transport()
        self._reader: Any = None
        self._offsets: Optional[OffsetsCapability] = None
        try:
            needs = options.offsets_needed_for()
            if needs is not None:
                self._offsets = transport.offsets(self.sink.config, group)
                if self._offsets is None:
                    raise FollowError(lacks_offsets(self.sink.config.scheme, needs))
            self._reader = transport.reader(self.sink.config)
            self._begin(self._discover(strict=True), initial=True)
            #: Where each partition followed from the start began (its next offset then).
            self.starts: dict[PartitionKey, int] = dict(self._next)
        except BaseException:
            self._close_clients()
            raise

    # --- set-up ---------------------------------------------------------------------------

    def _needs_resolved_events(self, ordered: bool) -> None:
        """Ordering and ``until`` read resolved events: a codec that declares none cannot have them."""
        if self.sink.codec.policy(self.sink.config).resolved is not Broadcast.NONE:
            return
        if ordered:
            cannot = "its partitions cannot be merged in commit-ts order (ordered=True, --ordered). Follow it unordered"
        else:
            cannot = "it cannot be followed until a resolved ts (until=, --until). Follow it without one"
        raise CannotOrderError(
            f"protocol {self.sink.config.protocol!r} sends no resolved events with these parameters, so nothing"
            f" says when every event up to a commit ts has arrived: {cannot}, or have it written with parameters"
            " that send resolved events"
        )

    def _discover(self, strict: bool) -> list[PartitionKey]:
        """Partitions of the chosen topics not followed yet. A topic the source does not hold
        (yet: a writer may be creating it) has none, and is followed once it appears. At the
        start a pattern matching nothing, or a topic that is there but cannot be listed, is an
        error; later they are simply not there yet. With ``exit_at_end`` a topic missing at the
        start is an error too (as ``inspect`` says): there is no end to read to, and "0 events"
        would hide a misspelt name."""
        try:
            topics = select_topics(self._topics_spec, self.sink.topic, self._reader.topics)
        except CdcwireError:
            if strict:
                raise
            return []
        new: list[PartitionKey] = []
        for topic in topics:
            try:
                found = self._partitions_spec or self._reader.partitions(topic)
            except TransportError as exc:
                if strict and topic in self._reader.topics():
                    raise
                if strict and self.exit_at_end:
                    raise TransportError(f"{exc}: nothing to read to its end (-e); check the name, or follow"
                                         " without -e to wait for it to be written") from None
                if strict:
                    log.info("topic %r does not exist yet: it is followed once it appears", topic)
                continue
            new.extend((topic, p) for p in found if (topic, p) not in self._next)
        return new

    def _begin(self, keys: list[PartitionKey], initial: bool) -> None:
        """Where each new partition starts: the group's committed offset, else the start position
        (partitions that appear later: their beginning)."""
        if not keys:
            return
        committed = self._offsets.committed(keys) if self._offsets and self._offsets.group else {}
        start = self.start if initial else StartAt("beginning")
        times = self._offsets.at_time(keys, start.value) if self._offsets and start.kind == "timestamp" else {}
        if initial and self._merger is not None and committed:
            released = [_released_of(metadata) for _, metadata in committed.values()]
            if None not in released:
                self._merger.released_up_to = self._released_handed = min(released)  # type: ignore[type-var]
        for key in keys:
            low, high = self._reader.watermarks(*key)
            if key in committed:
                offset = committed[key][0]
                self._committed[key] = offset
            elif start.kind == "end":
                offset = high
            elif start.kind == "offset":
                offset = start.value if start.value >= 0 else max(low, high + start.value)
            elif start.kind == "timestamp":
                at = times.get(key)
                offset = high if at is None else at
            else:
                offset = low
            self._next[key] = offset
            self._watermarks.track(key)
            if not initial:
                log.info("following %s/%d from offset %d (it appeared while following)", key[0], key[1], offset)
        if committed:
            self._committed_metadata = next(iter(committed.values()))[1]

    # --- the loop -------------------------------------------------------------------------

    def __iter__(self) -> Iterator[Event]:
        return (placed.event for placed in self.placed())

    def placed(self) -> Iterator[Placed]:
        """The events with the place (topic, partition, offset) of the message each came in;
        an ordered stream's own resolved events have none."""
        if self._gen is not None or self._closed:
            raise FollowError("a Follower is iterated once")
        self._gen = self._run()
        return self._gen

    def _run(self) -> Iterator[Placed]:
        self._started = True
        failed = False
        try:
            yield from self._loop()
        except GeneratorExit:
            raise
        except BaseException:
            failed = True
            raise
        finally:
            try:
                self._commit(handed_done=self._processed_on_close)
            except CdcwireError as exc:
                if not failed:
                    raise
                log.warning("after the error, committing the group's offsets failed too: %s", exc)
            finally:
                self._close_clients()

    def _loop(self) -> Iterator[Placed]:
        until_reached = self._merger is not None and self._reached_until(self._merger.released_up_to)
        if until_reached:
            self._end("until")
        while not self._stopping.is_set():
            took = 0
            for key in list(self._next):
                took += yield from self._take(key)
                if self._stopping.is_set():
                    break
                self._commit()  # the caller came back after the batch's last event: it has them
            if self._stopping.is_set():
                break
            # after the reads: a topic created before a resolved ts just read is seen now, and holds it back
            self._begin(self._discover(strict=False), initial=False)
            if self._merger is not None:
                yield from self._hand_out(self._merger.release(self.until))
                if self._reached_until(self._released_handed):
                    self._end("until")
                    break
                self._commit()
            elif self._pending_until():
                self._end("until")
                break
            if not took and self.exit_at_end and not self._outbox:
                self._end("end")  # a round read nothing: every partition is at its end
                break
            if not took and self._stopping.wait(self.poll_interval):
                break

    def _take(self, key: PartitionKey) -> Iterator[Placed]:
        """Read what one partition gained since the last look, handing its events out as they come;
        returns how many messages were read."""
        topic, partition = key
        low, high = self._reader.watermarks(topic, partition)
        begin = self._next[key]
        if not low <= begin <= high:
            checked_offset(
                topic, partition, begin, low, high, fail=self.fail_on_data_loss,
                accept="pass fail_on_data_loss=False (cdcwire follow --fail-on-data-loss false)",
            )
            if begin < low:
                self.gone[key] = self.gone.get(key, 0) + low - begin
            begin = self._next[key] = low
        if high <= begin:
            return 0
        # a bounded bite per partition and round: every partition moves on, and held events stay few
        read = self._reader.read(topic, partition, begin, min(high, begin + MESSAGES_PER_READ))
        taken = 0
        try:
            for message in read:
                taken += 1
                self.messages += 1
                self._route(self._decode(message), message)
                self._next[key] = int(message.offset) + 1  # type: ignore[arg-type]
                self.last_offsets[key] = int(message.offset)  # type: ignore[arg-type]
                yield from self._hand_out()
                if self._merger is None and self._pending_until():
                    self._end("until")
                if self._stopping.is_set():
                    break
        finally:
            close = getattr(read, "close", None)
            if close is not None:
                close()
        return taken

    def _route(self, events: list[Event], message: Message) -> None:
        key = (message.topic, message.partition)
        for index, event in enumerate(events):
            if self._merger is not None:
                self._merger.add(event, message.topic, message.partition, message.offset, index)
                continue
            first = self._copies is None or self._copies.first(event)
            if isinstance(event, ResolvedEvent) and self._watermarks.advance(key, event.ts) and self._copies is not None:
                self._copies.prune()
            if first and (self.until is None or event.commit_ts <= self.until):
                self._outbox.append(Placed(
                    event, message.topic, message.partition, message.offset, message.timestamp, message.headers
                ))

    def _hand_out(self, released: Sequence[Placed] = ()) -> Iterator[Placed]:
        outbox = self._outbox
        outbox.extend(released)
        while outbox and not self._stopping.is_set():
            placed = outbox.popleft()
            self._handed = placed
            self.events += 1
            yield placed
            self._taken(placed)
            if self.count is not None and self.events >= self.count:
                self._end("count")

    def _taken(self, placed: Placed) -> None:
        """The caller came back for more: it is done with ``placed``."""
        self._handed = None
        if placed.topic is None and isinstance(placed.event, ResolvedEvent):
            self._released_handed = placed.event.ts

    def _pending_until(self) -> bool:
        """Unordered: every partition's resolved ts has reached ``until`` and what came before is out."""
        return not self._outbox and self._reached_until(self._watermarks.minimum)

    def _reached_until(self, ts: Optional[int]) -> bool:
        return self.until is not None and ts is not None and ts >= self.until

    def _end(self, reason: str) -> None:
        if self.stopped_by is None:
            self.stopped_by = reason
        self._stopping.set()

    # --- commits --------------------------------------------------------------------------

    def positions(self, handed_done: bool = False) -> dict[PartitionKey, int]:
        """Per partition, where a resumed read must start so that nothing not yet taken is lost:
        the next offset to read, or the earliest message with an event still held or not yet
        handed out (``handed_done``: the event being handed out counts as taken)."""
        pos = dict(self._next)

        def lower(key: PartitionKey, offset: Optional[int]) -> None:
            if offset is not None and key in pos and offset < pos[key]:
                pos[key] = offset

        if self._merger is not None:
            for key in pos:
                lower(key, self._merger.held_offset(*key))
        for placed in self._outbox:
            if placed.topic is not None:
                lower((placed.topic, placed.partition), placed.offset)  # type: ignore[arg-type]
        handed = self._handed
        if handed is not None and handed.topic is not None and not handed_done:
            lower((handed.topic, handed.partition), handed.offset)  # type: ignore[arg-type]
        return pos

    def _commit(self, handed_done: bool = False) -> None:
        if self._offsets is None or self._offsets.group is None:
            return
        released = self._released_handed
        handed = self._handed
        if handed_done and handed is not None and handed.topic is None and isinstance(handed.event, ResolvedEvent):
            released = handed.event.ts
        metadata = None if self._merger is None or released is None else f"{RELEASED_METADATA}{released}"
        positions = self.positions(handed_done)
        if positions == self._committed and metadata == self._committed_metadata:
            return
        self._offsets.commit(positions, metadata)
        self._committed, self._committed_metadata = positions, metadata

    # --- the end --------------------------------------------------------------------------

    def stop(self, reason: str = "stop()") -> None:
        """End the iteration at the next check (within a poll interval); safe from a signal
        handler or another thread. What was taken is committed when the iteration ends."""
        self._end(reason)

    def close(self, processed: bool = True) -> None:
        """Stop, commit the group's offsets and close the clients. ``processed``: the event handed
        out last was dealt with (False: it is not committed and comes again on resume)."""
        if self._closed:
            return
        self._processed_on_close = processed
        self._end(self.stopped_by or "close()")
        gen = self._gen
        if gen is not None and self._started:
            gen.close()  # type: ignore[attr-defined]
        else:
            self._close_clients()
        self._closed = True

    def __enter__(self) -> "Follower":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.close(processed=exc_type is None)

    def _close_clients(self) -> None:
        reader, self._reader = self._reader, None  # type: ignore[assignment]
        offsets, self._offsets = self._offsets, None
        try:
            if reader is not None:
                reader.close()
        finally:
            if offsets is not None:
                offsets.close()

    # --- where it got to ------------------------------------------------------------------

    @property
    def skipped(self) -> int:
        """Undecodable messages skipped (``skip_undecodable``)."""
        return self._decode.skipped

    @property
    def resolved_ts(self) -> Optional[int]:
        """The ts every partition followed has passed (its least resolved ts), None while one has none."""
        return self._watermarks.minimum

    @property
    def held(self) -> int:
        """Ordered: events held above the ts every partition has passed (not handed out)."""
        return len(self._merger) if self._merger is not None else 0

    @property
    def dropped(self) -> int:
        """Replays and broadcast copies left out."""
        if self._merger is not None:
            return self._merger.replays + self._merger.copies
        return self._copies.copies if self._copies is not None else 0

    def summary(self) -> str:
        """One paragraph: events, messages, per-partition last offset, resolved ts reached."""
        parts = [f"{self.events} event(s) from {self.messages} message(s)"]
        if self.skipped:
            parts.append(f"{self.skipped} undecodable message(s) skipped")
        if self.dropped:
            parts.append(f"{self.dropped} replay(s) or broadcast copies left out")
        if self.held:
            parts.append(f"{self.held} event(s) held above the resolved ts, not printed")
        parts.append("resolved ts reached: " + ("none" if self.resolved_ts is None else str(self.resolved_ts)))
        offsets = ", ".join(
            f"{t}/{p}={self.last_offsets[(t, p)] if (t, p) in self.last_offsets else '-'}" for t, p in self._next
        )
        parts.append(f"last offsets: {offsets or 'no partitions'}")
        return "; ".join(parts)


def _released_of(metadata: Optional[str]) -> Optional[int]:
    if metadata and metadata.startswith(RELEASED_METADATA):
        text = metadata[len(RELEASED_METADATA):]
        if text.isascii() and text.isdigit():
            return int(text)
    return None


def follow(
    source_uri: SinkLike, options: Optional[FollowOptions] = None, **keywords: Any
) -> Union[Follower, StorageFollower]:
    """Follow a source's events as they are written (see the module docstring); returns a
    :class:`Follower`, iterable once, best used in a ``with`` block.

    The parameters are :class:`FollowOptions`' (``topics``, ``partitions``, ``tables``,
    ``start``, ``until``, ``count``, ``group``, ``ordered``, ``poll_interval``,
    ``skip_undecodable``, ``broadcast_copies``, ``fail_on_data_loss``, ``exit_at_end``), given
    as keywords or as one ``FollowOptions``.

    Errors that the arguments make certain (a protocol without resolved events and
    ``ordered``, a group or a start at a time on a transport without consumer groups such as
    ``file://``, a pattern matching no topic) are raised here, before any read. A topic that
    does not exist yet is followed once it appears (it reads as empty).
    A storage-sink location (``s3://``, ``local://``) is followed by its checkpoint:
    :class:`~cdcwire.api.storage_following.StorageFollower`.
    """
    if is_storage_uri(source_uri):  # TiCDC's storage sink: files, followed by their checkpoint
        return _storage_follower(str(source_uri), options if options is not None else FollowOptions(**keywords))
    return Follower(source_uri, options, **keywords)


def _storage_follower(uri: str, options: FollowOptions) -> StorageFollower:
    """A storage-sink location's follower; the options that name what a layout does not have are refused."""
    defaults = FollowOptions()
    refused = [name for name in FollowOptions.__dataclass_fields__
               if name not in STORAGE_FOLLOW_OPTIONS and getattr(options, name) != getattr(defaults, name)]
    if refused:
        raise FollowError(
            f"{', '.join(refused)}: not for a storage-sink location (it has no topics, partitions, offsets or"
            " groups); it is followed from its beginning, in replay order"
        )
    return StorageFollower(uri, options.count, options.until, options.exit_at_end,  # type: ignore[arg-type]
                           options.poll_interval)
