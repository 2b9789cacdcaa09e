"""``cdcwire run`` on Spark: summary, dead letters, a failing record's place; ``cdcwire demo``."""

from __future__ import annotations

import pytest

import io
import time


from cdcwire.cli import main

from spark_cases import workload_file


def test_run_writes_and_prints_a_reconciled_summary(spark, tmp_path, capsys):
    path = workload_file(tmp_path, events=600, seed=4)
    code = main(["run", "--input", path, "--sink-uri", f"file://{tmp_path}/out/t?protocol=craft", "--master", "local[2]"])
    out = capsys.readouterr().out
    assert code == 0
    assert "events in: 600" in out and "(reconciled)" in out and "events/s" in out


def test_run_with_dead_letter_sends_bad_lines_there(spark, tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    path.write_text(open(workload_file(tmp_path, events=300, seed=4)).read() + "{broken\n", encoding="utf-8")
    dead = tmp_path / "dead"
    code = main(["run", "--input", str(path), "--sink-uri", f"file://{tmp_path}/o/t?protocol=open-protocol",
                 "--dead-letter", str(dead)])
    out = capsys.readouterr().out
    assert code == 0
    assert "events in: 301" in out and "dead-lettered: 1" in out and "(reconciled)" in out
    assert "in.jsonl:301" in (next(dead.glob("*.jsonl"))).read_text()


def test_run_fails_on_a_bad_line_naming_file_and_line(spark, tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"resolved","ts":1}\n{"type":"nope"}\n', encoding="utf-8")
    code = main(["run", "--input", str(path), "--sink-uri", f"file://{tmp_path}/o/t?protocol=open-protocol"])
    assert code == 2
    assert "bad.jsonl:2" in capsys.readouterr().err


@pytest.mark.long_because("the demo as a user types it: every installed protocol written and verified through the CLI")
def test_demo_verifies_every_protocol_and_leaves_no_temporary_files(spark, tmp_path, capsys, monkeypatch):
    import tempfile

    import cdcwire

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the demo's own directory goes
    # 200 events: every table of the workload and its creation; that every protocol round-trips a
    # long workload is test_spark_pipeline's (1,500 events); here, that the demo verifies each one
    assert main(["demo", "--events", "200", "--master", "local[2]"]) == 0
    out = capsys.readouterr().out
    for protocol in cdcwire.protocols():
        assert f"\n{protocol}" in out
    assert "MISMATCH" not in out and "file sinks removed" in out
    assert not list(tmp_path.glob("cdcwire-demo-*"))


def test_demo_refuses_a_protocol_that_is_not_installed_before_starting_spark(tmp_path, capsys):
    assert main(["demo", "--protocols", "canal-json,no-such", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "--protocols names no-such: not an installed protocol" in err and "canal-json" in err
    assert not list(tmp_path.iterdir())


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_on_a_terminal(spark):
    from cdcwire.spark.runtime.progress import ProgressBar

    screen = _Terminal()
    with ProgressBar(spark, label="job", out=screen, every=0.01):
        time.sleep(0.1)
    # no job runs in the meantime: the bar says what it waits for, never "0/0 tasks"
    assert "\rjob: starting the next Spark job" in screen.getvalue() and "0/0" not in screen.getvalue()


def test_in_a_log_file_progress_is_plain_periodic_lines(spark):
    from cdcwire.spark.runtime.progress import ProgressBar

    log = io.StringIO()
    with ProgressBar(spark, label="job", out=log, plain_every=0.05):
        time.sleep(0.3)
    lines = log.getvalue().splitlines()
    assert len(lines) >= 2 and all(line.startswith("job: ") for line in lines)
    assert "\r" not in log.getvalue()


def test_progress_shows_the_running_stage_and_its_tasks(spark):

    from cdcwire.spark.runtime.progress import ProgressBar

    def slow(batches):
        for batch in batches:
            time.sleep(0.4)
            yield batch

    log = io.StringIO()
    with ProgressBar(spark, label="job", out=log, plain_every=0.1):
        spark.range(0, 4, numPartitions=2).mapInArrow(slow, "id long").collect()
    assert "job: stage 1/1 " in log.getvalue() and "/2 tasks" in log.getvalue()


def test_around_a_write_progress_counts_the_events_tasks_wrote(spark, tmp_path):
    from cdcwire import spark as cs
    from cdcwire.spark.runtime.progress import ProgressBar

    df = cs.read_events(spark, str(workload_file(tmp_path, events=300, seed=2)))
    log = io.StringIO()
    with ProgressBar(spark, label="write", out=log, plain_every=0.05):
        summary = cs.write(df, f"file://{tmp_path}/out/t?protocol=craft&partition-num=2")
    assert log.getvalue().splitlines()[-1].endswith(f", {summary.copies:,} events written")


def test_quiet_progress_writes_nothing(spark):
    from cdcwire.spark.runtime.progress import ProgressBar

    screen = _Terminal()
    with ProgressBar(spark, label="job", out=screen, every=0.01, enabled=False):
        time.sleep(0.05)
    assert screen.getvalue() == ""


def test_a_failed_run_in_a_fresh_process_prints_its_error_and_no_spark_logs(tmp_path):
    """Spark's start-up lines and the failed task's executor stack trace stay off the console."""
    import subprocess
    import sys

    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"resolved","ts":1}\n{"type":"nope"}\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "cdcwire", "run", "--quiet", "--master", "local[1]", "--input", str(path),
         "--sink-uri", f"file://{tmp_path}/o/t?protocol=open-protocol"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip() and "incubator modules" not in line]
    assert len(lines) == 1, done.stderr  # the JVM's own incubator-module notice is all Spark adds
    assert "bad.jsonl:2" in lines[0] and "log4j" not in done.stderr and "Executor" not in done.stderr


def test_a_running_stage_gets_an_estimate_of_its_time_left_from_its_finished_tasks():
    from cdcwire.spark.runtime.progress import JobProgress

    line = JobProgress(stages_done=1, stages=2, tasks_done=2, tasks=8, stage_seconds=10.0).line("run", 30.0, False, 4000)
    assert line == "run: stage 2/2 2/8 tasks, stage ~30s left, 4,000 events written (133/s) as tasks end   30.0s"


def test_a_failed_run_leaves_no_sink_directory_it_created(spark, tmp_path, capsys):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"resolved","ts":1}\n{"type":"nope"}\n', encoding="utf-8")
    code = main(["run", "--quiet", "--input", str(path), "--sink-uri", f"file://{tmp_path}/o/t?protocol=open-protocol"])
    assert code == 2 and "bad.jsonl:2" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def test_a_failed_run_into_an_existing_sink_removes_only_the_topic_it_created(spark, tmp_path, capsys):
    good = workload_file(tmp_path, events=50, seed=4)
    assert main(["encode", "--sink-uri", f"file://{tmp_path}/o/kept?protocol=open-protocol", good]) == 0
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "o" / "kept").rglob("*"))
    path = tmp_path / "bad.jsonl"
    path.write_text('{"type":"resolved","ts":1}\n{"type":"nope"}\n', encoding="utf-8")
    code = main(["run", "--quiet", "--input", str(path), "--sink-uri", f"file://{tmp_path}/o/new?protocol=open-protocol"])
    assert code == 2
    assert not (tmp_path / "o" / "new").exists()
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "o" / "kept").rglob("*")) == before


