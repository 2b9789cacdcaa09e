"""One writer per partition file: an exclusive ``flock`` per topic-partition.

The lock is on ``DIR/.cdcwire/locks/T/P.lock``, not on the partition file itself,
because an overwrite replaces the partition file by a rename. ``flock`` locks belong
to an open file, so two writers in one process (threads) exclude each other as two
processes do, and the kernel drops a lock when its holder dies: a lock that can be
taken means nobody is writing that partition. Locks are taken without waiting; a held
lock is an error naming the partition file, never a silent wait or a shared write.
Lock files stay once created (removing one would let two writers lock different files).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from ..errors import TransportError
from .file_paths import lock_path, partition_path

Key = tuple[str, int]


class PartitionLocks:
    """The partition locks one writer or publisher holds in one sink directory."""

    __slots__ = ("directory", "_held")

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._held: dict[Key, int] = {}

    def holds(self, key: Key) -> bool:
        return key in self._held

    def held(self) -> list[Key]:
        return sorted(self._held)

    def try_acquire(self, key: Key) -> bool:
        """Take the lock of ``key`` if nobody holds it; True when held now."""
        if key in self._held:
            return True
        path = lock_path(self.directory, *key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._held[key] = fd
        return True

    def acquire(self, key: Key) -> None:
        """Take the lock of ``key`` or raise TransportError saying another writer holds it."""
        if not self.try_acquire(key):
            raise TransportError(
                f"{partition_path(self.directory, *key)}: another writer holds this partition file"
                f" (lock {lock_path(self.directory, *key)}); one writer per partition at a time"
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
        """What the last holder wrote into the lock file (see :mod:`.file_checks`); "" if nothing."""
        fd = self._held[key]
        return os.pread(fd, 4096, 0).decode("utf-8", "replace")

    def write_note(self, key: Key, note: str) -> None:
        fd = self._held[key]
        data = note.encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)

    def release(self, key: Key) -> None:
        fd = self._held.pop(key, None)
        if fd is not None:
            os.close(fd)  # closing the only descriptor drops the flock

    def release_all(self) -> None:
        for key in list(self._held):
            self.release(key)

    def __repr__(self) -> str:
        return f"PartitionLocks({str(self.directory)!r}, held={self.held()!r})"
