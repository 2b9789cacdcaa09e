"""``file://DIR/TOPIC``: the embedded default transport.

Messages of topic T, partition P go to ``DIR/T/P.cdcwire`` in the framing of
:mod:`.file_framing`; writes append, like a log, and are all-or-nothing:

- A :class:`FileWriter` (``cdcwire.write``, the CLI) locks each partition it writes
  (:mod:`.file_locks`: one writer per partition file, a second one fails at once),
  stages its messages (:mod:`.file_staging`) and publishes them all in ``close()``
  (:mod:`.file_publish`); ``abort()`` or a crash publishes nothing.
- :meth:`FileTransport.begin_write` gives a :class:`.file_job.FileWriteJob` for a
  write spread over Spark tasks, published once by the driver; it can overwrite.

Appending never cuts more than an incomplete last record; a damaged file stops the
writer with an error naming file, record and byte. A reader stops at damage too,
unless ``skip-damaged=true``: then it skips damaged records, counts and logs them
(``FileReader.damaged``). Topics are checked by :mod:`.file_paths`, so no topic reaches
outside ``DIR``; hidden entries of ``DIR`` (cdcwire's bookkeeping) are not topics.
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from ..errors import SinkURIError, TransportError
from ..message import Message
from ..params import Parameter
from ..transport import MessageReader, MessageWriter, Transport
from .file_checks import Checked, check_target
from .file_framing import Damage, frame, read_frames
from .file_job import FileWriteJob
from .file_locks import Key, PartitionLocks
from .file_paths import SUFFIX, os_errors, partition_number, partition_path, topic_dir, topic_problem
from .file_publish import ABSENT, Plan, journal_dir, publish, recover
from .file_staging import StagedFiles, StagingOwner, sweep

__all__ = ["FileReader", "FileTransport", "FileWriteJob", "FileWriter", "SUFFIX", "partition_path"]

log = logging.getLogger("cdcwire.file")

SKIP_DAMAGED = Parameter(
    "skip-damaged", "bool", False,
    "reading file://: skip damaged records (each one logged and counted) instead of stopping at the first",
)


class FileWriter(MessageWriter):
    """All-or-nothing per writer: see the module docstring."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._locks = PartitionLocks(directory)
        self._owner: Optional[StagingOwner] = None
        self._staged: Optional[StagedFiles] = None
        self._checked: dict[Key, Checked] = {}

    def _start(self, key: Key) -> StagedFiles:
        """First message for ``key``: take its lock and check its file before staging anything."""
        path = partition_path(self.directory, *key)
        with os_errors(f"cannot write {key[0]}/{key[1]} under {self.directory}"):
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
                with os_errors(f"cannot publish to {self.directory}"):
                    publish(self.directory, Plan(sources, checked=self._checked), self._locks)
        finally:
            self.abort()

    def abort(self) -> None:
        if self._staged is not None:
            self._staged.abort()
            self._staged = None
        if self._owner is not None:
            self._owner.remove()
            self._owner = None
        self._locks.release_all()
        self._checked.clear()


class FileReader(MessageReader):
    """Reads partition files; ``skip_damaged``: skip damaged records into :attr:`damaged`."""

    def __init__(self, directory: str, skip_damaged: bool = False) -> None:
        self.directory = Path(directory)
        self.skip_damaged = skip_damaged
        #: Every damaged stretch skipped so far (with ``skip_damaged``), with file, record and byte.
        self.damaged: list[Damage] = []

    def topics(self) -> list[str]:
        if not self.directory.is_dir():
            return []
        return sorted(p.name for p in self.directory.iterdir() if p.is_dir() and not topic_problem(p.name))

    def partitions(self, topic: str) -> list[int]:
        d = topic_dir(self.directory, topic)
        if not d.is_dir():
            raise TransportError(f"topic {topic!r} does not exist under {self.directory}")
        return sorted(n for n in map(partition_number, d.iterdir()) if n is not None)

    def read(
        self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
    ) -> Iterator[Message]:
        start = start or 0
        path = partition_path(self.directory, topic, partition)
        try:
            f = open(path, "rb")
        except FileNotFoundError:
            raise TransportError(f"partition {topic}/{partition} does not exist ({path})") from None
        except OSError as exc:
            raise TransportError(f"cannot read {topic}/{partition}: {exc.strerror or exc} ({path})") from None
        with f:
            size = self._committed_size(f, topic, partition)
            for offset, key, value in read_frames(f, f"{topic}/{partition}", size, self._on_damage_for(path)):
                if end is not None and offset >= end:
                    return
                if offset >= start:
                    yield Message(topic, partition, key, value, offset)

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


class FileTransport(Transport):
    scheme = "file"
    parameters = (SKIP_DAMAGED,)

    def validate(self, config) -> None:  # type: ignore[override]
        if config.password or config.username:
            raise SinkURIError("file:// URIs take no user or password", "userinfo")

    def partition_count(self, config, topic: str) -> Optional[int]:  # type: ignore[override]
        d = topic_dir(config.location, topic)
        if not d.is_dir():
            return None
        parts = [n for n in map(partition_number, d.iterdir()) if n is not None]
        return (max(parts) + 1) if parts else None

    def writer(self, config) -> FileWriter:  # type: ignore[override]
        return FileWriter(config.location)

    def begin_write(  # type: ignore[override]
        self, config, sink_uri: str, overwrite: bool = False
    ) -> FileWriteJob:
        return FileWriteJob(sink_uri, config.location, overwrite)

    def reader(self, config) -> FileReader:  # type: ignore[override]
        return FileReader(config.location, skip_damaged=bool(config.params.get("skip-damaged", False)))