def _files(directory) -> dict:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_a_materialize_run_with_nothing_new_says_so_and_leaves_the_tables_unchanged(spark, tmp_path, capsys):
    source = f"file://{tmp_path}/src/t?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    assert main(["encode", "--sink-uri", source, workload_file(tmp_path, events=200, seed=5)]) == 0
    out = tmp_path / "tables"
    assert main(["materialize", source, "--out", str(out), "--quiet"]) == 0
    tables = _files(out)
    capsys.readouterr()
    assert main(["materialize", source, "--out", str(out), "--quiet"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("nothing to do: the source holds nothing new since the last run")
    assert _files(out) == tables


def test_a_materialize_run_with_nothing_new_says_so_before_spark_starts(spark, tmp_path):
    import os
    import subprocess
    import sys

    source = f"file://{tmp_path}/src/t?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    assert main(["encode", "--sink-uri", source, workload_file(tmp_path, events=100, seed=6)]) == 0
    out = tmp_path / "tables"
    assert main(["materialize", source, "--out", str(out), "--quiet"]) == 0
    # the run again as a user types it, with no Java to start: it answers, so it never asked Spark
    again = subprocess.run([sys.executable, "-m", "cdcwire", "materialize", source, "--out", str(out)],
                           capture_output=True, text=True, env={**os.environ, "JAVA_HOME": "/nonexistent-java"})
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("nothing to do: the source holds nothing new since the last run")


def test_a_local_session_shuffles_into_as_many_partitions_as_it_has_cores():
    import os

    from cdcwire.spark.session import local_parallelism

    assert [local_parallelism(m) for m in ("local", "local[3]", "local[2, 4]", "spark://h:7077")] == [1, 3, 2, None]
    assert local_parallelism("local[*]") == os.cpu_count()
