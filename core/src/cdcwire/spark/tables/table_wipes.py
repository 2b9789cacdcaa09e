"""TRUNCATE TABLE, DROP TABLE and DROP DATABASE in ``materialize``: the rows before them are gone.

A replay that runs the DDL (TiCDC's consumers into MySQL) empties a truncated table and
removes a dropped one; a later ``CREATE TABLE`` of the name starts empty. Applying rows alone
would keep every row written before the DDL. So a run, for each such DDL at commit ts ``W``
that it releases (at or below the release point; one above it waits, kept with the pending
events):

- leaves out the run's row changes of the table at a commit ts below ``W``. Renames move a
  table between names, so the rows wiped are those of the table *as named at* ``W``: each
  DDL becomes spans of (name the rows carry, commit ts range) by following the run's renames
  back from ``W`` (:func:`wiped_spans`);
- empties the table an earlier run wrote, when ``W`` is above the commit ts the table was
  applied up to (a DDL read again after a failed run wipes nothing twice): the table is then
  written as a new one from the changes after ``W``. A truncated table stays, empty if
  nothing follows; a dropped table with nothing after the drop leaves the output (the state
  forgets it, its directory is removed).

``DROP DATABASE s`` wipes every table of ``s`` (by the names the rows carry). Names compare
without case, as TiDB compares them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from .ddl_facts import TS, ts_value, with_facts
from .table_changes import ROW_KINDS
from .table_renames import Rename

#: DDL types that remove a table's rows.
WIPE_TYPES = ("TRUNCATE_TABLE", "DROP_TABLE", "DROP_SCHEMA")
KINDS = {"TRUNCATE_TABLE": "truncate", "DROP_TABLE": "drop", "DROP_SCHEMA": "drop database"}


@dataclass(frozen=True, slots=True)
class Wipe:
    """One TRUNCATE / DROP at ``ts``: ``name`` is "schema.table" ("schema" for a DROP DATABASE)."""

    ts: int
    name: str
    kind: str  # "truncate", "drop" or "drop database"
    query: str = ""

    @property
    def drops(self) -> bool:
        return self.kind != "truncate"


def dropped_at(name: str, wipes: Iterable[Wipe]) -> int:
    """The commit ts of the last DROP TABLE of ``name`` ("schema.table") or DROP DATABASE of its
    schema among ``wipes``, or -1: a table's columns start again from the CREATE after it."""
    table, schema = name.lower(), name.split(".", 1)[0].lower()
    return max((w.ts for w in wipes if w.drops and w.name.lower() in (table, schema)), default=-1)


def wipes_of(ddls: Iterable) -> list[Wipe]:
    """The wipes among DDL rows (``commit_ts``, ``schema``, ``table``, ``ddl_type``, ``query``),
    by commit ts; a DDL seen again (a broadcast copy, a replay) counts once."""
    seen: set[tuple[int, str]] = set()
    out: list[Wipe] = []
    for row in ddls:
        ts, query = int(row["commit_ts"]), row["query"] or ""
        if row["ddl_type"] not in KINDS or (ts, query) in seen:
            continue
        seen.add((ts, query))
        kind = KINDS[row["ddl_type"]]
        name = row["schema"] or "" if kind == "drop database" else f"{row['schema'] or ''}.{row['table'] or ''}"
        out.append(Wipe(ts, name, kind, query))
    return sorted(out, key=lambda w: w.ts)


def _same(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def wiped_spans(wipe: Wipe, renames: list[Rename]) -> list[tuple[str, Optional[int], int]]:
    """(name the rows carry, after ts or None, before ts) of the rows the wipe removes: the rows
    of the table named ``wipe.name`` at ``wipe.ts``, followed back through the renames before it
    (a table renamed onto the name before the wipe: its rows from before that rename too). A
    span ends only at a rename of the table, so the spans are as many as its renames."""
    name = wipe.name
    before = wipe.ts
    spans: list[tuple[str, Optional[int], int]] = []
    at: dict[int, list[Rename]] = {}
    for r in renames:
        if r.ts < wipe.ts:
            at.setdefault(r.ts, []).append(r)
    for ts in sorted(at, reverse=True):
        was: Optional[str] = name
        for r in reversed(at[ts]):
            if _same(was, r.new):
                was = r.old
            elif _same(was, r.old):
                was = None  # the name was another table's before: this one did not exist yet
                break
        if was is not None and was == name:
            continue  # the renames at ts leave the table's name as it was: the span goes on
        spans.append((name, ts, before))
        if was is None:
            return spans
        name, before = was, ts
    spans.append((name, None, before))
    return spans


def first_name(wipe: Wipe, renames: list[Rename]) -> Optional[str]:
    """The name the wiped table had before every rename of the run (the name an earlier run
    wrote it under), or None when it did not exist before them."""
    spans = wiped_spans(wipe, renames)
    return spans[-1][0] if spans[-1][1] is None else None


def without_wiped(changes: DataFrame, wipes: list[Wipe], renames: list[Rename]) -> DataFrame:
    """``changes`` (names as the events carry them) without the row changes the wipes remove.
    The wipes come as facts per schema (:mod:`.ddl_facts`): (table, or none for a DROP DATABASE,
    and the commit ts span), so the expression is the same for one TRUNCATE or hundreds."""
    if not wipes:
        return changes
    facts: dict[tuple[str], list[tuple]] = {}
    for wipe in wipes:
        if wipe.kind == "drop database":
            facts.setdefault((wipe.name.lower(),), []).append((None, None, ts_value(wipe.ts)))
            continue
        for name, after, before in wiped_spans(wipe, renames):
            schema, table = name.lower().split(".", 1)
            facts.setdefault((schema,), []).append((table, ts_value(after), ts_value(before)))
    marked = with_facts(changes, facts, ("schema",), f"struct<t: string, after: {TS}, before: {TS}>", "_cdc_wipes")
    ts, table = F.col("commit_ts"), F.lower(F.col("table"))
    wiped = F.exists("_cdc_wipes", lambda f: (f["t"].isNull() | (f["t"] == table)) & (ts < f["before"])
                     & (f["after"].isNull() | (ts > f["after"])))
    is_row = F.col("kind").isin(*ROW_KINDS)
    return marked.where(~(is_row & F.coalesce(wiped, F.lit(False)))).drop("_cdc_wipes")


def wiped_tables(wipes: list[Wipe], renames: list[Rename], stored: Iterable[str]) -> dict[str, Wipe]:
    """{stored table (its name before the run's renames): the last wipe that empties it} for the
    tables earlier runs wrote (``stored``); the caller skips the wipes at or below the commit ts
    a table is applied up to (applied already)."""
    out: dict[str, Wipe] = {}
    for name in stored:
        for wipe in wipes:
            if wipe.kind == "drop database":
                hit = _same(name.split(".", 1)[0], wipe.name)
            else:
                first = first_name(wipe, renames)
                hit = first is not None and _same(first, name)
            if hit:
                out[name] = wipe
    return out
