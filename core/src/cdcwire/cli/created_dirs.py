"""What a failed ``cdcwire run`` created at a ``file://`` sink, removed again.

Why: a failed write to a ``file://`` sink publishes nothing, but the pipeline prepares the
sink's topics before its tasks run (as Kafka creates a topic), so a run that fails later,
say on a mistyped ``--input`` or a bad line, left a directory tree holding only cdcwire's
bookkeeping (a topic's partition-count record, an empty staging area). A failed run must
leave nothing it created: what did not exist before the run and holds no published
partition file is removed; anything that existed before is left as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

from ..transports.file.paths import SUFFIX


class CreatedDirs:
    """The ``file://`` sink directory as it was before a run; :meth:`remove` undoes what the run made."""

    def __init__(self, location: str) -> None:
        self.location = Path(location)
        self.top_created = _first_missing(self.location)
        self.entries_before = set(_entries(self.location)) if self.top_created is None else set()

    def remove(self) -> None:
        """Remove what the run created and holds no partition file (so nothing it published)."""
        if self.top_created is not None:
            if self.top_created.is_dir() and not _published(self.top_created):
                shutil.rmtree(self.top_created, ignore_errors=True)
            return
        for name in set(_entries(self.location)) - self.entries_before:
            path = self.location / name
            if path.is_dir() and not name.startswith(".") and not _published(path):
                shutil.rmtree(path, ignore_errors=True)


def _first_missing(path: Path) -> Optional[Path]:
    """The outermost directory on the way to ``path`` that does not exist yet (None: it all exists)."""
    missing = None
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


def _entries(path: Path) -> list[str]:
    try:
        return [p.name for p in path.iterdir()]
    except OSError:
        return []


def _published(path: Path) -> bool:
    """Whether ``path`` holds a partition file outside cdcwire's staging (``.cdcwire/``)."""
    return any(p.is_file() and ".cdcwire" not in p.relative_to(path).parts[:-1] for p in path.rglob(f"*{SUFFIX}"))
