"""A sparse offset index per partition file: a read from offset N starts near N, not at byte 0.

A record does not carry its offset (:mod:`.framing`): without help, finding record N means
walking the N records before it, so an incremental read of a long partition pays for
every record it does not want. Readers therefore keep, beside the data, where every
:data:`INTERVAL`-th record starts: ``DIR/.cdcwire/index/T/P.idx``, a small cache file.

Why a reader's cache and not the publisher's: the entries come only from reads that
checked every record's CRC from the start of the file (or from an entry that such a read
wrote) and met no damage, so an entry is exactly what the walk itself would find. A read
that passes :data:`INTERVAL` records beyond the index's last entry writes the index again
(a temporary file renamed over it: a reader sees the old index or the new one, never half
of one); a file older than the index, or a directory that cannot be written, simply has
none, and reads walk as before.

Why it can never give a wrong position:

- it names its partition file's inode: a file replaced (an overwriting write renames a new
  file in place; a copied directory) is another inode, and its index is ignored; the
  publisher also removes the index of a file it replaces or removes;
- it covers committed records only: readers see no byte of a publish that has not committed
  (:meth:`~.transport.FileReader._committed_size`), and a publish changes nothing before its
  committed length (a rollback or a cut torn tail is after it);
- each entry names the CRC of the record it points at, and the record there is read and
  checked before it is used: an entry that does not match (the file edited by hand, an
  index damaged on disk: the file has a CRC of its own too) drops the whole index, and the
  read walks from the start and writes it again.
"""

from __future__ import annotations

import logging
import os
import struct
import uuid
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from .framing import MAGIC, record_crc
from .paths import check_partition, check_topic, internal_dir

log = logging.getLogger("cdcwire.file")

#: Records between two entries: a read from offset N walks fewer than this many records.
INTERVAL = 1024
_MAGIC = b"CDCWIDX1"
_HEAD = struct.Struct(">QII")  # inode, interval, entries
_ENTRY = struct.Struct(">QQI")  # offset, byte, the record's CRC
_CRC = struct.Struct(">I")


def index_path(directory: str | Path, topic: str, partition: int) -> Path:
    return internal_dir(directory, "index") / check_topic(directory, topic) / f"{check_partition(topic, partition)}.idx"


def remove_index(directory: str | Path, topic: str, partition: int) -> None:
    """Forget the index of a partition file about to be replaced or removed."""
    index_path(directory, topic, partition).unlink(missing_ok=True)


@dataclass(slots=True)
class OffsetIndex:
    """The index of one open partition file: ``entries[i]`` is (offset, byte, CRC) of record
    ``(i + 1) * INTERVAL``. Load it with :meth:`load`, start a read at :meth:`start_of`, hand
    :meth:`note` to the read and :meth:`save` when the read ends."""

    path: Path
    inode: int
    entries: list[tuple[int, int, int]] = field(default_factory=list)
    _saved: int = 0  # entries on disk

    @classmethod
    def load(cls, path: Path, f: BinaryIO) -> "OffsetIndex":
        """The index at ``path`` for the open file ``f``; an empty one when there is none, or it
        is damaged or names another file (reads then walk from the start and write it)."""
        index = cls(path, os.fstat(f.fileno()).st_ino)
        try:
            data = path.read_bytes()
        except OSError:
            return index
        entries = _parsed(data, index.inode)
        if entries is None:
            log.info("ignoring the offset index %s (damaged, or of another file); it is written again", path)
            return index
        index.entries, index._saved = entries, len(entries)
        return index

    def start_of(self, f: BinaryIO, size: int, offset: int) -> tuple[int, int]:
        """(offset, byte) to start walking at for a read from ``offset`` of the first ``size``
        bytes of ``f``: the last entry at or before it, checked against the record it names;
        (0, after the magic) without one. A mismatch drops the index."""
        i = min(offset // INTERVAL, len(self.entries)) - 1
        while i >= 0 and self.entries[i][1] >= size:
            i -= 1
        if i < 0:
            return 0, len(MAGIC)
        at, byte, crc = self.entries[i]
        if record_crc(f, byte, size) != crc:
            log.warning("the offset index %s does not match its file at record %d (byte %d); it is dropped"
                        " and written again", self.path, at, byte)
            self.entries, self._saved = [], -1
            return 0, len(MAGIC)
        return at, byte

    def handed_over(self) -> dict:
        """The index as another process's reader (the JVM's message source) continues it: its
        file, inode, interval and entries, and how many of them are on disk (-1: dropped, to be
        written again). Such a reader notes and saves as :meth:`note` and :meth:`save` do."""
        return {"path": str(self.path), "inode": self.inode, "interval": INTERVAL,
                "entries": [list(e) for e in self.entries], "saved": self._saved}

    def note(self, offset: int, byte: int, crc: int) -> None:
        """A checked record at ``byte`` has ``offset``: kept when it is the next entry."""
        if offset == (len(self.entries) + 1) * INTERVAL:
            self.entries.append((offset, byte, crc))

    def save(self) -> None:
        """Write the index when it grew by an entry (or was dropped); never fails a read: a
        directory that cannot be written keeps no index."""
        if len(self.entries) == self._saved:
            return
        tmp = self.path.with_name(f"{self.path.name}.{uuid.uuid4().hex}.tmp")
        body = _MAGIC + _HEAD.pack(self.inode, INTERVAL, len(self.entries)) + b"".join(
            _ENTRY.pack(*e) for e in self.entries
        )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_bytes(body + _CRC.pack(zlib.crc32(body)))
            os.replace(tmp, self.path)
            self._saved = len(self.entries)
        except OSError as exc:
            log.debug("cannot write the offset index %s: %s", self.path, exc)
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass


def _parsed(data: bytes, inode: int) -> list[tuple[int, int, int]] | None:
    """The entries of an index file's bytes, or None when it is damaged, of another file or of
    another interval."""
    fixed = len(_MAGIC) + _HEAD.size
    if len(data) < fixed + _CRC.size or not data.startswith(_MAGIC):
        return None
    body, (crc,) = data[: -_CRC.size], _CRC.unpack(data[-_CRC.size:])
    if zlib.crc32(body) != crc:
        return None
    stored_inode, interval, count = _HEAD.unpack_from(body, len(_MAGIC))
    if stored_inode != inode or interval != INTERVAL or len(body) != fixed + count * _ENTRY.size:
        return None
    entries = [_ENTRY.unpack_from(body, fixed + i * _ENTRY.size) for i in range(count)]
    if any(e[0] != (i + 1) * INTERVAL for i, e in enumerate(entries)):
        return None
    return entries
