"""Jobs submitted side by side from driver threads (``cdcwire.spark.runtime.side_by_side``): what
the caller set reaches every thread, results keep their order, and a failure waits for the rest."""

from __future__ import annotations

import threading
import time

import pytest

from cdcwire.spark.runtime.run_steps import RunSteps, step, unwatch, watch
from cdcwire.spark.runtime.side_by_side import side_by_side


def test_results_come_in_the_order_of_the_tasks_whatever_order_they_finish_in(spark) -> None:
    def task(n: int):
        return lambda: time.sleep(0.05 * (3 - n)) or n

    assert side_by_side(spark, [task(n) for n in range(3)]) == [0, 1, 2]


def test_each_thread_sees_the_callers_job_group_and_progress_steps(spark) -> None:
    steps = RunSteps()
    token = watch(steps)
    spark.sparkContext.setLocalProperty("cdcwire.test.group", "run-7")
    try:
        seen = side_by_side(spark, [
            lambda name=name: (step(f"applying {name}"), spark.sparkContext.getLocalProperty("cdcwire.test.group"),
                               threading.current_thread().name)[1:]
            for name in ("a.x", "a.y")
        ])
    finally:
        spark.sparkContext.setLocalProperty("cdcwire.test.group", None)
        unwatch(token)
    assert [group for group, _ in seen] == ["run-7", "run-7"]
    assert all(thread.startswith("cdcwire-job") for _, thread in seen)
    assert steps.name in ("applying a.x", "applying a.y")  # told from the threads, to the caller's steps


def test_a_failure_is_raised_after_every_other_task_has_finished(spark) -> None:
    finished = []

    def slow() -> None:
        time.sleep(0.3)
        finished.append("slow")

    def failing() -> None:
        raise ValueError("table b failed")

    with pytest.raises(ValueError, match="table b failed"):
        side_by_side(spark, [failing, slow])
    assert finished == ["slow"]
