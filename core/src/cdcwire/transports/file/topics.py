"""A ``file://`` topic's partition count: fixed when the topic is created, as a Kafka topic's.

Why it is recorded: partitions are files that come into being as they are written, so
without a record a topic written with ``partition-num=3`` whose messages reached only
partition 0 would look like a one-partition topic, and a message for partition 7 would
silently grow it. So the count is written once, into ``DIR/T/.cdcwire-topic.json``
(``{"partitions": N}``, see :mod:`.paths`), by whoever creates the topic first:

- :meth:`FileTransport.prepare_topic` records it at once (Kafka creates the topic there);
- a writer used without ``prepare_topic`` records it when it publishes (a writer that
  fails publishes nothing and records nothing) and, before staging anything, refuses a
  message for a partition outside the count it will record or that is recorded.

The record is written to a temporary file and hard-linked into place, which fails when
the name exists: of two writers creating a topic at once, the first wins and the other
reads and obeys its count. A recorded count never changes.

A topic written by an older cdcwire has no record: its count is that of its partition
files (the highest partition number + 1, as before), or the URI's ``partition-num`` if
that is larger (the older cdcwire never fixed a count, so the files give only a lower
bound); it is recorded the first time such a topic is prepared or written to.
"""

from __future__ import annotations

import json
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from ...foundation.errors import TransportError
from ...foundation.params import PARTITION_NUM
from .paths import fsync_dir, partition_number, topic_dir, topic_file

#: The count a new topic gets when the URI gives no ``partition-num``.
DEFAULT_PARTITIONS = int(PARTITION_NUM.default)

#: The most partitions a file:// topic has: each one is a file, and a resolved event is
#: written to every one (a larger ``partition-num`` is refused, naming this limit).
MAX_PARTITIONS = 1024


@dataclass(frozen=True, slots=True)
class TopicCount:
    """A topic's partition count and where it comes from (for error messages)."""

    count: int
    recorded: bool
    source: str

    def refuse(self, topic: str, partition: int, directory: str | Path) -> TransportError:
        """The error for a message to ``partition``, outside this count."""
        return TransportError(
            f"partition {partition} is outside the {self.count} partition(s) of topic {topic!r}"
            f" (0-{self.count - 1}) under {directory} ({self.source}); a file:// topic keeps the"
            " partition count it was created with, as a Kafka topic does"
        )


def recorded_count(directory: str | Path, topic: str) -> Optional[int]:
    """The count recorded for ``topic``; None when there is no record. A record that cannot be
    read is a TransportError naming its file: cdcwire does not guess a topic's size."""
    path = topic_file(directory, topic)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # the topic's "directory" is a file: no topic, no record
        return None
    try:
        count = json.loads(text)["partitions"]
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"'partitions' must be an integer >= 1, got {count!r}")
    except (ValueError, KeyError, TypeError) as exc:
        raise TransportError(
            f"{path}: the partition count of topic {topic!r} cannot be read ({exc}); it should hold"
            ' {"partitions": N} with N the topic\'s partition count'
        ) from None
    return count


def files_count(directory: str | Path, topic: str) -> Optional[int]:
    """The highest partition file's number + 1 (how an older cdcwire counted); None: no files."""
    d = topic_dir(directory, topic)
    if not d.is_dir():
        return None
    parts = [n for n in map(partition_number, d.iterdir()) if n is not None]
    return (max(parts) + 1) if parts else None


def topic_count(directory: str | Path, topic: str, partition_num: Optional[int]) -> TopicCount:
    """The count ``topic`` has (recorded), or the one it gets when it is first recorded.

    ``partition_num``: the URI's ``partition-num`` when it gives one, else None.
    """
    recorded = recorded_count(directory, topic)
    if recorded is not None:
        return TopicCount(recorded, True, f"recorded in {topic_file(directory, topic)}")
    files = files_count(directory, topic)
    if files is None:
        if partition_num is None:
            return TopicCount(DEFAULT_PARTITIONS, False, "the default partition-num of a new topic")
        return TopicCount(partition_num, False, "partition-num of a new topic")
    if partition_num is not None and partition_num > files:
        return TopicCount(partition_num, False, "partition-num of a topic an older cdcwire wrote")
    return TopicCount(files, False, "the partition files of a topic an older cdcwire wrote")


def record_count(directory: str | Path, topic: str, count: int) -> int:
    """Record ``count`` for ``topic`` unless a count is recorded already; the recorded count.

    Atomic: the record is complete before it has its name, and only the first of two
    recorders gives it that name (a hard link fails on an existing name).
    """
    d = topic_dir(directory, topic)
    d.mkdir(parents=True, exist_ok=True)
    path = topic_file(directory, topic)
    tmp = d / f"{path.name}.{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump({"partitions": count}, f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        tmp.unlink(missing_ok=True)
    fsync_dir(d)
    recorded = recorded_count(directory, topic)
    if recorded is None:  # removed between the link and the look: nothing to obey but our own
        raise TransportError(f"{path}: the partition count of topic {topic!r} vanished as it was recorded")
    return recorded


def settle_count(directory: str | Path, topic: str, partition_num: Optional[int]) -> int:
    """The recorded count of ``topic``, recording the one :func:`topic_count` gives if none is."""
    known = topic_count(directory, topic, partition_num)
    return known.count if known.recorded else record_count(directory, topic, known.count)
