"""A materialize run killed after its Delta commits and before its state's commit: the next run
finds what the tables already hold in their own commits and gives the tables of a replay."""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.spark.tables.table_state import TablesState

from test_spark_materialize import _replayed, _stream


def _delta_rows(path) -> dict[int, dict]:
    from deltalake import DeltaTable

    rows = DeltaTable(str(path)).to_pyarrow_table().to_pylist()
    return {r["id"]: {k: v for k, v in r.items() if v is not None} for r in rows}


def test_a_delta_run_killed_before_its_state_is_saved_is_rerun_to_the_tables_of_a_replay(spark, tmp_path, monkeypatch) -> None:
    uri = f"file://{tmp_path}/src/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    first, second = _stream(1, 10 << 30, 1, 60, False), _stream(2, 20 << 30, 1000, 60, False)
    cdcwire.write(uri, cdcwire.encode(uri, first))
    out = str(tmp_path / "tables")
    cs.materialize(spark, uri, out, format="delta")
    cdcwire.write(uri, cdcwire.encode(uri, second))

    def killed(self, out: str) -> None:
        raise KeyboardInterrupt("killed before the state was saved")

    with monkeypatch.context() as patched:
        patched.setattr(TablesState, "save", killed)
        with pytest.raises(KeyboardInterrupt):
            cs.materialize(spark, uri, out, format="delta")
    assert TablesState.load(out, "delta").run == 1  # the state is the first run's
    summary = cs.materialize(spark, uri, out, format="delta")
    assert _delta_rows(tmp_path / "tables" / "shop.orders") == _replayed(first + second)
    # the table's own commit says it holds the second run's changes: they are not applied again
    assert summary.events_read > 0 and "shop.orders" not in summary.tables


def test_a_delta_run_killed_under_a_state_saved_before_commits_were_journaled_is_rerun_to_the_tables_of_a_replay(
        spark, tmp_path, monkeypatch) -> None:
    import json
    import os

    from cdcwire.spark.tables.commit_journal import JOURNAL
    from cdcwire.spark.tables.table_state import STATE_FILE

    uri = f"file://{tmp_path}/src/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    first, second = _stream(1, 10 << 30, 1, 60, False), _stream(2, 20 << 30, 1000, 60, False)
    cdcwire.write(uri, cdcwire.encode(uri, first))
    out = tmp_path / "tables"
    cs.materialize(spark, uri, str(out), format="delta")
    cdcwire.write(uri, cdcwire.encode(uri, second))

    def killed(self, out: str) -> None:
        raise KeyboardInterrupt("killed before the state was saved")

    with monkeypatch.context() as patched:
        patched.setattr(TablesState, "save", killed)
        with pytest.raises(KeyboardInterrupt):
            cs.materialize(spark, uri, str(out), format="delta")
    # as an earlier cdcwire leaves it: a state without "journaled", a killed run that named nothing
    saved = (out / STATE_FILE).stat()
    state = json.loads((out / STATE_FILE).read_text())
    del state["journaled"]
    (out / STATE_FILE).write_text(json.dumps(state))
    os.utime(out / STATE_FILE, ns=(saved.st_atime_ns, saved.st_mtime_ns))  # saved when it was, before the kill
    (out / JOURNAL).unlink()
    summary = cs.materialize(spark, uri, str(out), format="delta")
    assert _delta_rows(out / "shop.orders") == _replayed(first + second)
    assert summary.events_read > 0 and "shop.orders" not in summary.tables
