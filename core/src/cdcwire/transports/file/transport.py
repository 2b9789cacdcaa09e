"""``file://DIR/TOPIC``: the embedded default transport.

Messages of topic T, partition P go to ``DIR/T/P.cdcwire`` in the framing of
:mod:`.framing`; writes append, like a log, and are all-or-nothing:

- A :class:`FileWriter` (``cdcwire.write``, the CLI) locks each partition it writes
  (:mod:`.locks`: one writer per partition file, a second one fails at once),
  stages its messages (:mod:`.staging`) and publishes them all in ``close()``
  (:mod:`.publish`); ``abort()`` or a crash publishes nothing.
- :meth:`FileTransport.begin_write` gives a :class:`.file_job.FileWriteJob` for a
  write spread over Spark tasks, published once by the driver; it can overwrite.

A topic has a fixed partition count, as a Kafka topic has (:mod:`.topics`):
:meth:`FileTransport.prepare_topic` records it when it creates the topic, a larger
``partition-num`` is refused, and a writer refuses a message for a partition outside it
before staging anything. A partition of the count that nothing was written to reads as
empty.

Appending never cuts more than an incomplete last record; a damaged file stops the
writer with an error naming file, record and byte. A reader stops at damage too,
unless ``skip-damaged=true``: then it skips damaged records, counts and logs them
(``FileReader.damaged``); the records after keep their own offsets, or the read stops
where those cannot be told (:mod:`.framing`). An incomplete last record is not damage but a record not
written yet: readers end before it (a file being appended to can be followed). A read
ends where the partition ended when ``read()`` was called; ``watermarks()`` counts
records by their headers, without reading payloads.
Topics are checked by :mod:`.paths`, so no topic reaches outside ``DIR``; hidden
entries of ``DIR`` (cdcwire's bookkeeping) are not topics.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from ...foundation.errors import SinkURIError, TransportError
from ...model.message import Message
from ...foundation.params import Parameter
from ...uris.sink_uri import SinkConfig
from ...contract.transport import MessageReader, MessageWriter, Transport
from .checks import Checked, check_target
from .framing import Damage, count_frames, damage_error, frame, read_frames
from .job import FileWriteJob
from .offset_index import OffsetIndex, index_path
from .locks import Key, PartitionLocks
from .paths import SUFFIX, os_errors, partition_number, partition_path, topic_dir, topic_problem
from .publish import ABSENT, Plan, journal_dir, publish, recover
from .staging import StagedFiles, StagingOwner, sweep
from .topics import MAX_PARTITIONS, files_count, recorded_count, settle_count, topic_count, topic_file

__all__ = ["FileReader", "FileTransport", "FileWriteJob", "FileWriter", "SUFFIX", "partition_path"]

log = logging.getLogger("cdcwire.file")

SKIP_DAMAGED = Parameter(
    "skip-damaged", "bool", False,
    "reading file://: skip damaged records (each one logged and counted) instead of stopping at the first;"
    " each record after keeps its own offset, or the read stops where that cannot be told",
)


class FileWriter(MessageWriter):
    """All-or-nothing per writer: see the module docstring.

    ``partition_num``: the URI's ``partition-num`` (None: not given), the count a topic
    that has none gets when this writer publishes to it.
    """

    def __init__(self, directory: str, partition_num: Optional[int] = None) -> None:
        self.directory = directory
        self.partition_num = partition_num
        self._locks = PartitionLocks(directory)
        self._owner: Optional[StagingOwner] = None
        self._staged: Optional[StagedFiles] = None
        self._checked: dict[Key, Checked] = {}
        self._counts: dict[str, int] = {}

    def _start(self, key: Key) -> StagedFiles:
        """First message for ``key``: refuse a partition outside its topic's count, take its lock
        and check its file, before staging anything."""
        path = partition_path(self.directory, *key)
        with os_errors(f"cannot write {key[0]}/{key[1]} under {self.directory}", "nothing was published"):
            count = self._counts.get(key[0])
            if count is None or key[1] >= count:
                known = topic_count(self.directory, key[0], self.partition_num)
                self._counts[key[0]] = known.count
                if key[1] >= known.count:
                    raise known.refuse(*key, self.directory)
            if self._staged is None:
                Path(self.directory).mkdir(parents=True, exist_ok=True)
                sweep(self.directory)
                recover(Path(self.directory), self._locks)
                self._owner = StagingOwner(self.directory, f"writer-{os.getpid()}-{os.urandom(8).hex()}")
                self._staged = StagedFiles(self.directory, self._owner.area)
            self._locks.acquire(key)
            try:
                if path.exists():
                    self._checked[key] = check_target(path, self._locks, key)
            except BaseException:
                self._locks.release(key)
                raise
        return self._staged

    def write(self, message: Message) -> None:
        key = (message.topic, message.partition)
        staged = self._staged if self._locks.holds(key) and self._staged is not None else self._start(key)
        staged.write(message.topic, message.partition, frame(message.key, message.value))

    def flush(self) -> None:
        """Make the staged messages durable (still unpublished: ``close()`` publishes)."""
        if self._staged is not None:
            self._staged.flush()

    def close(self) -> None:
        try:
            if self._staged is not None:
                self._staged.close()
                sources = {k: [self._staged.path(k)] for k in self._staged.keys()}
                with os_errors(f"cannot publish to {self.directory}", "nothing was published"):
                    plan = Plan(sources, checked=self._checked, partition_num=self.partition_num)
                    publish(self.directory, plan, self._locks)
        finally:
            self.abort()

    def abort(self) -> None:
        """Give back everything this writer took, whatever fails on the way: its staged files
        and staging area go, its locks are released (a full disk must not leave a partition
        locked for the rest of the process)."""
        staged, self._staged = self._staged, None
        owner, self._owner = self._owner, None
        self._checked.clear()
        self._counts.clear()
        try:
            if staged is not None:
                staged.abort()
        finally:
            try:
                if owner is not None:
                    owner.remove()
            finally:
                self._locks.release_all()


class FileReader(MessageReader):
    """Reads partition files; ``skip_damaged``: skip damaged records into :attr:`damaged`."""

    def __init__(self, directory: str, skip_damaged: bool = False) -> None:
        self.directory = Path(directory)
        self.skip_damaged = skip_damaged
        #: Every damaged stretch skipped so far (with ``skip_damaged``), with file, record and byte.
        self.damaged: list[Damage] = []
        self._counts: dict[str, int] = {}  # recorded partition counts read so far

    def topics(self) -> list[str]:
        if not self.directory.is_dir():
            return []
        return sorted(p.name for p in self.directory.iterdir() if p.is_dir() and not topic_problem(p.name))

    def partitions(self, topic: str) -> list[int]:
        """The partitions of the topic's count (empty ones too) and any partition file."""
        d = topic_dir(self.directory, topic)
        if not d.is_dir():
            raise TransportError(f"topic {topic!r} does not exist under {self.directory}")
        files = {n for n in map(partition_number, d.iterdir()) if n is not None}
        return sorted(files.union(range(self._recorded(topic) or 0)))

    def read(
        self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
    ) -> Iterator[Message]:
        """See :meth:`MessageReader.read`. Not a generator: the file is opened and its end taken
        here, at the call, so messages published after the call are not part of this read
        however late it is consumed (the returned iterator holds the file open until done)."""
        opened = self._open(topic, partition)
        if opened is None:
            return iter(())
        f, size = opened
        return _PinnedRead(f, self._messages(f, size, topic, partition, start or 0, end))

    def _messages(
        self, f: BinaryIO, size: int, topic: str, partition: int, start: int, end: Optional[int]
    ) -> Iterator[Message]:
        on_damage = self._on_damage_for(partition_path(self.directory, topic, partition))
        if end is not None and start >= end:
            return
        index = OffsetIndex.load(index_path(self.directory, topic, partition), f)
        anchors = tuple(index.entries)  # kept if start_of drops the index: each is checked before use
        begin = index.start_of(f, size, start)  # the records before it were read and checked before
        skipped, failed = len(self.damaged), False
        try:
            for offset, key, value in read_frames(f, f"{topic}/{partition}", size, on_damage, begin, index.note,
                                                  anchors):
                if end is not None and offset >= end:
                    return
                if offset >= start:
                    yield Message(topic, partition, key, value, offset)
                if end is not None and offset + 1 >= end:
                    return  # what lies past the end is not parsed (nor its damage reported)
        except TransportError:
            failed = True
            raise
        finally:
            if not failed and len(self.damaged) == skipped:
                index.save()  # a read that met damage leaves the index as it was: its entries tell offsets past it

    def read_begin(
        self, topic: str, partition: int, start: int
    ) -> Optional[tuple[Path, int, tuple[int, int], OffsetIndex]]:
        """Where :meth:`read` from ``start`` begins: (the partition's file, its committed size now,
        (offset, byte) of the record its walk starts at: the offset index's last entry at or
        before ``start``, checked against its record, or the first record; the index, which the
        walk keeps as :meth:`read` does). What a reader in another process (the JVM's message
        source) needs to walk the same records; None for a partition of the topic's count that
        nothing was written to; TransportError as :meth:`read` raises it for one that does not exist."""
        opened = self._open(topic, partition)
        if opened is None:
            return None
        f, size = opened
        with f:
            index = OffsetIndex.load(index_path(self.directory, topic, partition), f)
            begin = index.start_of(f, size, start)
            return partition_path(self.directory, topic, partition), size, begin, index

    def watermarks(self, topic: str, partition: int) -> tuple[int, int]:
        """See :meth:`MessageReader.watermarks`: ``low`` is 0 (a file keeps every record), ``high``
        the record count, from the record headers alone (:func:`.file_framing.count_frames`),
        so it costs a seek per record, not a read of every payload, and only for the records
        past the offset index's last entry (:mod:`.offset_index`).

        An incomplete last record (a write still in progress, or one that died) is not a
        record yet: ``high`` stops before it, as reads do, so a follower takes it once it is
        whole. Framing damage (a length running past the end with intact records after it)
        stops it with an error naming file, record and byte, as a read stops; with
        ``skip-damaged`` it counts as the read counts, ``high`` being the offset after the
        last intact record. A payload whose CRC fails counts as its record here; the read
        names it. A file whose records are no longer where its offset index saw them (bytes
        inserted or deleted) is counted by a read, CRCs checked, as that read counts.
        """
        opened = self._open(topic, partition)
        if opened is None:
            return (0, 0)
        f, size = opened
        name = f"{topic}/{partition}"
        with f:
            index = OffsetIndex.load(index_path(self.directory, topic, partition), f)
            anchors = tuple(index.entries)  # kept if start_of drops the index: each is checked before use
            begin = index.start_of(f, size, 1 << 62)
            count, damage = count_frames(f, name, size, begin)
            moved = bool(anchors) and not index.entries  # records no longer where the index saw them
            if damage is None and not moved:
                return (0, count)
            if damage is not None and not self.skip_damaged:
                raise damage_error(name, damage.record, damage.byte, damage.reason)
            high = 0  # counted as a read counts (rare: only a damaged or changed file gets here)
            skip = (lambda _damage: None) if self.skip_damaged else None
            for offset, _, _ in read_frames(f, name, size, skip, anchors=anchors):
                high = offset + 1
            return (0, high)

    def _recorded(self, topic: str) -> Optional[int]:
        """The topic's recorded count, read once (a recorded count never changes): reading the
        empty partitions of a many-partition topic must not read the record once for each."""
        count = self._counts.get(topic)
        if count is None:
            with os_errors(f"cannot read the partition count of {topic!r} under {self.directory}"):
                count = recorded_count(self.directory, topic)
            if count is not None:
                self._counts[topic] = count
        return count

    def _open(self, topic: str, partition: int) -> Optional[tuple[BinaryIO, int]]:
        """The partition's file, open, and its committed size now; None for a partition of the
        topic's count that nothing was written to; TransportError for one that does not exist."""
        path = partition_path(self.directory, topic, partition)
        try:
            f = open(path, "rb")
        except FileNotFoundError:
            count = self._recorded(topic)
            if count is not None and partition < count:
                return None
            raise TransportError(f"partition {topic}/{partition} does not exist ({path})") from None
        except OSError as exc:
            raise TransportError(f"cannot read {topic}/{partition}: {exc.strerror or exc} ({path})") from None
        try:
            return f, self._committed_size(f, topic, partition)
        except BaseException:
            f.close()
            raise

    def _on_damage_for(self, path: Path):
        if not self.skip_damaged:
            return None

        def on_damage(damage: Damage) -> None:
            self.damaged.append(damage)
            log.warning("skipping damaged record: %s (%s)", damage, path)

        return on_damage

    def _committed_size(self, f: BinaryIO, topic: str, partition: int) -> int:
        """How many bytes of the open partition file ``f`` hold committed records.

        A publish in progress (or dead) has a journal naming the length it started from;
        without one, the size counts once it held still across the look at the journals
        (a publish that committed in between has grown the file: look again).
        """
        for _ in range(100):
            before = os.fstat(f.fileno()).st_size
            pending = self._pending_length(topic, partition)
            if pending is not None:
                return 0 if pending == ABSENT else min(before, pending)
            if os.fstat(f.fileno()).st_size == before:
                return before
        raise TransportError(f"{topic}/{partition}: the file kept growing while it was being opened; retry")

    def _pending_length(self, topic: str, partition: int) -> Optional[int]:
        """The length the file had before a publish that has not committed (None: no such publish).

        A publish appends after writing its journal and commits by removing it, so a reader
        bounded by the journal never sees records that may yet be rolled back. (A publish
        that overwrites is not hidden this way: its rename is its own atomic step.)
        """
        jdir = journal_dir(self.directory)
        if not jdir.is_dir():
            return None
        for path in jdir.glob("*.journal"):
            try:
                entries = json.loads(path.read_text())["entries"]
            except (OSError, ValueError, KeyError):
                continue
            for e in entries:
                if e.get("topic") == topic and e.get("partition") == partition and not e.get("kept"):
                    return ABSENT if e["length"] == ABSENT else int(e["length"])
        return None


