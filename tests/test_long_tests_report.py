"""The run's report lists the tests that took long, with the reason each gives."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_pytest(tmp_path: Path, source: str) -> str:
    (tmp_path / "conftest.py").write_text('pytest_plugins = ["fixtures.long_tests"]\n')
    (tmp_path / "test_sample.py").write_text(source)
    env = {**os.environ, "CDCWIRE_LONG_TEST_SECONDS": "0.2", "PYTHONPATH": str(REPO / "tests")}
    env.pop("CDCWIRE_SUITE_PART", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_long_test_is_listed_with_the_reason_it_gives(tmp_path):
    out = run_pytest(tmp_path, (
        "import time, pytest\n"
        "@pytest.mark.long_because('waits for a broker restart')\n"
        "def test_slow():\n    time.sleep(0.4)\n"
        "def test_quick():\n    pass\n"
    ))
    assert "tests over 0.2 s, and why" in out
    assert "test_sample.py::test_slow: waits for a broker restart" in out
    assert "test_quick" not in out


def test_a_long_test_without_a_reason_is_listed_as_giving_none(tmp_path):
    out = run_pytest(tmp_path, "import time\ndef test_slow():\n    time.sleep(0.4)\n")
    assert "test_sample.py::test_slow: no reason given" in out


def test_a_run_without_long_tests_adds_no_section(tmp_path):
    out = run_pytest(tmp_path, "def test_quick():\n    pass\n")
    assert "and why" not in out
