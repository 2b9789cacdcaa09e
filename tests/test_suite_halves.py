"""``scripts/test`` runs the suite as two halves side by side (``CDCWIRE_SUITE_PART``, see
tests/conftest.py): the tests on the shared Spark session, and the rest, which also runs the Spark
tests of a few files on a session of its own so that the halves end about together."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _suite_conftest():
    """tests/conftest.py, loaded by its path (``import conftest`` may find a plugin's)."""
    spec = importlib.util.spec_from_file_location("cdcwire_suite_conftest", REPO / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


REST_HALF_SPARK_FILES = _suite_conftest().REST_HALF_SPARK_FILES


def collected(part: str, *paths: str) -> list[str]:
    """The node ids a half of the suite runs, of the test files given."""
    env = {**os.environ, "CDCWIRE_SUITE_PART": part}
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", *paths],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_listed_files_spark_tests_run_in_the_rest_half_and_the_local_cluster_stays_out_of_it() -> None:
    listed, cluster = "tests/test_spark_storage_read.py", "tests/test_spark_materialize_cluster.py"
    rest = collected("rest", listed, cluster)
    assert "tests/test_spark_storage_read.py::test_the_reference_layout_reads_in_spark_as_in_python" in rest
    assert not [n for n in rest if n.startswith(cluster)]


def test_every_file_listed_for_the_rest_half_is_there_and_uses_no_local_cluster() -> None:
    for path in sorted(REST_HALF_SPARK_FILES):
        text = (REPO / path).read_text(encoding="utf-8")
        assert "def cluster(" not in text and "(cluster" not in text and ", cluster" not in text, path
