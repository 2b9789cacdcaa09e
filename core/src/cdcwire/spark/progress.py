"""A one-line progress bar on stderr from Spark's status tracker, while a job runs (on a terminal only)."""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Optional


class ProgressBar:
    """Use as a context manager around a Spark action: shows completed/total tasks of the running stages."""

    def __init__(self, spark, label: str = "", out: Optional[IO[str]] = None, every: float = 0.5) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.label = label
        self.out = out if out is not None else sys.stderr
        self.every = every
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._started = 0.0

    def __enter__(self) -> "ProgressBar":
        self._started = time.monotonic()
        if _is_terminal(self.out):  # a log file gets the closing summary, not carriage returns
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self.out.write("\r" + " " * 78 + "\r")
            self.out.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            done = total = 0
            for stage_id in self.tracker.getActiveStageIds():
                info = self.tracker.getStageInfo(stage_id)
                if info is not None:
                    done += info.numCompletedTasks
                    total += info.numTasks
            width = 30
            filled = int(width * done / total) if total else 0
            elapsed = time.monotonic() - self._started
            self.out.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} tasks  {elapsed:5.1f}s")
            self.out.flush()


def _is_terminal(out: IO[str]) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
