"""Where the file transport keeps things inside a sink directory ``DIR``.

``DIR/T/P.cdcwire`` holds topic ``T``, partition ``P``, and ``DIR/T/.cdcwire-topic.json``
the topic's partition count (:mod:`.topics`): it belongs to the topic, so it goes
where the topic's files go, and removing the topic's directory removes it. cdcwire's
other bookkeeping lives in the hidden ``DIR/.cdcwire/`` (partition locks and notes,
publish journals, staged writes), on the same file system as the data, so its renames
are atomic.

A topic is one plain directory name: never empty, ``.`` or ``..``, never holding ``/``,
``\\`` or NUL, never starting with ``.`` (hidden names are cdcwire's own). So every path
this module builds stays inside ``DIR``, whatever the topic's origin (a URI, a topic
expression, a message): a topic that would escape is refused before any file is touched.
"""

from __future__ import annotations

import logging
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...foundation.errors import TransportError

SUFFIX = ".cdcwire"
INTERNAL = ".cdcwire"
#: The file in a topic's directory that records its partition count (hidden: never a partition).
TOPIC_FILE = ".cdcwire-topic.json"

log = logging.getLogger("cdcwire.file")


def topic_problem(topic: object) -> str:
    """Why ``topic`` cannot name a directory inside the sink, or "" when it can."""
    if not isinstance(topic, str):
        return f"a topic must be a string, got {type(topic).__name__}"
    if topic in ("", ".", ".."):
        return "it is empty, '.' or '..'"
    for bad, name in (("/", "'/'"), ("\\", "'\\'"), ("\x00", "NUL")):
        if bad in topic:
            return f"it holds {name}"
    if topic.startswith("."):
        return "it starts with '.' (hidden names are cdcwire's own bookkeeping)"
    return ""


def check_topic(directory: str | Path, topic: object) -> str:
    """``topic`` itself, or TransportError when it would not stay one directory inside ``directory``."""
    problem = topic_problem(topic)
    if problem:
        raise TransportError(
            f"topic {topic!r} cannot be written or read under {directory}: {problem}; a file:// topic"
            " is one directory name inside the sink directory"
        )
    return topic  # type: ignore[return-value]


def check_partition(topic: str, partition: object) -> int:
    if isinstance(partition, bool) or not isinstance(partition, int) or partition < 0:
        raise TransportError(f"topic {topic!r}: partition must be an integer >= 0, got {partition!r}")
    return partition


def topic_dir(directory: str | Path, topic: str) -> Path:
    return Path(directory) / check_topic(directory, topic)


def partition_path(directory: str | Path, topic: str, partition: int) -> Path:
    return topic_dir(directory, topic) / f"{check_partition(topic, partition)}{SUFFIX}"


def topic_file(directory: str | Path, topic: str) -> Path:
    """``DIR/T/.cdcwire-topic.json``: where topic ``T`` records its partition count."""
    return topic_dir(directory, topic) / TOPIC_FILE


#: Stray entries of topic directories already warned about (each one once per process).
_warned: set[str] = set()


def partition_number(path: Path) -> int | None:
    """The partition a file in a topic directory holds, or None for any other entry.

    A partition file is named as cdcwire names it: ASCII digits without a leading zero, then
    ``.cdcwire`` (``str.isdigit`` would take ``²`` or ``١``, which ``int`` refuses or reads as
    another partition). Any other visible entry is a stray: ignored, with one warning.
    """
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else ""
    if stem.isascii() and stem.isdigit() and str(int(stem)) == stem and path.is_file():
        return int(stem)
    if not path.name.startswith(".") and str(path) not in _warned:  # hidden: cdcwire's own
        _warned.add(str(path))
        log.warning("ignoring %s: not a partition file (those are named N%s, N in ASCII digits)", path, SUFFIX)
    return None



def internal_dir(directory: str | Path, part: str) -> Path:
    """``DIR/.cdcwire/<part>`` (``locks``, ``journal``, ``staging``)."""
    return Path(directory) / INTERNAL / part


def lock_path(directory: str | Path, topic: str, partition: int) -> Path:
    return internal_dir(directory, "locks") / check_topic(directory, topic) / f"{partition}.lock"


def fsync_dir(path: Path) -> None:
    """Make a rename or a new file in ``path`` durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def os_errors(doing: str, outcome: str = "") -> Iterator[None]:
    """Turn an OSError (permissions, a full disk, a path that is a file) into a TransportError
    that says what cdcwire was doing and on which path, instead of a traceback; ``outcome``
    (say, "nothing was published") is added after it."""
    try:
        yield
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        tail = f"; {outcome}" if outcome else ""
        raise TransportError(f"{doing}: {exc.strerror or exc}{where}{tail}") from exc
