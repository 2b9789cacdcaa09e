"""The dead-letter path: records the pipeline cannot take, each with its reason.

Executors write JSON Lines to ``DIR/part-<stage>-<write>-<partition>.jsonl``:
``{"source": "events.jsonl:17", "reason": "...", "record": "<the raw text or event JSON>"}``.

A Spark task may run more than once (a retry, a recomputed stage, a speculative
copy), so a task writes to a hidden temporary file and renames it to the name
keyed by its partition only once its input is done: the name then holds exactly
one attempt's records, a later attempt replaces them rather than adding to them,
and a failed attempt leaves only a temporary file, which readers skip.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Iterator, Optional


class DeadLetterWriter:
    """One task attempt's dead letters. Opened lazily: a task with nothing to dead-letter
    writes nothing. ``publish()`` once the task's input is done; ``discard()`` on failure."""

    def __init__(self, directory: str, name: str, attempt: int) -> None:
        self.path = Path(directory) / name
        self.temporary = Path(directory) / f".{name}.{attempt}.tmp"
        self._file: Optional[IO[str]] = None
        self.count = 0

    def write(self, source: str, reason: str, record: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.temporary, "w", encoding="utf-8")
        self._file.write(json.dumps({"source": source, "reason": reason, "record": record}, ensure_ascii=False))
        self._file.write("\n")
        self.count += 1

    def publish(self) -> None:
        """Make this attempt's records the partition's dead letters (none: remove an earlier attempt's)."""
        if self._file is None:
            self.path.unlink(missing_ok=True)
            return
        self._close()
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self.temporary.unlink(missing_ok=True)

    def _close(self) -> None:
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._file = None


def read_dead_letters(directory: str | Path) -> Iterator[dict]:
    """Every dead-lettered record under ``directory`` (temporary files of unfinished attempts skipped)."""
    for path in sorted(Path(directory).glob("part-*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)
