"""What ``cdcwire materialize`` can tell without Spark it says before a JVM starts, and a layout
that it could not read later is named when it is written. The command runs as a user types it,
with no Java to start (``JAVA_HOME`` pointing nowhere): an answer means Spark was never asked."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, ResolvedEvent, RowChangedEvent

CLI = [sys.executable, "-m", "cdcwire"]
ROW = RowChangedEvent(
    commit_ts=415508878783938562, schema="app", table="t",
    columns=(Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1), Column("v", T.VARCHAR, F.NULLABLE, "a")),
)


def without_java(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAVA_HOME": "/nonexistent-java"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=env, timeout=120)


def test_materialize_refuses_a_csv_layout_without_commit_ts_before_spark_starts(tmp_path: Path) -> None:
    uri = f"local://{tmp_path}/layout?protocol=csv"
    cdcwire.write_storage(uri, [ROW, ResolvedEvent(ROW.commit_ts + 1)])
    done = without_java("materialize", uri, "--out", str(tmp_path / "tables"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"cdcwire materialize: error: local://{tmp_path}/layout: materialize needs each row's commit ts, to order a key's"
        " changes and to tell the rows an earlier run applied: give include-commit-ts=true (TiCDC must write the"
        " layout with it)"
    ]


def test_writing_a_csv_layout_without_commit_ts_says_once_it_cannot_be_materialized(tmp_path: Path, caplog) -> None:
    uri = f"local://{tmp_path}/layout?protocol=csv"
    with caplog.at_level(logging.WARNING, logger="cdcwire"):
        cdcwire.write_storage(uri, [ROW, ResolvedEvent(ROW.commit_ts + 1)])
        cdcwire.write_storage(uri, [ResolvedEvent(ROW.commit_ts + 2)])
    said = [r.getMessage() for r in caplog.records if "materialize" in r.getMessage()]
    assert said == [
        f"local://{tmp_path}/layout is written without include-commit-ts=true: cdcwire materialize and a storage"
        " stream cannot read it later (they need each row's commit ts); write it with include-commit-ts=true to"
        " keep that open"
    ]


def test_writing_a_csv_layout_with_commit_ts_says_nothing(tmp_path: Path, caplog) -> None:
    with caplog.at_level(logging.WARNING, logger="cdcwire"):
        cdcwire.write_storage(f"local://{tmp_path}/layout?protocol=csv&include-commit-ts=true", [ROW])
    assert not [r for r in caplog.records if "materialize" in r.getMessage()]
