"""Where messages go and come from: a transport per sink-URI scheme.

A transport is a plugin point like a codec. The core ships ``file`` (always)
and ``kafka`` (with the ``cdcwire[kafka]`` extra).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterable, Iterator, Optional, Sequence

from ..foundation.errors import CdcwireError
from ..model.message import Message
from ..foundation.params import Parameter

if TYPE_CHECKING:
    from ..uris.sink_uri import SinkConfig


@dataclass(frozen=True, slots=True)
class StagedRun:
    """Messages of one topic-partition that a task staged outside Python for a write job, in the
    file transport's partition-file format (Spark's Java encoding tier: ``FramedStaging.java``), for
    the task's writer to take as its own (:meth:`MessageWriter.take_staged`).

    ``attempt`` names the staging attempt they lie in; ``segment`` 0 is that attempt's own
    staged file of the topic-partition (``size`` bytes, the header included), which the writer
    adopts before it has staged anything; a later segment is a piece of ``size`` bytes of records
    that the writer appends to its file, after what it has written."""

    topic: str
    partition: int
    attempt: str
    segment: int
    size: int


class MessageWriter(abc.ABC):
    """Writes messages to their topic-partition. Use as a context manager:
    leaving the block flushes and fails loudly if any message was not delivered.

    A writer of an all-or-nothing transport (``file://``) publishes everything it was
    given in ``close()`` and nothing when it is aborted; a writer of a delivering
    transport (``kafka://``) sends as it goes. ``receipt``: set by ``close()`` of a
    :meth:`WriteJob.task_writer` writer, for :meth:`WriteJob.publish`.
    """

    receipt: str = ""

    @abc.abstractmethod
    def write(self, message: Message) -> None: ...

    def write_all(self, messages: Iterable[Message]) -> int:
        n = 0
        for m in messages:
            self.write(m)
            n += 1
        return n

    def write_values(self, topic: str, partition: int, values: Sequence[bytes]) -> None:
        """Write a run of keyless messages to one topic-partition, in order: the same messages as
        :meth:`write` of each. For message values made in a batch elsewhere (the Java tier of
        Spark's encoding stage); a writer that frames a run at once overrides it."""
        for value in values:
            self.write(Message(topic, partition, None, value))

    def take_staged(self, run: StagedRun) -> None:
        """Take messages staged outside Python (see :class:`StagedRun`) as if written here, in
        order. Only a writer of a job that offers a :meth:`WriteJob.staging_area` is handed any."""
        raise CdcwireError(f"{type(self).__name__} takes no messages staged elsewhere")

    @abc.abstractmethod
    def flush(self) -> None:
        """Block until every written message is durable; raise TransportError otherwise."""

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> "MessageWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def abort(self) -> None:
        """Release resources after a failure without claiming success."""


class WriteJob(abc.ABC):
    """One write spread over many writers (the tasks of a Spark job), published once.

    The driver starts it with :meth:`Transport.begin_write`; it is pickled to the tasks,
    each task writes through :meth:`task_writer` and hands :attr:`MessageWriter.receipt`
    back with its results; when every task has succeeded the driver calls :meth:`publish`
    with the receipts of the successful attempts only, and :meth:`discard` when the job
    failed. Nothing may depend on a task's ``abort()`` running: a task lost with its
    executor never runs it, so a transport that stages must let :meth:`discard` (or a
    later write) remove what failed attempts left.

    ``all_or_nothing``: True when nothing is visible to readers before :meth:`publish`
    and a failed job leaves nothing (``file://``); False when messages are delivered as
    they are written (``kafka://``): a failed or retried job may have delivered some
    messages once or more (at least once, as TiCDC's own delivery).

    Reprs and pickles carry the sink URI; implementations must not show it unredacted.
    """

    all_or_nothing: ClassVar[bool] = False

    @abc.abstractmethod
    def task_writer(self) -> MessageWriter:
        """A writer for one task; after ``close()`` its ``receipt`` is what :meth:`publish` needs."""

    @abc.abstractmethod
    def publish(self, receipts: Sequence[str]) -> None:
        """Make the staged writes of these (successful) writers visible, all at once."""

    def discard(self) -> None:
        """Remove whatever the job staged; safe to call more than once and after publish."""

    def staging_area(self) -> Optional[str]:
        """Where a task outside Python (Spark's Java encoding tier) may stage messages for this job
        in the file transport's partition-file format (``<area>/<attempt>/<topic>/<partition>.cdcwire``),
        handing them over as :class:`StagedRun`; None (the
        default): messages reach the job only through its writers' methods."""
        return None


class DirectWriteJob(WriteJob):
    """A job whose task writers deliver as they write (nothing staged, nothing to publish)."""

    all_or_nothing = False

    def __init__(self, transport: "Transport", config: SinkConfig) -> None:
        self.transport = transport
        self.config = config  # plain data: it pickles to the tasks, which write with it as it is

    def task_writer(self) -> MessageWriter:
        return self.transport.writer(self.config)

    def publish(self, receipts: Sequence[str]) -> None:
        pass

    def __repr__(self) -> str:
        return f"DirectWriteJob({self.transport.scheme}://...)"


class MessageReader(abc.ABC):
    """Reads messages back, bounded: from an offset to the end as it was at the call."""

    @abc.abstractmethod
    def partitions(self, topic: str) -> list[int]:
        """The partitions of a topic that exist."""

    @abc.abstractmethod
    def read(
        self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
    ) -> Iterator[Message]:
        """Messages of one partition with offsets in [start, end); ``start`` None = the earliest
        held, ``end`` None = the high watermark at the call: taken when ``read`` is called, not
        when its result is first consumed (an implementation that is a generator function
        would take it too late)."""

    @abc.abstractmethod
    def watermarks(self, topic: str, partition: int) -> tuple[int, int]:
        """``(low, high)`` of one partition now: the first offset it still holds and the offset
        its next message will get (``low == high``: it holds nothing). A partition that does
        not exist is a TransportError, as for :meth:`read`.

        Why every reader has it: reads are bounded. ``read(topic, partition, low, high)`` gives
        the same messages however often it runs while writers go on appending (what a Spark
        read planned once needs), ``high`` is where a later read resumes, and offsets below
        ``low`` are gone (retention).

        Part of the interface of every reader, and abstract: each transport answers it without
        reading the partition's messages (Kafka asks the broker; ``file://`` walks its record
        headers). A reader whose :meth:`read` asks ``watermarks()`` for its end must not
        answer it with a read.
        """

    def topics(self) -> list[str]:
        """Topics this source holds, where the transport can list them."""
        return []

    def close(self) -> None:
        pass


class OffsetsCapability(abc.ABC):
    """What a transport that keeps consumer groups and message times offers beyond reading:
    a group's committed offsets (read and commit) and the first offset at or after a time.

    Why a separate, optional object: reading messages is every transport's job
    (:class:`MessageReader`), but only some sources keep a group's position (Kafka's
    ``__consumer_offsets``) or index their messages by time. Following with a group
    (:func:`cdcwire.follow` ``group=``, ``--group``) and starting at a time (``@MS``,
    ISO-8601, ``tso:N``; Spark's ``startingTimestamp``) ask :meth:`Transport.offsets`
    for one; a transport that returns None is named to the user in one line
    (:func:`lacks_offsets`) before anything is read. A third-party transport offers both
    by returning its own subclass: the core never names a scheme for them.

    Partitions are ``(topic, partition)`` pairs. Use it as a context manager, or call :meth:`close`.
    """

    #: The consumer group this object reads and commits for; None: it looks up times only.
    group: Optional[str] = None

    @abc.abstractmethod
    def committed(self, keys: Sequence[tuple[str, int]]) -> dict[tuple[str, int], tuple[int, Optional[str]]]:
        """The group's committed offset and its metadata (None: none) of each partition of
        ``keys`` that has one; partitions without a committed offset are left out."""

    @abc.abstractmethod
    def commit(self, positions: dict[tuple[str, int], int], metadata: Optional[str] = None) -> None:
        """Record ``positions`` (the next offset to read, per partition) as the group's, with
        ``metadata`` on each (an ordered follower keeps the ts it released there). Synchronous:
        when it returns the offsets are durable, else a TransportError."""

    @abc.abstractmethod
    def at_time(self, keys: Sequence[tuple[str, int]], ms: int) -> dict[tuple[str, int], Optional[int]]:
        """The first offset of each partition whose message time is ``ms`` (ms since the epoch)
        or later; None where no message is that late yet (a reader starts at the end)."""

    def close(self) -> None:
        """Release the client."""

    def __enter__(self) -> "OffsetsCapability":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()


def lacks_offsets(scheme: str, what: str) -> str:
    """The one line that says a transport without :class:`OffsetsCapability` cannot do ``what``."""
    return (
        f"{scheme or 'a bare protocol name'}:// has no consumer groups or message times, so {what} cannot be used"
        " (a transport offers them through Transport.offsets; kafka:// does)"
    )


class Transport(abc.ABC):
    """A sink-URI scheme. ``parameters`` are the URI parameters it honours."""

    scheme: ClassVar[str]
    parameters: ClassVar[tuple[Parameter, ...]] = ()

    def validate(self, config: SinkConfig) -> None:
        """Check the location and transport parameters; raise SinkURIError."""

    def partition_count(self, config: SinkConfig, topic: str) -> Optional[int]:
        """The real partition count of an existing topic, or None if unknown / new."""
        return None

    def prepare_topic(self, config: SinkConfig, topic: str) -> int:
        """How many partitions of ``topic`` a write uses; called once per topic before dispatching.

        The reference's rule: ``partition-num`` when the URI gives it, else an existing
        topic's real count, else 3. A transport whose topics have a fixed size (Kafka,
        ``file://``) overrides this to create a missing topic and to refuse a
        ``partition-num`` larger than the real count.
        """
        if "partition-num" not in config.given:
            existing = self.partition_count(config, topic)
            if existing:
                return int(existing)
        return int(config["partition-num"])

    @abc.abstractmethod
    def writer(self, config: SinkConfig) -> MessageWriter:
        """A writer for one caller; all-or-nothing per writer where the transport can be."""

    def begin_write(self, config: SinkConfig, sink_uri: str, overwrite: bool = False) -> WriteJob:
        """Start a job-wide write (see :class:`WriteJob`), on the driver.

        ``overwrite``: replace what the sink's topics hold. The default job delivers as it
        writes and cannot overwrite.
        """
        if overwrite:
            raise CdcwireError(
                f"{self.scheme}:// cannot overwrite: its messages are delivered as they are written;"
                " use mode('append')"
            )
        return DirectWriteJob(self, config)

    @abc.abstractmethod
    def reader(self, config: SinkConfig) -> MessageReader: ...

    def offsets(self, config: SinkConfig, group: Optional[str] = None) -> Optional[OffsetsCapability]:
        """An :class:`OffsetsCapability` for ``config`` (``group``: the consumer group to read and
        commit; None: time look-ups only), or None when this transport keeps neither: the default."""
        return None
