"""Staged writes: records written where no reader looks until a publish moves them in.

A staging area is ``DIR/.cdcwire/staging/<name>/``, owned by whoever holds the
``flock`` on ``DIR/.cdcwire/staging/<name>.lock``. The kernel drops the lock when its
owner dies, so nothing depends on an abort or a cleanup having run:

- a writer's area (``writer-*``) is owned for the writer's whole life, in one process;
  once its lock can be taken it is garbage (a crashed writer) and :func:`sweep` removes it;
- a job's area (``job-*``) is owned by the process that began the job while it lives,
  but a job travels by pickle and Spark may publish or discard it from another process
  (a Python data source commits in a worker), so a free lock does not prove a job dead:
  :func:`sweep` removes a job's area only when its lock is free and nothing in it has
  changed for :data:`JOB_GRACE_S` (a driver that died without publishing or discarding).

Inside an area, :class:`StagedFiles` writes ``<topic>/<partition>.cdcwire`` files in
the partition-file format (magic, then records).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path
from typing import BinaryIO, Optional

from ...foundation.errors import TransportError
from .framing import MAGIC
from .locks import Key
from .paths import SUFFIX, check_partition, check_topic, internal_dir


#: How long an unowned job area must have been idle before a later write removes it.
JOB_GRACE_S = 24 * 3600


def staging_dir(directory: str | Path) -> Path:
    return internal_dir(directory, "staging")


class StagingOwner:
    """The lock that keeps one staging area alive; ``release()`` lets :func:`sweep` take it."""

    __slots__ = ("area", "_fd")

    def __init__(self, directory: str | Path, name: str) -> None:
        root = staging_dir(directory)
        root.mkdir(parents=True, exist_ok=True)
        lock = root / f"{name}.lock"
        while True:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(lock).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:  # not a lock file a sweeper removed between our open and our flock
                break
            os.close(fd)
        self._fd: Optional[int] = fd
        self.area = root / name
        try:
            self.area.mkdir(exist_ok=True)
        except BaseException:  # a full disk, say: give back the lock, leave nothing behind
            self.remove()
            raise

    def remove(self) -> None:
        """Delete the area and its lock file, then drop the lock."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            shutil.rmtree(self.area, ignore_errors=True)
            (self.area.parent / f"{self.area.name}.lock").unlink(missing_ok=True)
        finally:
            os.close(fd)


def remove_area(directory: str | Path, name: str) -> None:
    """Remove the staging area ``name`` and its lock file, whoever owns it (a job's own cleanup)."""
    root = staging_dir(directory)
    shutil.rmtree(root / name, ignore_errors=True)
    (root / f"{name}.lock").unlink(missing_ok=True)


def _idle_for(area: Path) -> float:
    """Seconds since anything in ``area`` last changed."""
    newest = area.stat().st_mtime
    for dirpath, dirnames, filenames in os.walk(area):
        for name in dirnames + filenames:
            try:
                newest = max(newest, os.stat(os.path.join(dirpath, name)).st_mtime)
            except FileNotFoundError:
                pass
    return time.time() - newest


def sweep(directory: str | Path) -> None:
    """Remove every staging area whose owner is gone (see the module docstring)."""
    root = staging_dir(directory)
    if not root.is_dir():
        return
    for entry in root.iterdir():
        if entry.suffix == ".lock" or not entry.is_dir():
            continue
        lock = root / f"{entry.name}.lock"
        try:
            fd = os.open(lock, os.O_RDWR)
        except FileNotFoundError:  # its owner removed the lock: the area is going, or was left half-removed
            if not entry.name.startswith("job-") or _idle_for(entry) >= JOB_GRACE_S:
                shutil.rmtree(entry, ignore_errors=True)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            if entry.name.startswith("job-") and _idle_for(entry) < JOB_GRACE_S:
                continue
            shutil.rmtree(entry, ignore_errors=True)
            lock.unlink(missing_ok=True)
        finally:
            os.close(fd)


