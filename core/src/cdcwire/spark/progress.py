"""Progress of a Spark action on stderr, from Spark's status tracker: stages and tasks of the running jobs.

On a terminal one line is redrawn twice a second; anywhere else (a CI log, a file) a
plain line is written every ``plain_every`` seconds, so a long run shows it is alive
without filling the log with carriage returns. Spark reports work when tasks end, so
the display counts stages and tasks, not events: the closing summary has the event
counts, which are exact.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import IO, Any, Optional


@dataclass(frozen=True, slots=True)
class JobProgress:
    """Where the running jobs are: stages finished of all their stages, and the tasks of the
    stages running now."""

    stages_done: int
    stages: int
    tasks_done: int
    tasks: int

    @classmethod
    def of(cls, tracker: Any) -> JobProgress:
        stages_done = stages = tasks_done = tasks = 0
        active = set(tracker.getActiveStageIds())
        for job_id in tracker.getActiveJobsIds():
            job = tracker.getJobInfo(job_id)
            if job is None:
                continue
            for stage_id in job.stageIds:
                stages += 1
                info = tracker.getStageInfo(stage_id)
                if stage_id in active and info is not None:
                    tasks_done += info.numCompletedTasks
                    tasks += info.numTasks
                elif info is not None and info.numTasks and info.numCompletedTasks >= info.numTasks:
                    stages_done += 1
        return cls(stages_done, stages, tasks_done, tasks)

    def line(self, label: str, elapsed: float, bar: bool) -> str:
        tasks = f"{self.tasks_done}/{self.tasks} tasks"
        if bar:
            width = 24
            filled = int(width * self.tasks_done / self.tasks) if self.tasks else 0
            tasks = f"[{'#' * filled}{'.' * (width - filled)}] {tasks}"
        stage = f"stage {min(self.stages_done + 1, self.stages)}/{self.stages}" if self.stages else "starting"
        return f"{label}: {stage} {tasks}  {elapsed:5.1f}s"


class ProgressBar:
    """Use as a context manager around a Spark action. ``enabled=False`` shows nothing."""

    def __init__(
        self,
        spark: Any,
        label: str = "",
        out: Optional[IO[str]] = None,
        every: float = 0.5,
        plain_every: float = 10.0,
        enabled: bool = True,
    ) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.label = label
        self.out = out if out is not None else sys.stderr
        self.terminal = _is_terminal(self.out)
        self.every = every if self.terminal else plain_every
        self.enabled = enabled
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._started = 0.0

    def __enter__(self) -> ProgressBar:
        self._started = time.monotonic()
        if self.enabled:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self.terminal:
                self.out.write("\r" + " " * 78 + "\r")
                self.out.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            line = JobProgress.of(self.tracker).line(self.label, time.monotonic() - self._started, self.terminal)
            self.out.write(f"\r{line}" if self.terminal else f"{line}\n")
            self.out.flush()


def _is_terminal(out: IO[str]) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
