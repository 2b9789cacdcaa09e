"""A protocol published by a third party with a JVM codec: ``examples/cdcwire-eventlines``, built
and installed by pip outside the suite's environment, passes its own tests, which hold its two
Spark tiers against each other with cdcwire's conformance kit (``cdcwire.testing.jvm_tiers``).

It must be a real installed distribution: Spark's Python workers find codecs by entry point, and
the Java tier's jar is compiled from the installed codecs' sources once per process. So its tests
run in a process of their own, where ``PYTHONPATH`` holds it, ``CDCWIRE_PLUGINS`` names it beside
the built-ins, and the jar is built in a cache directory of their own: the suite's processes,
many of whose tests enumerate the installed protocols, never see it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from test_third_party_plugin import pip

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cdcwire-eventlines"
DECODER_CLASS = "io/example/eventlines/EventLinesDecoder.class"


@pytest.fixture(scope="module")
def example_run(tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    """The example's tests, run where it is installed: their outcome, and the JVM cache they built."""
    base = tmp_path_factory.mktemp("outside-the-repo")
    source = base / "cdcwire-eventlines"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    done = pip("install", "-q", "--no-deps", "--no-build-isolation", "--target", str(base / "site"), str(source))
    assert done.returncode == 0, done.stderr
    built_in = sorted({ep.name for ep in entry_points(group="cdcwire")} - {"eventlines"})
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(base / "site"), os.environ.get("PYTHONPATH", "")]),
        "CDCWIRE_PLUGINS": ",".join([*built_in, "eventlines"]),
        "CDCWIRE_JVM_CACHE": str(base / "jvm-cache"),
    }
    env.pop("CDCWIRE_SUITE_PART", None)  # the suite's halves are the suite's: the example runs whole
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(source), str(source / "tests")],
        capture_output=True, text=True, cwd=source, env=env, timeout=600,
    )
    return run, base / "jvm-cache"


@pytest.mark.long_because("the example's own tests in a fresh process: its Java compiled into a jar of its own, one local Spark session")
def test_the_example_passes_its_conformance_and_two_tier_tests(example_run):
    run, _ = example_run
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary and "failed" not in summary, summary


def test_its_java_decoder_was_compiled_into_the_jar_its_spark_session_ran(example_run):
    _, cache = example_run
    (jar,) = cache.glob("cdcwire-jvm-*.jar")
    with zipfile.ZipFile(jar) as built:
        assert DECODER_CLASS in built.namelist()
