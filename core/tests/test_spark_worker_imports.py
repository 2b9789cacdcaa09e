"""What a Spark Python worker loads of ``cdcwire.spark``: the one module its function lives in and
what that module imports, not the whole package. Python runs a package's ``__init__`` before any
of its modules, and every job's first worker (a fresh process) pays for what that loads; the
package's public names therefore load on first use (PEP 562), and ``format("cdcwire")``, which
the process planning each read unpickles, imports its readers and writer where Spark asks for
them. Each check runs in a fresh interpreter, as a worker starts."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys

import pytest

#: Modules a worker running a job's function or planning a read does not need.
HEAVY = ("pandas", "cdcwire.spark.tables.materialize", "cdcwire.spark.pipeline", "cdcwire.spark.reading",
         "cdcwire.spark.reader.storage_source", "cdcwire.spark.writer.format_writer")


def loaded_after(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after ``statement``."""
    done = subprocess.run(
        [sys.executable, "-c", f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize("module", ["cdcwire.spark", "cdcwire.spark.runtime.job_errors", "cdcwire.spark.writer.encoding"])
def test_importing_one_spark_module_loads_none_of_the_packages_heavy_others(module):
    loaded = loaded_after(f"import {module}")
    assert module in loaded
    assert sorted(loaded.intersection(HEAVY)) == []


def test_the_read_planners_import_of_the_data_source_loads_no_writer_and_no_other_source():
    loaded = loaded_after("from cdcwire.spark.format import CdcwireDataSource")
    assert sorted(loaded.intersection(HEAVY)) == []
    assert "cdcwire.spark.reader.stream_source" not in loaded


def test_every_public_name_of_the_package_loads_on_first_use():
    loaded = loaded_after("from cdcwire.spark import *\nimport cdcwire.spark as cs\n"
                          "assert all(getattr(cs, name) is globals()[name] for name in cs.__all__)")
    assert "cdcwire.spark.tables.materialize" in loaded and "cdcwire.spark.format" in loaded


def test_a_name_the_package_lacks_is_an_attribute_error():
    import cdcwire.spark as cs

    with pytest.raises(AttributeError, match="module 'cdcwire.spark' has no attribute 'no_such_name'"):
        cs.no_such_name


def test_materialize_keeps_the_signature_and_docstring_of_the_tables_materialize():
    import cdcwire.spark as cs
    from cdcwire.spark.tables.materialize import materialize

    assert inspect.signature(cs.materialize) == inspect.signature(materialize)
    assert cs.materialize.__doc__ == materialize.__doc__
