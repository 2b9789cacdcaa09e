"""The Spark JVM's stderr without the noise that is never the user's business.

Why: what the JVM and the Python workers it starts write to stderr reaches the user's terminal
as it is, and two kinds of it say nothing a user can act on:

- ``WARNING: Using incubator modules: jdk.incubator.vector``: Spark's launcher always adds that
  module, and the JVM announces it at every start (no JVM flag turns the line off);
- a PySpark worker's ``BrokenPipeError: [Errno 32] Broken pipe`` traceback: ``df.show(n)`` and
  ``take(n)`` stop reading a task's output once they have their rows, and the worker still
  writing says so.

How: :func:`launch_quiet_gateway` starts the JVM as PySpark would (``launch_gateway``), with its
stderr on a pipe that a daemon thread copies to this process's stderr (file descriptor 2, where
it went before), dropping those lines (:class:`StderrFilter`) and nothing else.
"""

from __future__ import annotations

import os
import subprocess
import threading
from typing import Callable, Iterable, Optional

#: The JVM's line that Spark's ``--add-modules=jdk.incubator.vector`` brings.
INCUBATOR_LINE = "WARNING: Using incubator modules:"
_BROKEN_PIPE = "BrokenPipeError: [Errno 32] Broken pipe"
_TRACEBACK = "Traceback (most recent call last)"
_CHAINED = ("During handling of the above exception", "The above exception was the direct cause")


class StderrFilter:
    """Lines in, lines out, without the incubator warning and the Python tracebacks that end in a
    BrokenPipeError. A traceback is held until its last line (the exception's) says which it is."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self.emit = emit
        self._held: list[str] = []
        self._dropped = False

    @property
    def holding(self) -> bool:
        """Whether a traceback is being held (until its last line says whether it is passed on)."""
        return bool(self._held)

    def feed(self, line: str) -> None:
        at = line.find(_TRACEBACK)
        if at > 0 and not self._held:  # a traceback that starts after a progress bar's \r-redrawn text
            self.feed(line[:at])
            line = line[at:]
        if self._held:
            self._held.append(line)
            if not line.startswith((" ", "\t", _TRACEBACK)) and line.strip() and \
                    not line.startswith(_CHAINED):
                held, self._held = self._held, []
                self._dropped = line.startswith(_BROKEN_PIPE)
                if not self._dropped:
                    for kept in held:
                        self.emit(kept)
            return
        if self._dropped and (not line.strip() or line.startswith(_CHAINED)):
            return  # what joins a dropped traceback to the next: dropped with it
        self._dropped = False
        if line.startswith(_TRACEBACK):
            self._held.append(line)
        elif not line.startswith(INCUBATOR_LINE):
            self.emit(line)

    def close(self) -> None:
        """The stream ended: a traceback still held was cut short and is given as it is."""
        held, self._held = self._held, []
        for line in held:
            self.emit(line)


def filtered_lines(lines: Iterable[str]) -> list[str]:
    """``lines`` as :class:`StderrFilter` passes them on."""
    out: list[str] = []
    f = StderrFilter(out.append)
    for line in lines:
        f.feed(line)
    f.close()
    return out


def launch_quiet_gateway(options: dict) -> Optional[object]:
    """Start Spark's JVM for a session with ``options`` (the builder's) and its stderr filtered,
    making it the gateway the session's SparkContext takes; None when a JVM already runs (then
    its stderr is what it is)."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    if SparkContext._gateway is not None:
        return None
    conf = SparkConf()
    for key, value in options.items():
        conf.set(key, value)
    gateway = launch_gateway(conf, popen_kwargs={"stderr": subprocess.PIPE})
    proc = getattr(gateway, "proc", None)
    if proc is not None and proc.stderr is not None:
        threading.Thread(target=_copy, args=(proc.stderr,), name="cdcwire-jvm-stderr", daemon=True).start()
    SparkContext._gateway = gateway
    SparkContext._jvm = gateway.jvm
    return gateway


def _copy(stream) -> None:
    """Copy the JVM's stderr to ours through a :class:`StderrFilter`. A line still being written
    (Spark's console progress bar redraws one with ``\r``) is passed on at once unless it may be
    the start of a line the filter drops."""
    def emit(text: str) -> None:
        try:
            os.write(2, text.encode("utf-8", "replace"))
        except OSError:
            pass

    f = StderrFilter(emit)
    fd = stream.fileno()
    partial = ""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        *lines, partial = (partial + chunk.decode("utf-8", "replace")).split("\n")
        for line in lines:
            f.feed(line + "\n")
        if partial and not f.holding and not _may_start_dropped(partial):
            f.feed(partial)  # a line in progress: given now, its rest follows as a line of its own
            partial = ""
    if partial:
        f.feed(partial)
    f.close()


def _may_start_dropped(text: str) -> bool:
    return any(start.startswith(text[: len(start)]) for start in (INCUBATOR_LINE, _TRACEBACK))
