"""Publishing staged records into partition files, all at once or not at all.

Writers never append to partition files as they go: they stage their records in
``DIR/.cdcwire/staging`` and a publish moves them in. The protocol, for one publish
over any number of partition files of one sink directory:

1. The publisher holds the lock of every partition file it changes
   (:mod:`.locks`), so nobody else changes them meanwhile.
2. Recovery: every journal in ``DIR/.cdcwire/journal`` whose partitions can all be
   locked belongs to a publish that died (a live one holds its locks), and is rolled
   back (step 6). A dead journal naming one of this publish's partitions that cannot
   be rolled back now (another writer holds one of its other partitions) stops this
   publish with an error saying to retry: appending on top of it would make a failed
   write half-visible.
3. Check: when appending, each target file is read whole (every CRC); only an
   incomplete last record may go (:func:`.file_framing.appendable_length`); other
   damage raises TransportError naming file, record and byte, before anything changed.
   An overwrite does not look at the old contents: it is also the way to replace a
   damaged file. Then each topic's partition count is recorded if it is not yet
   (:mod:`.topics`), and a partition outside it is refused, before anything changed
   (the writers refused it already; this catches a count another writer recorded first).
4. Journal: the original state of every target (length to keep, or absent; for an
   overwrite, a hard link keeping the old file) is written to a temporary file,
   fsynced and renamed into ``journal/<id>.journal``.
5. Apply: append the staged records (or rename a staged file into place, removing the
   old file's offset index, :mod:`.offset_index`), fsync each file and directory.
   Removing the journal is the commit point; then kept-aside files go and the locks are
   released.
6. Rollback (of a dead journal): a kept-aside file is renamed back over its target; a
   target that did not exist is removed; any other is truncated to its kept length.
   Every step can be repeated, so a rollback that dies is finished by the next one.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from ...foundation.errors import TransportError
from .checks import Checked, check_target, remember
from .framing import MAGIC
from .locks import Key, PartitionLocks
from .offset_index import remove_index
from .paths import fsync_dir, internal_dir, partition_path, topic_file
from .topics import record_count, topic_count

log = logging.getLogger("cdcwire.file")

ABSENT = -1


@dataclass(slots=True)
class JournalEntry:
    """One target's state before the publish: ``length`` to keep (ABSENT: no file) and,
    for an overwrite, ``kept``, the name (in the journal directory) of the old file's link."""

    topic: str
    partition: int
    length: int
    kept: Optional[str] = None


@dataclass(slots=True)
class Plan:
    """What one publish does: the staged files to append (or, overwriting, to become) each
    partition file, in order, and (overwriting) the partition files to remove."""

    sources: dict[Key, list[Path]] = field(default_factory=dict)
    remove: list[Key] = field(default_factory=list)
    overwrite: bool = False
    #: Targets the caller already checked under the lock it still holds (see :func:`check_target`).
    checked: dict[Key, Checked] = field(default_factory=dict)
    #: The URI's ``partition-num`` (None: not given): the count a topic without one gets.
    partition_num: Optional[int] = None

    def keys(self) -> list[Key]:
        return sorted(set(self.sources) | set(self.remove))


def journal_dir(directory: Path) -> Path:
    return internal_dir(directory, "journal")


def _load(path: Path) -> Optional[list[JournalEntry]]:
    try:
        raw = path.read_text()
    except FileNotFoundError:
        return None
    try:
        return [JournalEntry(**e) for e in json.loads(raw)["entries"]]
    except (ValueError, KeyError, TypeError) as exc:
        raise TransportError(
            f"{path}: unreadable publish journal ({exc}); cdcwire cannot tell what to undo"
        ) from None


def recover(directory: Path, locks: PartitionLocks) -> None:
    """Roll back every journal of a dead publish that can be rolled back now (step 2)."""
    jdir = journal_dir(directory)
    if not jdir.is_dir():
        return
    for path in sorted(jdir.glob("*.journal")):
        entries = _load(path)
        if entries is None:
            continue
        keys = sorted({(e.topic, e.partition) for e in entries})
        ours = [k for k in keys if locks.holds(k)]
        taken: list[Key] = []
        try:
            for key in keys:
                if not locks.holds(key):
                    if not locks.try_acquire(key):
                        if ours:
                            raise TransportError(
                                f"{partition_path(directory, *ours[0])}: a write that crashed left the"
                                f" journal {path} naming this partition; it cannot be rolled back now"
                                f" because another writer holds {partition_path(directory, *key)};"
                                " retry when that write is done"
                            )
                        break
                    taken.append(key)
            else:
                entries = _load(path)  # its publisher may have committed while we took the locks
                if entries is not None:
                    _roll_back(directory, path, entries)
        finally:
            for key in taken:
                locks.release(key)


