"""How much of a partition file an append keeps, checked once and remembered in its note file.

Checking reads the whole file (every CRC, :func:`.file_framing.appendable_length`), which
makes many small appends to a long log quadratic. So a writer that holds a partition's
lock writes what it found (or, after a publish, what it left) into the partition's note
file (``P.lock``, :mod:`.locks`): the
file's inode, size, modification and change times, the length to keep, and when the
note was taken. The next holder of the lock trusts that note only while all four still
match: any write to the file, a rename over it, or a ``touch`` changes the change time,
which no user can set. File times can be coarse (a clock tick, a second on some file
systems), so a change made right after the note could carry the old time; as git does
with its index, a note taken less than :data:`RACY_NS` after the file last changed is
not trusted (the file is read again). Damage that changes none of the four (a failing
disk) is still caught by every reader's CRC.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Optional

from .framing import appendable_length
from .locks import Key, PartitionLocks

#: How long after a file's last change a note about it must be taken to be trusted.
RACY_NS = 2_000_000_000


@dataclass(frozen=True, slots=True)
class Checked:
    """A partition file's identity when checked, and the bytes an append keeps of it."""

    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    keep: int
    noted_ns: int

    @staticmethod
    def of(st: os.stat_result, keep: int) -> "Checked":
        return Checked(st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, keep, time.time_ns())

    def matches(self, st: os.stat_result) -> bool:
        """True when this note still describes the file ``st`` describes (see the module docstring)."""
        same = (self.inode, self.size, self.mtime_ns, self.ctime_ns) == (
            st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns
        )
        return same and max(self.mtime_ns, self.ctime_ns) + RACY_NS < self.noted_ns


def _noted(locks: PartitionLocks, key: Key) -> Optional[Checked]:
    try:
        return Checked(**json.loads(locks.read_note(key)))
    except (ValueError, TypeError):
        return None


def remember(locks: PartitionLocks, key: Key, path: Path) -> None:
    """Note ``path`` as wholly intact as it is now (the caller checked or just wrote all of it)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    locks.write_note(key, json.dumps(asdict(Checked.of(st, st.st_size))))


def check_target(path: Path, locks: PartitionLocks, key: Key, known: Optional[Checked] = None) -> Checked:
    """How much of ``path`` an append keeps; TransportError (file untouched) on damage.

    ``known``: an earlier answer of this writer; it and the note file's note are used
    only while they match the file.
    """
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        for candidate in (known, _noted(locks, key)):
            if candidate is not None and candidate.matches(st):
                return candidate
        checked = Checked.of(st, appendable_length(f, st.st_size, str(path)))
    if checked.keep == checked.size:
        locks.write_note(key, json.dumps(asdict(checked)))
    return checked
