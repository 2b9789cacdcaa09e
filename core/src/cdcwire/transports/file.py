"""``file://DIR/TOPIC``: the embedded default transport.

Messages of topic T, partition P go to ``DIR/T/P.cdcwire`` in the framing of
:mod:`cdcwire.transports.file_framing`; writes append, like a log.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import BinaryIO, Iterator, Optional

from ..errors import SinkURIError, TransportError
from ..message import Message
from ..transport import MessageReader, MessageWriter, Transport
from .file_framing import MAGIC, frame, intact_length, read_frames

SUFFIX = ".cdcwire"
log = logging.getLogger("cdcwire.file")


def partition_path(directory: str | Path, topic: str, partition: int) -> Path:
    return Path(directory) / topic / f"{partition}{SUFFIX}"


class FileWriter(MessageWriter):
    def __init__(self, directory: str) -> None:
        self.directory = directory
        self._files: dict[tuple[str, int], BinaryIO] = {}

    def _file(self, topic: str, partition: int) -> BinaryIO:
        f = self._files.get((topic, partition))
        if f is None:
            path = partition_path(self.directory, topic, partition)
            path.parent.mkdir(parents=True, exist_ok=True)
            _cut_torn_tail(path, f"{topic}/{partition}")
            f = open(path, "ab")
            if f.tell() == 0:
                f.write(MAGIC)
            self._files[(topic, partition)] = f
        return f

    def write(self, message: Message) -> None:
        self._file(message.topic, message.partition).write(frame(message.key, message.value))

    def flush(self) -> None:
        for (topic, partition), f in self._files.items():
            try:
                f.flush()
                os.fsync(f.fileno())
            except OSError as exc:
                raise TransportError(f"cannot write {topic}/{partition}: {exc}") from exc

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self.abort()

    def abort(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()


def _cut_torn_tail(path: Path, name: str) -> None:
    """Before appending, drop a record that a crashed write left half-written at the end.

    That record was never acknowledged (its writer failed before flushing), so its
    producer writes it again; left in place, it would make every later record unreadable.
    A file that is not a cdcwire file is refused rather than appended to.
    """
    if not path.exists():
        return
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if not MAGIC.startswith(f.read(len(MAGIC))):
            raise TransportError(f"{name}: {path} is not a cdcwire message file; refusing to append to it")
        keep = intact_length(f, size)
    if keep < size:
        log.warning("%s: dropping %d bytes of a torn record at the end of %s before appending", name, size - keep, path)
        os.truncate(path, keep)


class FileReader(MessageReader):
    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)

    def topics(self) -> list[str]:
        if not self.directory.is_dir():
            return []
        return sorted(p.name for p in self.directory.iterdir() if p.is_dir())

    def partitions(self, topic: str) -> list[int]:
        d = self.directory / topic
        if not d.is_dir():
            raise TransportError(f"topic {topic!r} does not exist under {self.directory}")
        out = []
        for p in d.iterdir():
            if p.suffix == SUFFIX and p.stem.isdigit():
                out.append(int(p.stem))
        return sorted(out)

    def read(
        self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
    ) -> Iterator[Message]:
        start = start or 0
        path = partition_path(self.directory, topic, partition)
        if not path.exists():
            raise TransportError(f"partition {topic}/{partition} does not exist ({path})")
        with open(path, "rb") as f:
            for offset, key, value in read_frames(f, f"{topic}/{partition}"):
                if end is not None and offset >= end:
                    return
                if offset >= start:
                    yield Message(topic, partition, key, value, offset)


class FileTransport(Transport):
    scheme = "file"

    def validate(self, config) -> None:  # type: ignore[override]
        if config.password or config.username:
            raise SinkURIError("file:// URIs take no user or password", "userinfo")

    def partition_count(self, config, topic: str) -> Optional[int]:  # type: ignore[override]
        d = Path(config.location) / topic
        if not d.is_dir():
            return None
        parts = [p for p in d.iterdir() if p.suffix == SUFFIX and p.stem.isdigit()]
        return (max(int(p.stem) for p in parts) + 1) if parts else None

    def writer(self, config) -> FileWriter:  # type: ignore[override]
        return FileWriter(config.location)

    def reader(self, config) -> FileReader:  # type: ignore[override]
        return FileReader(config.location)
