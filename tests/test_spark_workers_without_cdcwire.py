"""A session whose Python workers cannot import cdcwire fails with an error that says so and what to do."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

#: Runs Spark's Python workers in this interpreter, but with cdcwire not importable: what a
#: cluster's workers are when cdcwire was installed on the driver only.
WORKER = textwrap.dedent(
    """\
    import importlib.abc, runpy, sys

    class NoCdcwire(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name == "cdcwire" or name.startswith("cdcwire.") or name.startswith("cdcwire_"):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoCdcwire())
    sys.argv = sys.argv[2:] if sys.argv[1:2] == ["-m"] else sys.argv
    runpy.run_module(sys.argv[0] if sys.argv else "pyspark.daemon", run_name="__main__", alter_sys=True)
    """
)

DRIVER = textwrap.dedent(
    """\
    import sys
    import cdcwire
    from cdcwire import spark as cs

    spark = cs.spark_session("local[1]", log_level="OFF")
    try:
        cs.write(cs.read_events(spark, sys.argv[1]), sys.argv[2])
    except cdcwire.CdcwireError as exc:
        print("CdcwireError:", exc)
    """
)


def test_workers_that_cannot_import_cdcwire_are_named_with_what_to_do(tmp_path):
    import cdcwire
    from cdcwire.workload import Workload

    events = tmp_path / "events.jsonl"
    with open(events, "w", encoding="utf-8") as out:
        cdcwire.write_jsonl(Workload(20, seed=1), out)
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    wrapper = tmp_path / "python-without-cdcwire"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} {worker} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PYSPARK_PYTHON": str(wrapper)}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(events), f"file://{tmp_path}/out/t?protocol=open-protocol"],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert "CdcwireError: Spark's Python workers cannot import 'cdcwire" in done.stdout, done.stdout + done.stderr
    assert "PYSPARK_PYTHON" in done.stdout and "cdcwire.spark.spark_session()" in done.stdout
