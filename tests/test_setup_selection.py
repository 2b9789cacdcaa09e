"""``scripts/test`` installs PyFlink (``.venv-flink``, 844 MB) only when a selected test needs it:
``scripts/needs-flink`` answers for the pytest arguments a user gives ``scripts/test``."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def needs_flink(*args: str) -> bool:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "needs-flink"), *args], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode == 0


def test_one_file_unrelated_to_debezium_needs_no_pyflink() -> None:
    assert not needs_flink("tests/test_readme.py", "-x")


def test_the_whole_suite_needs_pyflink_as_ci_runs_it() -> None:
    assert needs_flink("-q")


def test_the_flink_judge_by_file_directory_or_node_id_needs_pyflink() -> None:
    assert needs_flink("plugins/debezium/tests/test_flink_reads_debezium.py")
    assert needs_flink("plugins/debezium")
    assert needs_flink("plugins/debezium/tests/test_flink_reads_debezium.py::test_flink_reads_the_rows", "-x")


def test_a_file_that_only_names_pyflinks_venv_needs_no_pyflink() -> None:
    # This file names .venv-flink in its docstring; running it alone installs nothing more.
    assert not needs_flink("tests/test_setup_selection.py")


def test_a_module_marked_needs_pyflink_needs_it(tmp_path: Path) -> None:
    marked = tmp_path / "test_judged_by_flink.py"
    marked.write_text('"""Read by Flink."""\nimport pytest\n\npytestmark = pytest.mark.needs_pyflink\n')
    mentioned = tmp_path / "test_mentions_flink.py"
    mentioned.write_text('"""Not Flink: .venv-flink and pytest.mark.needs_pyflink are only named here."""\n')
    assert needs_flink(str(marked))
    assert not needs_flink(str(mentioned))