class _PinnedRead(Iterator[Message]):
    """The messages of one :meth:`FileReader.read`, from a file opened (and its end taken) at
    the call; the file is closed when the messages run out, fail, or the iterator is closed or
    dropped unread (a generator that never started could not close it)."""

    __slots__ = ("_f", "_messages")

    def __init__(self, f: BinaryIO, messages: Iterator[Message]) -> None:
        self._f: Optional[BinaryIO] = f
        self._messages = messages

    def __iter__(self) -> "_PinnedRead":
        return self

    def __next__(self) -> Message:
        if self._f is None:
            raise StopIteration
        try:
            return next(self._messages)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._f is not None:
            f, self._f = self._f, None
            try:
                self._messages.close()  # type: ignore[attr-defined]
            finally:
                f.close()

    def __del__(self) -> None:
        self.close()


class FileTransport(Transport):
    scheme = "file"
    parameters = (SKIP_DAMAGED,)

    def validate(self, config: SinkConfig) -> None:
        if config.password or config.username:
            raise SinkURIError("file:// URIs take no user or password", "userinfo")
        given = _given_partition_num(config)
        if given is not None and given > MAX_PARTITIONS:
            raise SinkURIError(
                f"parameter 'partition-num': {given} is more partitions than a file:// topic holds"
                f" (at most {MAX_PARTITIONS}: each partition is a file, and a resolved event is written"
                " to every one); use a smaller partition-num",
                "partition-num",
            )

    def partition_count(self, config: SinkConfig, topic: str) -> Optional[int]:
        """The recorded count; for a topic an older cdcwire wrote, its partition files' count."""
        with os_errors(f"cannot read the partition count of {topic!r} under {config.location}"):
            recorded = recorded_count(config.location, topic)
            return recorded if recorded is not None else files_count(config.location, topic)

    def prepare_topic(self, config: SinkConfig, topic: str) -> int:
        """Create ``topic`` with ``partition-num`` partitions (recorded, see :mod:`.topics`)
        if it has no count yet; the partition count to use, by Kafka's rule.

        Without ``partition-num`` in the URI the topic's count is used; a ``partition-num``
        larger than the count raises SinkURIError naming it (a topic does not grow: a
        message for a partition past its count is refused); a smaller one is used as given.
        """
        given = _given_partition_num(config)
        with os_errors(f"cannot prepare topic {topic!r} under {config.location}"):
            count = settle_count(config.location, topic, given)
        if given is None:
            return count
        if given > count:
            raise SinkURIError(
                f"partition-num={given} is larger than the {count} partition(s) file:// topic {topic!r}"
                f" has (recorded in {topic_file(config.location, topic)}); use partition-num <= {count},"
                " or write to a new topic",
                "partition-num",
            )
        return given

    def writer(self, config: SinkConfig) -> FileWriter:
        return FileWriter(config.location, _given_partition_num(config))

    def begin_write(self, config: SinkConfig, sink_uri: str, overwrite: bool = False) -> FileWriteJob:
        return FileWriteJob(sink_uri, config.location, overwrite, _given_partition_num(config))

    def reader(self, config: SinkConfig) -> FileReader:
        return FileReader(config.location, skip_damaged=bool(config.params.get("skip-damaged", False)))


def _given_partition_num(config) -> Optional[int]:
    """The URI's ``partition-num``, or None when it gives none (a new topic then gets the default,
    a topic an older cdcwire wrote its files' count)."""
    return int(config["partition-num"]) if "partition-num" in config.given else None
