"""RECOVER TABLE and FLASHBACK TABLE in ``materialize``: a dropped table brought back, where the
output still holds it.

TiDB keeps a dropped table's data until its GC safe point passes, and ``RECOVER TABLE t`` /
``FLASHBACK TABLE t [TO t2]`` bring it back; a replay into MySQL cannot (the rows are gone
downstream). A run can, for a while: a DROP TABLE that takes a table of earlier runs out of the
output parks its data instead of removing it (:func:`park`): the Parquet snapshot, linked,
or the Delta table's directory, moved, under ``_cdcwire/dropped/<name>-<drop ts>``, named in the
state (``dropped``). A RECOVER / FLASHBACK of a later run restores the latest copy of the table
parked before it under the name the DDL gives (:func:`restore`), applied up to the ts it was
applied up to when dropped; the run's changes after the DDL apply to it.

A parked copy is removed (:func:`expired`) when a CREATE TABLE of its name is applied after the
drop (the name is taken again) or once a run is released 24 hours of commit-ts time past the drop
(:data:`KEEP_HOURS`; TiDB's own GC life time is 10 minutes by default, so a RECOVER later than
that fails upstream anyway). A DROP and a RECOVER of the same name within one run undo each
other (:func:`undone_drops`): the drop removes nothing. A FLASHBACK to a new name of a table
dropped in the same run is reported as not applied (the rows the drop removed stay removed).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Iterable, Optional

from ...values.ddl_statements import recovered_table
from .parquet_tables import linked_snapshot

PARKED = "_cdcwire/dropped"
#: How long, in commit-ts time after its drop, a dropped table's data is kept for a RECOVER.
KEEP_HOURS = 24
_MS_PER_HOUR = 3_600_000


def _physical_ms(ts: int) -> int:
    return ts >> 18


def _parked_dir(name: str, ts: int) -> str:
    return f"{PARKED}/{name}-{ts}"


def park(out: str, format: str, dropped: dict, name: str, ts: int, applied: Optional[int],
         snapshot: Optional[str] = None) -> None:
    """Keep a dropped table's data under ``_cdcwire/dropped``, named in ``dropped`` (the state's
    field). Parquet: ``snapshot`` linked there (the snapshot itself is removed after the commit,
    as any replaced one). Delta: call after the state that no longer applies the table is saved:
    the directory moves there (done once: a re-run finds it moved)."""
    directory = _parked_dir(name, ts)
    if format == "parquet":
        if not snapshot:
            return
        linked_snapshot(out, snapshot, directory)
    else:
        source, target = Path(out) / name, Path(out) / directory
        if source.is_dir() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            source.rename(target)
        if not target.is_dir():
            return
    dropped[f"{name}-{ts}"] = {"table": name, "ts": ts, "applied": applied if applied is not None else 0,
                               "dir": directory}


def recovered_names(query: str, schema: str, table: str) -> tuple[str, str]:
    """(the dropped table's name, the name it comes back under) of a RECOVER TABLE / FLASHBACK
    TABLE statement, the DDL event naming the table it brings back; ``RECOVER TABLE BY JOB n``
    names no table: the event's."""
    old = recovered_table(query)
    new = f"{schema}.{table}"
    return (f"{old.schema or schema}.{old.table}" if old is not None else new), new


def undone_drops(ddls: Iterable, run_ddls: set[int]) -> dict[int, int]:
    """{commit ts of a DROP TABLE: commit ts of the RECOVER that undoes it} among the DDLs the run
    applies: a RECOVER bringing a table back under its own name after a DROP of the run, with no
    CREATE TABLE of the name between them."""
    rows = sorted({(int(r["commit_ts"]), r["query"] or ""): r for r in ddls if int(r["commit_ts"]) in run_ddls}.values(),
                  key=lambda r: int(r["commit_ts"]))
    open_drops: dict[str, int] = {}
    undone: dict[int, int] = {}
    for r in rows:
        name = f"{r['schema'] or ''}.{r['table'] or ''}".lower()
        if r["ddl_type"] == "DROP_TABLE":
            open_drops[name] = int(r["commit_ts"])
        elif r["ddl_type"] in ("CREATE_TABLE", "CREATE_TABLES"):
            open_drops.pop(name, None)
        elif r["ddl_type"] == "RECOVER_TABLE":
            old, new = recovered_names(r["query"] or "", r["schema"] or "", r["table"] or "")
            if old.lower() == new.lower() and old.lower() in open_drops:
                undone[open_drops.pop(old.lower())] = int(r["commit_ts"])
    return undone


def restore(out: str, format: str, state, ddls: Iterable, run_ddls: set[int], run: int) -> tuple[list[int], list[str]]:
    """Bring back the tables the run's applied RECOVER / FLASHBACK DDLs name, from their parked
    copies: (the commit ts of those that found none, the parked directories to remove after the
    run's commit). Parquet: a linked snapshot ``<name>/recovered-<run>`` in ``state.snapshots``;
    Delta: the directory moved back (a run killed after it finds it there). Either way the table
    is applied up to the ts it had when dropped."""
    missing, done = [], []
    seen: set[tuple[int, str]] = set()
    for row in sorted(ddls, key=lambda r: int(r["commit_ts"])):
        ts, query = int(row["commit_ts"]), row["query"] or ""
        if row["ddl_type"] != "RECOVER_TABLE" or ts not in run_ddls or (ts, query) in seen \
                or ts in undone_drops(ddls, run_ddls).values():
            continue
        seen.add((ts, query))
        old, new = recovered_names(query, row["schema"] or "", row["table"] or "")
        found = [k for k, e in state.dropped.items() if e["table"].lower() == old.lower() and e["ts"] < ts]
        if not found:
            missing.append(ts)
            continue
        entry = state.dropped.pop(max(found, key=lambda k: state.dropped[k]["ts"]))
        if format == "parquet":
            state.snapshots[new] = f"{new}/recovered-{run:06d}"
            linked_snapshot(out, entry["dir"], state.snapshots[new])
            done.append(entry["dir"])
        else:
            source, target = Path(out) / entry["dir"], Path(out) / new
            if source.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                source.rename(target)
            if source.parent.is_dir() and not any(source.parent.iterdir()):
                source.parent.rmdir()
        state.applied[new] = entry["applied"]
    return missing, done


def expired(state, ddls: Iterable, run_ddls: set[int], now: Optional[int]) -> list[str]:
    """Forget the parked copies a CREATE TABLE of their name (applied by the run, after the drop)
    or the time past the drop (``now``: the run's release ts) ends; their directories, to remove
    after the run's commit."""
    created = [(f"{r['schema'] or ''}.{r['table'] or ''}".lower(), int(r["commit_ts"])) for r in ddls
               if r["ddl_type"] in ("CREATE_TABLE", "CREATE_TABLES") and int(r["commit_ts"]) in run_ddls]
    gone = []
    for key, entry in list(state.dropped.items()):
        late = now is not None and _physical_ms(now) - _physical_ms(entry["ts"]) > KEEP_HOURS * _MS_PER_HOUR
        if late or any(name == entry["table"].lower() and ts > entry["ts"] for name, ts in created):
            gone.append(state.dropped.pop(key)["dir"])
    return gone


def unrecovered(outcomes: dict, missing: list[int]) -> None:
    """Say in the run's DDL outcomes which RECOVER / FLASHBACK found no parked copy."""
    for table, seen in outcomes.items():
        outcomes[table] = [d if d.ts not in missing or d.ddl_type != "RECOVER_TABLE" else
                           type(d)(d.ts, d.ddl_type, d.query, "not applied (no copy of the dropped table is kept)")
                           for d in seen]
