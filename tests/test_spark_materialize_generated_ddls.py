"""Property: on generated streams with the DDL mix of a real database (``Workload(ddls=...)``),
``cs.materialize`` leaves the tables a replay leaves (tests/table_replay.py), Parquet and Delta,
after a first run and after each of two incremental runs over the same ``file://`` topic.

``MIX`` is the DDL kinds materialize applies; a kind it learns to apply is one more line there.
Only the columns whose values come out of Spark as the event holds them (text and integers)
are compared value for value; every table, key and column name is compared.
"""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import ResolvedEvent
from cdcwire.workload import Workload

import test_spark_materialize_ddl as ddl_tests
from table_replay import replay

MIX = [
    "truncate",
    "drop_create",
    "add_column",
    "add_column_default",
    "drop_column",
    "rename_column",
    "modify_column",
    "rename_table",
    "truncate_partition",
]
#: Columns whose values Parquet and Delta give back as the event holds them.
_PLAIN = ("c_varchar", "c_int", "c_bigint", "c_added_", "c_new_")


def _plain(column: str) -> bool:
    base = column.split("__", 1)[0]
    return base in _PLAIN[:3] or base.startswith(_PLAIN[3:])


def _shape(tables: dict) -> dict:
    """The non-empty tables: per key, its column names and its plain columns' values."""
    return {name: {key: (sorted(row), {c: v for c, v in row.items() if _plain(c)}) for key, row in rows.items()}
            for name, rows in tables.items() if rows}


def _parts(events: list, count: int) -> list[list]:
    """The events cut at resolved events into ``count`` runs' worth, the last ending resolved."""
    events = [*events, ResolvedEvent(events[-1].commit_ts + 1)]
    resolved = [i for i, e in enumerate(events) if isinstance(e, ResolvedEvent)]
    cuts = [resolved[len(resolved) * k // count] + 1 for k in range(1, count)] + [len(events)]
    return [events[a:b] for a, b in zip([0, *cuts], cuts)]


# seed 7: an ADD COLUMN ... DEFAULT that no later row of its run carries (its default was lost);
# seed 10: a column DDL after a RENAME TABLE (the rows from before the rename kept the old columns)
@pytest.mark.parametrize("fmt, seed", [("parquet", 1), ("delta", 10), ("parquet", 7), ("delta", 7)])
def test_generated_ddls_leave_the_tables_a_replay_leaves_run_after_run(spark, tmp_path, fmt, seed, mix=MIX) -> None:
    events = list(Workload(160, seed=seed, tables=2, resolved_every=2, ddl_every=4, ddls=dict.fromkeys(mix, 1)))
    out, seen = tmp_path / "out", []
    uri = ddl_tests.source(tmp_path, [])
    for part in _parts(events, 3):
        cdcwire.write(uri, cdcwire.encode(uri, part))
        seen += part
        ddl_tests.run(spark, uri, out, fmt)
        assert _shape(ddl_tests.tables_in(out, fmt)) == _shape(replay(seen)), f"after event {len(seen)}"
