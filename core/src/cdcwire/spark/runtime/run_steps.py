"""The step a long run is in, told by the run and shown by the progress display around it.

A run such as ``cs.materialize`` is a few Spark jobs whose stages mean nothing to its user
("stage 2/3"); the run names its steps instead, one short call each::

    step("staging events")
    step("deduplicating changes", events=events_read)
    step(f"applying {name}", done=i, total=len(tables))
    step("committing", done=len(tables), total=len(tables))

and the :class:`~cdcwire.spark.runtime.progress.ProgressBar` around it shows the step, the
tables done of all, the events read with their rate and an estimate of what is left, and
closes with a summary line. Without a display around the run a step call does nothing.
"""

from __future__ import annotations

import time
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Optional

#: The RunSteps of the display around the current run, if any (set by the display's thread of
#: control, the one that runs the run: a step is told there and read by the display's own thread).
_CURRENT: ContextVar[Optional["RunSteps"]] = ContextVar("cdcwire_run_steps", default=None)


@dataclass
class RunSteps:
    """What a run has told so far. Written by the run, read by the display's thread: each field
    is replaced whole, so the display sees an old value or a new one."""

    started: float = field(default_factory=time.monotonic)
    name: str = ""
    done: int = 0  # tables applied
    total: int = 0  # tables to apply (0: not known yet)
    events: Optional[int] = None  # events the run read, once counted
    tables_since: Optional[float] = None  # when the first table began: the time per table since then
    seconds: dict[str, float] = field(default_factory=dict)  # per step name, until the next step (or end())
    _step_name: str = ""
    _step_since: Optional[float] = None

    def tell(self, name: str, done: Optional[int] = None, total: Optional[int] = None,
             events: Optional[int] = None, now: Optional[float] = None) -> None:
        now = time.monotonic() if now is None else now
        self.end(now)
        self._step_name, self._step_since = name, now
        if total is not None:
            self.total = total
            if self.tables_since is None:
                self.tables_since = now
        if done is not None:
            self.done = done
        if events is not None:
            self.events = events
        self.name = f"{name} ({done + 1}/{total})" if done is not None and total is not None and done < total else name

    def end(self, now: Optional[float] = None) -> None:
        """Close the current step: its time goes into ``seconds`` (where a run's time went, by step)."""
        if self._step_since is not None:
            now = time.monotonic() if now is None else now
            self.seconds[self._step_name] = self.seconds.get(self._step_name, 0.0) + now - self._step_since
            self._step_since = None

    def left(self, now: float) -> Optional[float]:
        """Seconds until the last table is applied, from the time per table so far (None before
        the first one is done)."""
        if self.tables_since is None or not 0 < self.done < self.total:
            return None
        return (now - self.tables_since) / self.done * (self.total - self.done)

    def text(self, now: float) -> str:
        """``applying shop.orders (3/12), 45,000 events read (3,600/s), 2/12 tables applied, ~20s left``."""
        left = self.left(now)
        return ", ".join([self.name, *self._counts(now), *([f"~{left:.0f}s left"] if left is not None else [])])

    def summary(self, now: float) -> str:
        """The closing line's counts: ``45,000 events read (3,600/s), 12/12 tables applied``."""
        return ", ".join(self._counts(now))

    def _counts(self, now: float) -> list[str]:
        counts = []
        if self.events is not None:
            elapsed = now - self.started
            counts.append(f"{self.events:,} events read" + (f" ({self.events / elapsed:,.0f}/s)" if elapsed > 0 else ""))
        if self.total:
            counts.append(f"{self.done}/{self.total} tables applied")
        return counts


def step(name: str, done: Optional[int] = None, total: Optional[int] = None, events: Optional[int] = None) -> None:
    """Tell the progress display around this run that it is now in step ``name``, with ``done``
    of ``total`` tables applied before it and ``events`` read (each kept until told again)."""
    steps = _CURRENT.get()
    if steps is not None:
        steps.tell(name, done, total, events)


def watch(steps: RunSteps) -> Token:
    """Make ``steps`` the ones the run in this thread tells (the display calls this as it
    starts, and :func:`unwatch` with the token as it ends)."""
    return _CURRENT.set(steps)


def unwatch(token: Token) -> None:
    _CURRENT.reset(token)
