"""The workload generator: deterministic, realistic, every column type, and the CLI that writes it."""

from __future__ import annotations

from collections import Counter

import cdcwire
from cdcwire.cli import main
from cdcwire.testing.strategies import COLUMN_KINDS
from cdcwire.workload import Workload, generate


def _events(n: int = 3000, **kw) -> list:
    return list(generate(Workload(n, seed=5, ddl_every=100, **kw)))


def test_same_seed_gives_the_same_stream_and_another_seed_another():
    assert _events(500) == _events(500)
    assert list(generate(Workload(500, seed=6, ddl_every=100))) != _events(500)


def test_stream_has_the_asked_size_and_every_kind_of_change():
    events = _events()
    assert len(events) == 3000
    kinds = Counter(e.kind if isinstance(e, cdcwire.RowChangedEvent) else type(e).__name__ for e in events)
    assert kinds["insert"] and kinds["update"] and kinds["delete"]
    ddl = [e for e in events if isinstance(e, cdcwire.DDLEvent)]
    assert {e.ddl_type for e in ddl} == {
        cdcwire.DDLType.CREATE_TABLE, cdcwire.DDLType.ADD_COLUMN, cdcwire.DDLType.DROP_COLUMN
    }


def test_tables_stay_bounded_in_width_however_long_the_stream():
    events = _events(20000, max_added_columns=2)
    widest = max(len(e.image) for e in events if isinstance(e, cdcwire.RowChangedEvent))
    assert widest <= 1 + len(COLUMN_KINDS) + 2  # id, every kind (all_types), two added columns


def test_a_dropped_column_leaves_the_rows_that_follow():
    events = _events(20000, max_added_columns=1)
    drops = [
        (i, e) for i, e in enumerate(events)
        if isinstance(e, cdcwire.DDLEvent) and e.ddl_type == cdcwire.DDLType.DROP_COLUMN
    ]
    assert drops
    for i, ddl in drops:
        dropped = ddl.query.rsplit("`", 2)[1]
        later = [e for e in events[i + 1:] if isinstance(e, cdcwire.RowChangedEvent) and e.table == ddl.table]
        assert all(c.name != dropped for e in later for c in e.image)


def test_some_updates_change_the_handle_key():
    changed = [
        e for e in _events()
        if isinstance(e, cdcwire.RowChangedEvent) and e.is_update and e.columns[0].value != e.pre_columns[0].value
    ]
    assert changed


def test_every_column_kind_appears_with_values_and_nulls():
    seen = {(c.type, c.mysql_type) for e in _events() if isinstance(e, cdcwire.RowChangedEvent) for c in e.image}
    assert {(k.type, k.mysql_type) for k in COLUMN_KINDS} <= seen


def test_commit_ts_never_decreases_and_resolved_follows_its_commits():
    events = _events(2000, resolved_every=5)
    ts = [e.commit_ts for e in events]
    assert ts == sorted(ts)
    resolved = [i for i, e in enumerate(events) if isinstance(e, cdcwire.ResolvedEvent)]
    assert len(resolved) > 50
    for i in resolved:
        assert all(e.commit_ts <= events[i].ts for e in events[:i])


def test_generated_events_are_valid_event_json(tmp_path):
    out = tmp_path / "w.jsonl"
    assert main(["generate", "--events", "800", "--seed", "9", "--out", str(out), "--tables", "5"]) == 0
    with open(out, encoding="utf-8") as f:
        events = list(cdcwire.read_jsonl(f))
    assert events == list(generate(Workload(800, seed=9, tables=5)))
    assert {e.table for e in events if not isinstance(e, cdcwire.ResolvedEvent)} >= {"all_types", "all_types_2"}


def test_a_transaction_changes_each_row_key_at_most_once():
    """As TiDB's changes reach TiCDC: one event per key and commit ts (a key-changing update
    touches its old and its new key), never an update then a delete of one row in one commit."""
    events_per_key: Counter = Counter()
    for e in generate(Workload(30000, seed=3)):
        if isinstance(e, cdcwire.RowChangedEvent):
            for key in {image[0].value for image in (e.pre_columns, e.columns) if image is not None}:
                events_per_key[(e.commit_ts, e.schema, e.table, key)] += 1
    assert events_per_key and max(events_per_key.values()) == 1
