"""Progress of a Spark action on stderr, from Spark's status tracker: stages and tasks of the running jobs.

On a terminal one line is redrawn twice a second; anywhere else (a CI log, a file) a
plain line is written every ``plain_every`` seconds, so a long run shows it is alive
without filling the log with carriage returns. Around ``cdcwire.spark.write`` it also
shows the event copies written and their rate, as Spark reports them: when a writing
task ends (an accumulator, so a retried task counts twice; the closing summary's
counts come from the tasks' results and are exact). The running stage gets an
estimate of its time left once a task of it has finished. A run that names its steps
(:mod:`cdcwire.spark.runtime.run_steps`, as ``cs.materialize`` does) has them shown first,
with its tables done, events read and rate, and a closing summary line.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO, Any, Optional

from .run_steps import RunSteps, unwatch, watch

#: The accumulator of the ProgressBar around the current action, if any (see progress_counter).
_COUNTER: ContextVar[Any] = ContextVar("cdcwire_progress_counter", default=None)


def progress_counter() -> Any:
    """The accumulator a write's tasks add their event copies to for the progress display
    around it, or None when nothing displays progress."""
    return _COUNTER.get()


@dataclass(frozen=True, slots=True)
class JobProgress:
    """Where the running jobs are: stages finished of all their stages, and the tasks of the
    stages running now."""

    stages_done: int
    stages: int
    tasks_done: int
    tasks: int
    stage_seconds: float = 0.0  # how long the running stage has run (the longest, if several)

    @classmethod
    def of(cls, tracker: Any, first_seen: dict[int, float]) -> JobProgress:
        """``first_seen``: when each stage was first seen running (monotonic), kept by the caller
        across calls (Spark's Python status API gives no stage start time)."""
        stages_done = stages = tasks_done = tasks = 0
        stage_seconds = 0.0
        now = time.monotonic()
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
                    stage_seconds = max(stage_seconds, now - first_seen.setdefault(stage_id, now))
                elif info is not None and info.numTasks and info.numCompletedTasks >= info.numTasks:
                    stages_done += 1
        return cls(stages_done, stages, tasks_done, tasks, stage_seconds)

    def line(self, label: str, elapsed: float, bar: bool, events: Optional[int] = None, step: str = "") -> str:
        tasks = f"{self.tasks_done}/{self.tasks} tasks"
        if bar:
            width = 24
            filled = int(width * self.tasks_done / self.tasks) if self.tasks else 0
            tasks = f"[{'#' * filled}{'.' * (width - filled)}] {tasks}"
        if not self.stages and not self.tasks:  # between jobs, or before the first: no tasks to count
            return f"{label}: {step if step else 'starting the next Spark job'}  {elapsed:5.1f}s"
        stage = f"stage {min(self.stages_done + 1, self.stages)}/{self.stages}" if self.stages else "starting"
        text = f"{label}: {step + '; ' if step else ''}{stage} {tasks}"
        if 0 < self.tasks_done < self.tasks and self.stage_seconds > 0:
            left = self.stage_seconds * (self.tasks - self.tasks_done) / self.tasks_done
            text += f", stage ~{left:.0f}s left"
        if events:
            text += f", {events:,} events written ({events / elapsed:,.0f}/s) as tasks end" if elapsed > 0 else ""
        return f"{text}  {elapsed:5.1f}s"


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
        since: Optional[float] = None,
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
        #: When the seconds shown count from (monotonic): the command's start, JVM start-up and all,
        #: when the caller gives it; else entering the block
        self.since = since
        self.events = spark.sparkContext.accumulator(0) if enabled else None
        self._token: Any = None
        self.steps = RunSteps() if enabled else None
        self._steps_token: Any = None
        self._first_seen: dict[int, float] = {}

    def __enter__(self) -> ProgressBar:
        self._started = time.monotonic()
        if self.enabled:
            self._token = _COUNTER.set(self.events)
            self.steps.started = self._started
            self._steps_token = watch(self.steps)
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, failure: object, *exc: object) -> None:
        if self._token is not None:
            _COUNTER.reset(self._token)
            unwatch(self._steps_token)
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self.terminal:
                self.out.write("\r" + " " * self._width() + "\r")
            stepped = self.steps is not None and self.steps.name
            if failure is None and (stepped or not self.terminal):  # a log keeps where it ended; a run of steps sums up
                now = time.monotonic()
                if stepped:
                    counts = f", {self.steps.summary(now)}"
                else:
                    events = self.events.value if self.events is not None else 0
                    counts = f", {events:,} events written" if events else ""
                since = self._started if self.since is None else self.since
                self.out.write(f"{self.label}: ended after {now - since:.1f}s{counts}\n")
            self.out.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            events = self.events.value if self.events is not None else None
            now = time.monotonic()
            step = self.steps.text(now) if self.steps is not None and self.steps.name else ""
            line = JobProgress.of(self.tracker, self._first_seen).line(
                self.label, now - (self._started if self.since is None else self.since), self.terminal and not step,
                events, step)
            if self.terminal:  # one screen line, or \r would redraw only its last row
                self.out.write("\r" + line[:self._width()].ljust(self._width()))
            else:
                self.out.write(f"{line}\n")
            self.out.flush()

    def _width(self) -> int:
        return max(20, shutil.get_terminal_size().columns - 1)


def _is_terminal(out: IO[str]) -> bool:
    try:
        return out.isatty()
    except (AttributeError, ValueError):
        return False
