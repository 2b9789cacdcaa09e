"""The progress line of the CLI's Spark commands: no "0/0 tasks" between jobs, and "ended after"
counted from the command's start (the JVM's start-up is part of what the user waited for)."""

from __future__ import annotations

import io
import re
import time

from cdcwire.spark.runtime.progress import JobProgress, ProgressBar


def test_a_line_with_no_job_running_names_no_zero_tasks() -> None:
    idle = JobProgress(stages_done=0, stages=0, tasks_done=0, tasks=0)
    assert idle.line("cdcwire run", 5.0, bar=False) == "cdcwire run: starting the next Spark job    5.0s"
    assert idle.line("cdcwire materialize", 5.0, bar=False, step="staging events") == "cdcwire materialize: staging events    5.0s"


def test_a_running_stage_still_shows_its_tasks() -> None:
    running = JobProgress(stages_done=0, stages=1, tasks_done=1, tasks=3, stage_seconds=2.0)
    assert running.line("cdcwire run", 5.0, bar=False).startswith("cdcwire run: stage 1/1 1/3 tasks, stage ~4s left")


def test_ended_after_counts_from_the_commands_start(spark) -> None:
    out = io.StringIO()
    with ProgressBar(spark, label="cdcwire run", out=out, since=time.monotonic() - 30.0):
        pass
    seconds = float(re.fullmatch(r"cdcwire run: ended after ([\d.]+)s\n", out.getvalue()).group(1))
    assert 30.0 <= seconds < 60.0
