"""The dead-letter path: records the pipeline cannot take, each with its reason.

Executors append JSON Lines to ``DIR/part-<stage>-<partition>-<attempt>.jsonl``:
``{"source": "events.jsonl:17", "reason": "...", "record": "<the raw text or event JSON>"}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Iterator, Optional


class DeadLetterWriter:
    """Opened lazily: a task with nothing to dead-letter leaves no file."""

    def __init__(self, directory: str, name: str) -> None:
        self.path = Path(directory) / name
        self._file: Optional[IO[str]] = None
        self.count = 0

    def write(self, source: str, reason: str, record: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w", encoding="utf-8")
        self._file.write(json.dumps({"source": source, "reason": reason, "record": record}, ensure_ascii=False))
        self._file.write("\n")
        self.count += 1

    def close(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None


def read_dead_letters(directory: str | Path) -> Iterator[dict]:
    """Every dead-lettered record under ``directory``."""
    for path in sorted(Path(directory).glob("*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)
