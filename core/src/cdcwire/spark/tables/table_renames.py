"""RENAME TABLE in ``materialize``: a renamed table keeps its rows under its new name.

A replay that runs the DDL (TiCDC's storage consumer into MySQL, any downstream database)
moves the table: the rows written before the rename are found under the new name, and the
changes after it apply to them. Applying rows by the name each event carries would instead
leave the old rows under the old name and start a new table holding only the later changes
(an update of an older row would appear there alone). So a run:

- relabels each row change by the renames after it: a row of ``app.a`` at ts 10 with
  ``RENAME TABLE app.a TO app.b`` at ts 20 is applied to ``app.b``. A chain (``a`` to ``b``
  to ``c``) and a swap split into several statements at one commit ts (``a`` to ``tmp``,
  ``b`` to ``a``, ``tmp`` to ``b``, as TiCDC splits ``RENAME TABLES``) follow the
  statements in their order;
- renames the tables earlier runs wrote, once: the state keeps the commit ts of the last
  rename applied to them (``renamed_ts``); a run that reads the same DDL again (after a
  failure) relabels its rows again but moves no table twice. A Parquet table is renamed in
  the state manifest, with the run's commit. A Delta table is a directory named for the
  table: it is moved through a journal in the state (``renaming``: the moves and the phase
  reached), so a run killed in the middle finishes the moves before anything else, and never
  moves a directory twice. A table renamed onto a name that already has one (upstream
  dropped it first) replaces it.

Names compare without case, as TiDB compares them; a rename statement this module cannot
take apart renames nothing (its rows then go by the names they carry).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from ...values.ddl_statements import renamed_tables
from .ddl_facts import TS, ts_value, with_facts

#: The DDL types whose statements may rename a table.
RENAME_TYPES = ("RENAME_TABLE", "RENAME_TABLES")

_MOVING = "_cdcwire/renaming"


@dataclass(frozen=True, slots=True)
class Rename:
    """One table renamed at ``ts``: ``old`` and ``new`` are "schema.table"."""

    ts: int
    old: str
    new: str


def renames_of(ddls: Iterable) -> list[Rename]:
    """The renames in DDL rows (``commit_ts``, ``schema``, ``table``, ``query``, in stream
    order; a DDL seen again, as a broadcast copy, counts once), by commit ts. A bare name is
    in the DDL's schema; the new name takes the case the event gives it."""
    seen: set[tuple[int, str]] = set()
    out: list[Rename] = []
    for row in ddls:
        ts, schema, table, query = int(row["commit_ts"]), row["schema"] or "", row["table"] or "", row["query"] or ""
        if (ts, query) in seen:
            continue
        seen.add((ts, query))
        for old, new in renamed_tables(query):
            new_name = f"{schema}.{table}" if new.names(schema, table) else f"{new.schema or schema}.{new.table}"
            out.append(Rename(ts, f"{old.schema or schema}.{old.table}", new_name))
    return sorted(out, key=lambda r: r.ts)  # stable: statements of one commit ts keep their order


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def _after(renames: list[Rename], first: int) -> str:
    """The name the table renamed by ``renames[first]`` ends with, after the renames that follow it."""
    name = renames[first].new
    for r in renames[first + 1:]:
        if _same(r.old, name):
            name = r.new
    return name


def final_name(renames: list[Rename], name: str, ts: Optional[int] = None) -> str:
    """The name a table called ``name`` at ``ts`` has after ``renames`` (None: before all of them)."""
    for i, r in enumerate(renames):
        if (ts is None or r.ts > ts) and _same(r.old, name):
            return _after(renames, i)
    return name


def relabelled(rows: DataFrame, renames: list[Rename]) -> DataFrame:
    """Row changes with ``schema`` and ``table`` set to the name each row's table ends with: the
    name after the first rename of the row's name above its commit ts. The renames come as facts
    per old name (:mod:`.ddl_facts`), so the expression is the same for one rename or hundreds."""
    if not renames:
        return rows
    facts: dict[tuple[str, str], list[tuple]] = {}
    for i, r in enumerate(renames):  # by commit ts: the first one above a row's ts is its rename
        schema, table = r.old.lower().split(".", 1)
        new_schema, new_table = _after(renames, i).split(".", 1)
        facts.setdefault((schema, table), []).append((ts_value(r.ts), new_schema, new_table))
    rows = with_facts(rows, facts, ("schema", "table"), f"struct<ts: {TS}, s: string, t: string>", "_cdc_renames")
    first = F.get(F.filter("_cdc_renames", lambda f: F.col("commit_ts") < f["ts"]), 0)
    return rows.withColumns({"schema": F.coalesce(first["s"], F.col("schema")),
                             "table": F.coalesce(first["t"], F.col("table"))}).drop("_cdc_renames")


def renamed_tables_of(names: Iterable[str], renames: list[Rename]) -> dict[str, str]:
    """{old: new} for the tables of earlier runs (``names``) that ``renames`` rename."""
    return {name: new for name in names if (new := final_name(renames, name)) != name}


def renamed_entries(entries: dict, moved: dict[str, str]) -> dict:
    """A state map keyed by table (applied ts, snapshot directory) after ``moved``: a table
    renamed onto a name that had one replaces it."""
    kept = {k: v for k, v in entries.items() if k not in moved}
    kept.update({moved[k]: v for k, v in entries.items() if k in moved})
    return kept


def journal(moved: dict[str, str]) -> dict:
    """The Delta moves to make, as the state keeps them until they are made."""
    return {"phase": 1, "moves": [[old, new] for old, new in sorted(moved.items())]}


def make_moves(out: str, renaming: dict, saved) -> None:
    """Move Delta table directories as ``renaming`` says, in two phases through a directory of
    their own (a swap moves each table once), calling ``saved(renaming)`` after the first
    phase: each step is done only if it is not done yet, so a killed run's journal finishes."""
    root, moving = Path(out), Path(out) / _MOVING
    if renaming["phase"] == 1:
        moving.mkdir(parents=True, exist_ok=True)
        for old, new in renaming["moves"]:
            if (root / old).is_dir() and not (moving / new).exists():
                (root / old).rename(moving / new)
        renaming = {**renaming, "phase": 2}
        saved(renaming)
    for _, new in renaming["moves"]:
        if (moving / new).is_dir():
            shutil.rmtree(root / new, ignore_errors=True)  # a table dropped upstream, its name taken by the rename
            (moving / new).rename(root / new)
    shutil.rmtree(moving, ignore_errors=True)
