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


# -- the DDL mix of a real database: Workload(ddls={kind: weight}) ---------------------------

import hashlib  # noqa: E402
import io  # noqa: E402

import pytest  # noqa: E402

from cdcwire.values.ddl_statements import statement_ddl_type  # noqa: E402
from cdcwire.workload import DDL_KINDS  # noqa: E402

from table_replay import key_of, replay, run_ddl  # noqa: E402

#: sha256 of the event JSON Lines of Workload(5000, seed=5, ddl_every=100) as the generator made
#: it before the DDL mix existed: users and benchmarks that ask no mix keep their streams.
STREAM_BEFORE_THE_MIX = "8840fbcf04138774b6caf5ed0dce9db9838cede183d0d1708790cd924a0ca400"


def _mixed(kinds, n: int = 3000, seed: int = 5) -> list:
    return list(generate(Workload(n, seed=seed, tables=5, ddl_every=15, ddls={k: 1 for k in kinds})))


def test_a_workload_without_a_ddl_mix_gives_the_stream_it_gave_before_byte_for_byte():
    text = io.StringIO()
    cdcwire.write_jsonl(generate(Workload(5000, seed=5, ddl_every=100, ddls={})), text)
    assert hashlib.sha256(text.getvalue().encode()).hexdigest() == STREAM_BEFORE_THE_MIX


@pytest.mark.parametrize("kind", DDL_KINDS)
def test_each_ddl_kind_is_sent_with_the_ddl_type_tidb_gives_its_statement(kind):
    ddls = [e for e in _mixed([kind]) if isinstance(e, cdcwire.DDLEvent)][5:]  # past the CREATEs
    assert ddls and all(e.ddl_type == statement_ddl_type(e.query) for e in ddls)


def test_every_ddl_carries_its_tables_schema_and_the_rows_after_it_have_its_columns():
    columns: dict = {}
    for e in _mixed(DDL_KINDS):
        if isinstance(e, cdcwire.DDLEvent) and e.ddl_type != cdcwire.DDLType.DROP_TABLE:
            assert (e.table_schema.schema, e.table_schema.table) == (e.schema, e.table)
            columns[(e.schema, e.table)] = [c.name for c in e.table_schema.columns]
        elif isinstance(e, cdcwire.RowChangedEvent):
            assert [c.name for c in e.image] == columns[(e.schema, e.table)]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_row_changes_after_each_ddl_find_the_rows_a_replay_of_it_leaves(seed):
    """Every update and delete's old image is the row a replay (tests/table_replay.py) holds
    for its key: the generator applies its own DDLs as a downstream database does."""
    kinds = [k for k in DDL_KINDS if k != "truncate_partition"]  # the oracle's partitions: issue 43
    events = _mixed(kinds, seed=seed)
    assert {e.ddl_type for e in events if isinstance(e, cdcwire.DDLEvent)} >= {
        cdcwire.DDLType.TRUNCATE_TABLE, cdcwire.DDLType.DROP_TABLE, cdcwire.DDLType.RENAME_TABLE}
    tables: dict = {}  # the replay so far, one event at a time
    for e in events:
        if isinstance(e, cdcwire.RowChangedEvent):
            table = tables.setdefault(f"{e.schema}.{e.table}", {})
            if e.pre_columns is not None:
                assert table.pop(key_of(e.pre_columns)) == {c.name: c.value for c in e.pre_columns}
            if e.columns is not None:
                table[key_of(e.columns)] = {c.name: c.value for c in e.columns}
        elif isinstance(e, cdcwire.DDLEvent):
            run_ddl(tables, e)
    assert tables == replay(events)


def test_a_truncated_partition_leaves_only_the_rows_of_other_partitions():
    events = _mixed(["truncate_partition"], n=4000)
    live: dict = {}
    for e in events:
        if isinstance(e, cdcwire.DDLEvent) and e.ddl_type == cdcwire.DDLType.TRUNCATE_TABLE_PARTITION:
            part = e.query.rsplit("`", 2)[1]
            lo = 0 if part == "pmax" else int(part[1:]) * 50
            gone = [k for (t, k) in live if t == e.table and k >= (200 if part == "pmax" else lo)
                    and (part == "pmax" or k < lo + 50)]
            for k in gone:
                del live[(e.table, k)]
        elif isinstance(e, cdcwire.RowChangedEvent):
            if e.pre_columns is not None:
                assert live.pop((e.table, e.pre_columns[0].value))
            if e.columns is not None:
                live[(e.table, e.columns[0].value)] = True


def test_generate_takes_the_ddl_mix_as_kinds_with_weights(tmp_path):
    out = tmp_path / "w.jsonl"
    assert main(["generate", "--events", "600", "--out", str(out), "--ddl-every", "20",
                 "--ddls", "truncate,drop_create=2"]) == 0
    with open(out, encoding="utf-8") as f:
        assert list(cdcwire.read_jsonl(f)) == list(generate(Workload(600, ddl_every=20,
                                                                     ddls={"truncate": 1, "drop_create": 2})))


def test_generate_names_an_unknown_ddl_kind_in_one_line(tmp_path, capsys):
    assert main(["generate", "--events", "10", "--out", str(tmp_path / "w.jsonl"), "--ddls", "truncate,explode"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown DDL kind 'explode'" in err and "drop_create" in err
