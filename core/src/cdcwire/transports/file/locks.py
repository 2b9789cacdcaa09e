"""One writer per partition file: an exclusive lock per topic-partition.

A partition's lock is byte P of ``DIR/.cdcwire/locks/T/.partitions``, locked with an
open file description lock (Linux's ``F_OFD_SETLK``): one descriptor per topic, however
many partitions a writer holds (a resolved event goes to every partition: a lock file,
and so a descriptor, per partition ran out of descriptors at some thousands). The lock
is not on the partition file itself, because an overwrite replaces that by a rename.
Such locks belong to an open file, as ``flock`` locks do, so two writers in one process
(threads) exclude each other as two processes do, and the kernel drops a lock when its
holder dies: a lock that can be taken means nobody is writing that partition. Locks are
taken without waiting; a held lock is an error naming the partition file, never a silent
wait or a shared write. Lock files stay once created (removing one would let two writers
lock different files). Next to it, ``P.lock`` holds the holder's note about the
partition file (:mod:`.checks`), read and written only under the lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import struct
from pathlib import Path

from ...foundation.errors import TransportError
from .paths import lock_path, partition_path

Key = tuple[str, int]

#: ``struct flock`` (type, whence, start, length, pid); the pid is 0 for an OFD lock.
_FLOCK = struct.Struct("hhqqi4x")
_SETLK = getattr(fcntl, "F_OFD_SETLK", None)  # Linux only (macOS has no OFD locks)


def ranges_path(directory: str | Path, topic: str) -> Path:
    """``DIR/.cdcwire/locks/T/.partitions``: byte P of it is partition P's lock."""
    return lock_path(directory, topic, 0).parent / ".partitions"


def _lock(fd: int, kind: int, partition: int) -> bool:
    """Set (``F_WRLCK``) or clear (``F_UNLCK``) the lock of byte ``partition``; False: held elsewhere."""
    if _SETLK is None:
        raise TransportError(
            "file:// writes lock partitions with open file description locks (Linux's F_OFD_SETLK),"
            " which this platform does not have"
        )
    try:
        fcntl.fcntl(fd, _SETLK, _FLOCK.pack(kind, os.SEEK_SET, partition, 1, 0))
    except OSError as exc:
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


class PartitionLocks:
    """The partition locks one writer or publisher holds in one sink directory."""

    __slots__ = ("directory", "_held", "_files")

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._held: dict[str, set[int]] = {}  # topic -> the partitions whose locks are held
        self._files: dict[str, int] = {}  # topic -> its open .partitions file

    def holds(self, key: Key) -> bool:
        return key[1] in self._held.get(key[0], ())

    def held(self) -> list[Key]:
        return sorted((t, p) for t, ps in self._held.items() for p in ps)

    def _file(self, topic: str) -> int:
        fd = self._files.get(topic)
        if fd is None:
            path = ranges_path(self.directory, topic)
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = self._files[topic] = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        return fd

    def try_acquire(self, key: Key) -> bool:
        """Take the lock of ``key`` if nobody holds it; True when held now."""
        if self.holds(key):
            return True
        topic, partition = key
        partition_path(self.directory, topic, partition)  # a topic or partition that cannot be a file
        taken = False
        try:
            taken = _lock(self._file(topic), fcntl.F_WRLCK, partition)
        finally:
            if taken:
                self._held.setdefault(topic, set()).add(partition)
            elif topic not in self._held:
                self._close(topic)
        return taken

    def acquire(self, key: Key) -> None:
        """Take the lock of ``key`` or raise TransportError saying another writer holds it."""
        if not self.try_acquire(key):
            raise TransportError(
                f"{partition_path(self.directory, *key)}: another writer holds this partition file"
                f" (lock: byte {key[1]} of {ranges_path(self.directory, key[0])}); one writer per"
                " partition at a time"
            )

    def acquire_all(self, keys: list[Key]) -> None:
        """Take every lock in sorted order, or none of the new ones (those taken are released)."""
        taken: list[Key] = []
        try:
            for key in sorted(set(keys)):
                if key not in self._held:
                    self.acquire(key)
                    taken.append(key)
        except BaseException:
            for key in taken:
                self.release(key)
            raise

    def read_note(self, key: Key) -> str:
        """What the last holder noted about the partition file (see :mod:`.checks`); "" if nothing."""
        assert self.holds(key), f"reading the note of {key} without its lock"
        try:
            with open(lock_path(self.directory, *key), "rb") as f:
                return f.read(4096).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def write_note(self, key: Key, note: str) -> None:
        assert self.holds(key), f"writing the note of {key} without its lock"
        with open(lock_path(self.directory, *key), "wb") as f:
            f.write(note.encode())

    def release(self, key: Key) -> None:
        topic, partition = key
        held = self._held.get(topic)
        if held is None or partition not in held:
            return
        held.discard(partition)
        if held:
            _lock(self._files[topic], fcntl.F_UNLCK, partition)
        else:
            del self._held[topic]
            self._close(topic)  # closing the descriptor drops its last lock

    def _close(self, topic: str) -> None:
        fd = self._files.pop(topic, None)
        if fd is not None:
            os.close(fd)

    def release_all(self) -> None:
        """Drop every lock: closing each topic's descriptor drops all its locks at once."""
        self._held.clear()
        for topic in list(self._files):
            self._close(topic)

    def __repr__(self) -> str:
        return f"PartitionLocks({str(self.directory)!r}, held={self.held()!r})"
