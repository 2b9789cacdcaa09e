"""Independent Spark jobs submitted side by side from driver threads.

A run that writes many small tables (``cs.materialize``: one job per table) spends most of
each job's time in its fixed costs (planning, scheduling, a shuffle's few tasks, the driver's
commit) while the executors idle; submitted from a few threads at once, Spark's scheduler
runs their tasks together and the fixed costs overlap. Each thread inherits what the calling
thread set: Spark's local properties (the job group a caller watches, as the benchmarks do)
and the context variables (the progress display's steps).

Every task is waited for, also after a failure (a job left running would write on after
the run has failed); then the first failure, in submission order, is raised.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Sequence, TypeVar

from pyspark import inheritable_thread_target
from pyspark.sql import SparkSession

T = TypeVar("T")

#: Jobs at once: enough to overlap the fixed costs of small jobs; the executors' task slots,
#: not this, bound the memory (tasks of all jobs share them).
MAX_SIDE_BY_SIDE = 4


def side_by_side(spark: SparkSession, tasks: Sequence[Callable[[], T]], workers: int = MAX_SIDE_BY_SIDE) -> list[T]:
    """The results of ``tasks`` (each starting jobs on ``spark``), in order, each run in a thread
    of its own (at most ``workers`` at once); one task runs in the calling thread."""
    if len(tasks) <= 1 or workers <= 1:
        return [task() for task in tasks]
    with ThreadPoolExecutor(max_workers=min(workers, len(tasks)), thread_name_prefix="cdcwire-job") as pool:
        futures = [pool.submit(inheritable_thread_target(spark)(_in_context(task))) for task in tasks]
        errors = [f.exception() for f in futures]  # waits for every one
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return [f.result() for f in futures]


def _in_context(task: Callable[[], T]) -> Callable[[], T]:
    context = contextvars.copy_context()
    return lambda: context.run(task)
