"""An incremental materialize run over an output of many tables does the driver work of the
tables its changes touch: it lists no directory of the others, nor OUT itself (a whole
database is a thousand tables, a run's changes often a few)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import cdcwire
from cdcwire import ResolvedEvent
from cdcwire import spark as cs
from cdcwire.spark.tables.table_state import STATE_FILE, TablesState
from cdcwire.workload import Workload

_listed: list[str] | None = None  # the directories listed while recording (os.listdir, os.scandir)


def _audit(event: str, args: tuple) -> None:
    if _listed is not None and event in ("os.listdir", "os.scandir") and args and args[0] is not None:
        _listed.append(str(Path(args[0] if isinstance(args[0], (str, bytes)) else str(args[0])).resolve()))


sys.addaudithook(_audit)


def _listing(run) -> tuple[object, list[str]]:
    """(what ``run()`` returned, the directories the driver listed meanwhile)."""
    global _listed
    _listed = []
    try:
        return run(), _listed
    finally:
        _listed = None


def _streams(tmp_path) -> tuple[str, list, list]:
    """(a topic URI, a first batch over three tables ending on a resolved event, later changes
    of shop.orders alone)."""
    uri = f"file://{tmp_path}/src?protocol=canal-json&enable-tidb-extension=true&partition-num=2"
    events = list(Workload(400, seed=3, ddl_every=10**9, tables=3))
    cut = max(i for i, e in enumerate(events[:200]) if isinstance(e, ResolvedEvent)) + 1
    later = [e for e in events[cut:] if isinstance(e, ResolvedEvent) or (e.schema, e.table) == ("shop", "orders")]
    return uri, events[:cut], later


@pytest.mark.parametrize("format", ["parquet", "delta"])
def test_an_incremental_run_lists_no_directory_of_the_tables_it_does_not_change(spark, tmp_path, format):
    uri, first, later = _streams(tmp_path)
    out = tmp_path / "tables"
    cdcwire.write(uri, cdcwire.encode(uri, first))
    assert len(cs.materialize(spark, uri, str(out), format=format).tables) == 3
    cdcwire.write(uri, cdcwire.encode(uri, later))
    summary, listed = _listing(lambda: cs.materialize(spark, uri, str(out), format=format))
    assert sorted(summary.tables) == ["shop.orders"]
    untouched = [str((out / name).resolve()) for name in ("shop.customers", "app.files")]
    assert [d for d in listed if any(d == u or d.startswith(u + "/") for u in untouched)] == []
    assert str(out.resolve()) not in listed


def test_a_delta_run_names_the_tables_it_commits_until_its_state_is_saved(spark, tmp_path, monkeypatch):
    from cdcwire.spark.tables.commit_journal import JOURNAL

    uri, first, later = _streams(tmp_path)
    out = tmp_path / "tables"
    cdcwire.write(uri, cdcwire.encode(uri, first))
    cs.materialize(spark, uri, str(out), format="delta")
    assert not (out / JOURNAL).exists()  # removed once the state is saved
    cdcwire.write(uri, cdcwire.encode(uri, later))

    def killed(self, out: str) -> None:
        raise KeyboardInterrupt("killed before the state was saved")

    with monkeypatch.context() as patched:
        patched.setattr(TablesState, "save", killed)
        with pytest.raises(KeyboardInterrupt):
            cs.materialize(spark, uri, str(out), format="delta")
    assert json.loads((out / JOURNAL).read_text()) == ["shop.orders"]
    summary = cs.materialize(spark, uri, str(out), format="delta")
    # the killed run's commit of shop.orders is found from the journal: nothing applied twice
    assert summary.events_read > 0 and summary.tables == {}
    assert json.loads((out / STATE_FILE).read_text())["journaled"] is True
    assert not (out / JOURNAL).exists()
