"""The distributions install on their own terms: the core alone, then one protocol, in a
fresh virtual environment with none of the extras (no Spark, no Kafka client, no hypothesis).

The venvs are made without pip of their own: the suite's pip installs into them
(``pip --python``), which saves the seconds ``ensurepip`` takes per venv and installs the same.
The core and the open plugin are built into wheels once per module; the README's own lines
still build from the source tree as a user runs them."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def bare_venv(tmp_path) -> Path:
    where = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(where)
    return where


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    """The core and the open plugin built once (what ``pip install ./core ./plugins/open`` builds
    and installs), with their dependencies: the tests install from here, offline."""
    where = tmp_path_factory.mktemp("wheels")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--disable-pip-version-check", "-w", str(where),
                           str(ROOT / "core"), str(ROOT / "plugins" / "open")], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return where


#: The environment of every command here: without PYTHONPATH, so what runs is what the venv has.
ENV = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}


def run(where: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(where / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=where, env=ENV)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def pip(where: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The suite's pip, installing into the venv at ``where`` (which has no pip of its own)."""
    return subprocess.run([sys.executable, "-m", "pip", "--python", str(where / "bin" / "python"), *args,
                           "-q", "--disable-pip-version-check"], capture_output=True, text=True, cwd=cwd or where,
                          env=ENV)


def pip_install(where: Path, wheels: Path, *names: str) -> None:
    done = pip(where, "install", "--no-index", "--find-links", str(wheels), *names)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_core_alone_installs_and_says_no_protocol_is_there(bare_venv, wheels):
    pip_install(bare_venv, wheels, "cdcwire")
    done = run(bare_venv, "cdcwire", "protocols", check=False)
    assert done.returncode == 1 and "no protocols installed" in done.stdout
    missing = run(bare_venv, "python", "-c", "import importlib.util as u; print([m for m in ('pyspark', 'confluent_kafka', 'hypothesis') if u.find_spec(m)])")
    assert missing.stdout.strip() == "[]"


def test_the_core_with_one_protocol_generates_encodes_and_inspects(bare_venv, wheels):
    pip_install(bare_venv, wheels, "cdcwire", "cdcwire-open")
    assert run(bare_venv, "cdcwire", "protocols").stdout.split()[4:7] == ["open-protocol", "default", "cdcwire-open"]
    events = bare_venv / "events.jsonl"
    run(bare_venv, "cdcwire", "generate", "--events", "200", "--seed", "3", "--out", str(events))
    sink = f"file://{bare_venv}/out/orders?protocol=open-protocol&partition-num=2"
    assert "events in: 200" in run(bare_venv, "cdcwire", "encode", "--sink-uri", sink, str(events)).stdout
    lines = run(bare_venv, "cdcwire", "inspect", sink).stdout.splitlines()
    assert lines and all(json.loads(line)["type"] in ("row", "ddl", "resolved") for line in lines)


def test_the_readme_install_lines_give_a_venv_that_runs_the_use_example(bare_venv, tmp_path):
    """Every install line of the README that does not pull pyspark (a 455 MB sdist), run as written
    from the repository root, then the README's Use example in that venv, printing what it shows."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- install-example:start -->\n```bash\n(.*?)```", readme, re.S).group(1)
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    installs = [shlex.split(line) for line in lines if line.startswith("pip install") and "spark" not in line]
    assert len(installs) == 2, installs
    for words in installs:
        done = pip(bare_venv, *words[1:], cwd=ROOT)
        assert done.returncode == 0, done.stdout + done.stderr
    use = re.search(r"<!-- use-example:start -->\n```python\n(.*?)```", readme, re.S).group(1)
    shown = [line[3:] for line in use.splitlines() if line.startswith("#> ")]
    script = tmp_path / "use_example.py"
    script.write_text(use.replace("/tmp/cdcwire-readme", str(tmp_path / "readme")))
    done = run(bare_venv, "python", str(script))
    assert done.stdout.splitlines() == shown