#: How many staged files a writer keeps open at once; the least recently written is closed
#: (and reopened to append) past that, so a write to thousands of partitions (a resolved
#: event goes to every one) does not take a descriptor per partition.
OPEN_FILES = 64


class StagedFiles:
    """Writes staged partition files under ``area``; ``close()`` makes them durable."""

    __slots__ = ("directory", "area", "_files", "_parked", "sizes")

    def __init__(self, directory: str | Path, area: Path) -> None:
        self.directory = directory
        self.area = area
        self._files: dict[Key, BinaryIO] = {}  # open, least recently written first
        self._parked: set[Key] = set()  # staged into, closed to bound the open files, not yet fsynced
        self.sizes: dict[Key, int] = {}

    def path(self, key: Key) -> Path:
        return self.area / key[0] / f"{key[1]}{SUFFIX}"

    def write(self, topic: str, partition: int, record: bytes) -> None:
        key = (topic, partition)
        f = self._files.pop(key, None)
        if f is None:
            f = self._open(key)
        self._files[key] = f  # now the most recently written
        self._write(key, f, record)

    def _open(self, key: Key) -> BinaryIO:
        """The staged file of ``key``, new (with the magic) or, parked, reopened to append."""
        reopen = key in self._parked
        if not reopen:
            check_topic(self.directory, key[0])
            check_partition(key[0], key[1])
        while len(self._files) >= OPEN_FILES:
            self._park(next(iter(self._files)))
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            f = open(path, "ab" if reopen else "wb")
        except OSError as exc:
            raise self._failed(key, exc) from None
        self._parked.discard(key)
        if not reopen:
            try:
                self._write(key, f, MAGIC)
            except BaseException:
                f.close()
                raise
        return f

    def _park(self, key: Key) -> None:
        f = self._files.pop(key)
        self._parked.add(key)
        try:
            f.close()
        except OSError as exc:
            raise self._failed(key, exc) from None

    def _write(self, key: Key, f: BinaryIO, data: bytes) -> None:
        try:
            f.write(data)
        except OSError as exc:
            raise self._failed(key, exc) from None

    def _failed(self, key: Key, exc: OSError) -> TransportError:
        """The one-line error of a staged file that cannot be written (a full disk, say)."""
        return TransportError(
            f"cannot stage {key[0]}/{key[1]} in {self.path(key)}: {exc.strerror or exc}; nothing was published"
        )

    def adopt(self, key: Key, size: int) -> None:
        """Take the file of ``key`` already staged in this area (``size`` bytes, the magic
        included) as this writer's: a later write appends to it."""
        self._parked.add(key)
        self.sizes[key] = size

    def append_piece(self, key: Key, piece: Path, size: int) -> None:
        """Append the records staged in ``piece`` (``size`` bytes, no magic) to the file of ``key``."""
        f = self._files.pop(key, None)
        if f is None:
            f = self._open(key)
        self._files[key] = f
        try:
            with open(piece, "rb") as src:
                if os.fstat(src.fileno()).st_size != size:
                    raise OSError(f"the piece {piece} holds {os.fstat(src.fileno()).st_size} bytes, not {size}")
                shutil.copyfileobj(src, f, 1 << 20)
        except OSError as exc:
            raise self._failed(key, exc) from None

    def keys(self) -> list[Key]:
        """Every partition staged into, open or closed."""
        return sorted(self.sizes.keys() | self._files.keys() | self._parked)

    def flush(self) -> None:
        for key, f in self._files.items():
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as exc:
                raise self._failed(key, exc) from None
            self.sizes[key] = f.tell()
        for key in sorted(self._parked):
            try:
                with open(self.path(key), "rb") as parked:
                    os.fsync(parked.fileno())
                    self.sizes[key] = os.fstat(parked.fileno()).st_size
            except OSError as exc:
                raise self._failed(key, exc) from None

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.abort()

    def abort(self) -> None:
        """Close every staged file, whatever happens: what they hold is being given up (a
        close that cannot flush, on a full disk, loses only what was never to be published)."""
        files, self._files = list(self._files.values()), {}
        for f in files:
            try:
                f.close()
            except OSError:
                pass
