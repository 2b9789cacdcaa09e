"""The distributions install on their own terms: the core alone, then one protocol, in a
fresh virtual environment with none of the extras (no Spark, no Kafka client, no hypothesis)."""

from __future__ import annotations

import json
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def bare_venv(tmp_path) -> Path:
    where = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(where)
    return where


def run(where: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([str(where / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=where)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def pip_install(where: Path, *targets: str) -> None:
    run(where, "python", "-m", "pip", "install", "-q", "--disable-pip-version-check", *targets)


def test_the_core_alone_installs_and_says_no_protocol_is_there(bare_venv):
    pip_install(bare_venv, str(ROOT / "core"))
    done = run(bare_venv, "cdcwire", "protocols", check=False)
    assert done.returncode == 1 and "no protocols installed" in done.stdout
    missing = run(bare_venv, "python", "-c", "import importlib.util as u; print([m for m in ('pyspark', 'confluent_kafka', 'hypothesis') if u.find_spec(m)])")
    assert missing.stdout.strip() == "[]"


def test_the_core_with_one_protocol_generates_encodes_and_inspects(bare_venv):
    pip_install(bare_venv, str(ROOT / "core"), str(ROOT / "plugins" / "open"))
    assert run(bare_venv, "cdcwire", "protocols").stdout.split()[4:7] == ["open-protocol", "default", "cdcwire-open"]
    events = bare_venv / "events.jsonl"
    run(bare_venv, "cdcwire", "generate", "--events", "200", "--seed", "3", "--out", str(events))
    sink = f"file://{bare_venv}/out/orders?protocol=open-protocol&partition-num=2"
    assert "events in: 200" in run(bare_venv, "cdcwire", "encode", "--sink-uri", sink, str(events)).stdout
    lines = run(bare_venv, "cdcwire", "inspect", sink).stdout.splitlines()
    assert lines and all(json.loads(line)["type"] in ("row", "ddl", "resolved") for line in lines)
