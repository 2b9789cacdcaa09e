"""``cdcwire run`` on Spark: summary, dead letters, a failing record's place; ``cdcwire demo``."""

from __future__ import annotations

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


def test_demo_verifies_every_protocol_and_leaves_no_temporary_files(spark, tmp_path, capsys, monkeypatch):
    import tempfile

    import cdcwire

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the demo's own directory goes
    assert main(["demo", "--events", "1200", "--master", "local[2]"]) == 0
    out = capsys.readouterr().out
    for protocol in cdcwire.protocols():
        assert f"\n{protocol}" in out
    assert "MISMATCH" not in out and "file sinks removed" in out
    assert not list(tmp_path.glob("cdcwire-demo-*"))


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_on_a_terminal(spark):
    from cdcwire.spark.progress import ProgressBar

    screen = _Terminal()
    with ProgressBar(spark, label="job", out=screen, every=0.01):
        time.sleep(0.1)
    assert "job [" in screen.getvalue() and "tasks" in screen.getvalue()


def test_the_progress_bar_stays_out_of_a_log_file(spark):
    from cdcwire.spark.progress import ProgressBar

    log = io.StringIO()
    with ProgressBar(spark, label="job", out=log, every=0.01):
        time.sleep(0.1)
    assert log.getvalue() == ""