def _roll_back(directory: Path, path: Path, entries: list[JournalEntry]) -> None:
    log.warning("rolling back a publish that did not finish (journal %s)", path)
    for e in entries:
        target = partition_path(directory, e.topic, e.partition)
        kept = path.parent / e.kept if e.kept else None
        if kept is not None and kept.exists():
            os.replace(kept, target)
        elif e.length == ABSENT:
            target.unlink(missing_ok=True)
        elif target.exists() and target.stat().st_size > e.length:
            os.truncate(target, e.length)
            _fsync_file(target)
        if target.parent.is_dir():
            fsync_dir(target.parent)
    path.unlink()
    fsync_dir(path.parent)


def _fsync_file(path: Path) -> None:
    with open(path, "rb+") as f:
        os.fsync(f.fileno())


def publish(directory: str | Path, plan: Plan, locks: PartitionLocks) -> None:
    """Carry out ``plan``; the caller holds the locks of ``plan.keys()`` (step 1)."""
    directory = Path(directory)
    missing = [k for k in plan.keys() if not locks.holds(k)]
    if missing:
        raise AssertionError(f"publish without the locks of {missing}")
    recover(directory, locks)
    entries: list[JournalEntry] = []
    for key in plan.keys():
        target = partition_path(directory, *key)
        if not target.exists():
            entries.append(JournalEntry(*key, ABSENT))
        elif plan.overwrite:
            entries.append(JournalEntry(*key, target.stat().st_size, f"{{id}}.{len(entries)}.kept"))
        else:
            entries.append(JournalEntry(*key, check_target(target, locks, key, plan.checked.get(key)).keep))
    if not plan.sources and not plan.remove:
        return
    _settle_counts(directory, plan)
    jid = uuid.uuid4().hex
    for e in entries:
        if e.kept:
            e.kept = e.kept.format(id=jid)
    jdir = journal_dir(directory)
    jdir.mkdir(parents=True, exist_ok=True)
    jpath = jdir / f"{jid}.journal"
    tmp = jdir / f"{jid}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump({"entries": [asdict(e) for e in entries]}, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, jpath)
    except BaseException:  # no journal, nothing applied: leave no half-written journal either
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(jdir)
    try:
        for e in entries:
            _apply(directory, jdir, plan, e)
    except BaseException as exc:
        try:
            _roll_back(directory, jpath, entries)
        except Exception as undo:  # the journal stays: the next writer rolls it back
            log.error("could not roll back the failed publish %s: %s", jpath, undo)
        if isinstance(exc, OSError):
            raise TransportError(f"cannot publish to {directory}: {exc}; nothing was published") from exc
        raise
    jpath.unlink()  # the commit point
    fsync_dir(jdir)
    for key in plan.sources:
        remember(locks, key, partition_path(directory, *key))
    for e in entries:
        if e.kept:
            (jdir / e.kept).unlink(missing_ok=True)


def _settle_counts(directory: Path, plan: Plan) -> None:
    """Refuse a partition outside its topic's count, then record the count of each topic that
    has none (step 3): a topic's count is fixed before its first messages land, and a publish
    refused here has recorded nothing."""
    topics = sorted({t for t, _ in plan.sources})
    known = {t: topic_count(directory, t, plan.partition_num) for t in topics}
    for topic in topics:
        _refuse_outside(directory, plan, topic, known[topic].count)
    for topic in topics:
        if not known[topic].recorded:  # another writer may record first: its count is the count
            _refuse_outside(directory, plan, topic, record_count(directory, topic, known[topic].count))


def _refuse_outside(directory: Path, plan: Plan, topic: str, count: int) -> None:
    outside = sorted(p for t, p in plan.sources if t == topic and p >= count)
    if outside:
        raise TransportError(
            f"partition {outside[0]} is outside the {count} partition(s) of topic {topic!r} under"
            f" {directory} ({topic_file(directory, topic)}); nothing was published"
        )


def _apply(directory: Path, jdir: Path, plan: Plan, e: JournalEntry) -> None:
    key = (e.topic, e.partition)
    target = partition_path(directory, *key)
    sources = plan.sources.get(key, [])
    target.parent.mkdir(parents=True, exist_ok=True)
    if e.kept:
        os.link(target, jdir / e.kept)
    if plan.overwrite or e.length == ABSENT:
        remove_index(directory, *key)  # of the file replaced (or of one removed by hand): it names its inode anyway
        if not sources:
            target.unlink(missing_ok=True)
        else:
            first = sources[0]
            if len(sources) > 1:
                with open(first, "ab") as out:
                    for src in sources[1:]:
                        _copy_records(src, out)
            _fsync_file(first)
            os.replace(first, target)
    else:
        with open(target, "r+b") as out:
            size = os.fstat(out.fileno()).st_size
            if e.length < size:
                log.warning(
                    "%s/%s: dropping %d bytes of a torn record at the end of %s before appending",
                    e.topic, e.partition, size - e.length, target,
                )
                out.truncate(e.length)
            out.seek(e.length)
            if e.length == 0:
                out.write(MAGIC)
            for src in sources:
                _copy_records(src, out)
            out.flush()
            os.fsync(out.fileno())
    fsync_dir(target.parent)


def _copy_records(src: Path, out) -> None:
    with open(src, "rb") as f:
        f.seek(len(MAGIC))
        shutil.copyfileobj(f, out, 1 << 20)
