"""Spark's noise kept off the user's stderr: the JVM's incubator-module warning and the PySpark
workers' BrokenPipeError tracebacks after ``df.show(n)`` (``cdcwire.spark.runtime.jvm_stderr``)."""

from __future__ import annotations

import pytest

import os
import subprocess
import sys
import textwrap

from cdcwire.spark.runtime.jvm_stderr import filtered_lines

BROKEN_PIPE = [
    "Traceback (most recent call last):\n",
    '  File "/x/pyspark/worker.py", line 3, in main\n',
    "    process()\n",
    "BrokenPipeError: [Errno 32] Broken pipe\n",
]


def test_a_workers_broken_pipe_traceback_is_dropped_and_what_surrounds_it_kept():
    lines = ["before\n", *BROKEN_PIPE, "\n", "During handling of the above exception, another exception occurred:\n",
             "\n", *BROKEN_PIPE, "after\n"]
    assert filtered_lines(lines) == ["before\n", "after\n"]


def test_any_other_traceback_is_passed_on_whole():
    other = [*BROKEN_PIPE[:3], "ValueError: bad\n"]
    assert filtered_lines(other) == other


def test_a_traceback_after_a_progress_bar_on_the_same_line_is_dropped_and_the_bar_kept():
    bar = "[Stage 0:>          (0 + 1) / 1]"
    assert filtered_lines([bar + BROKEN_PIPE[0], *BROKEN_PIPE[1:], "after\n"]) == [bar, "after\n"]


def test_the_incubator_warning_is_dropped():
    assert filtered_lines(["WARNING: Using incubator modules: jdk.incubator.vector\n", "kept\n"]) == ["kept\n"]


def test_a_session_showing_n_rows_prints_neither_the_incubator_warning_nor_broken_pipes(tmp_path):
    script = textwrap.dedent("""
        from cdcwire import spark as cs
        spark = cs.spark_session("local[2]")
        # Python workers (mapInArrow, as cdcwire's readers) still writing when show(3) has its rows
        spark.range(0, 2000000, numPartitions=2).mapInArrow(lambda batches: batches, "id long").show(3)
        print("done")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "SPARK_LOCAL_DIRS": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("done")
    assert "incubator" not in done.stderr and "BrokenPipeError" not in done.stderr, done.stderr


@pytest.mark.long_because("a Spark JVM in a process of its own, to see what reaches the user's stderr")
def test_a_users_action_meeting_a_bad_message_ends_with_its_one_line_first_and_no_executor_trace(tmp_path):
    uri = f"file://{tmp_path}/src/orders?protocol=open-protocol&partition-num=1"
    script = textwrap.dedent(f"""
        import cdcwire
        from cdcwire import spark as cs
        from cdcwire.workload import Workload
        uri = {uri!r}
        good = cdcwire.encode(uri, list(Workload(20, seed=3)))
        cdcwire.write(uri, good + [cdcwire.Message("orders", 0, None, b"not open-protocol")])
        spark = cs.spark_session("local[2]")
        cs.read(spark, uri).groupBy("kind").count().show()
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path, env={**os.environ, "SPARK_LOCAL_DIRS": str(tmp_path)})
    assert done.returncode == 1
    raised = [line for line in done.stderr.splitlines() if line.startswith("pyspark.errors.exceptions")]
    assert len(raised) == 1 and f"DecodeError: orders/0/{len(cdcwire_messages(uri)) - 1}" in raised[0], done.stderr
    assert "ERROR Executor" not in done.stderr and "\tat org.apache" not in done.stderr, done.stderr


def cdcwire_messages(uri: str) -> list:
    import cdcwire

    return list(cdcwire.read(uri))
