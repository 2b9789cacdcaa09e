"""The Delta tables a ``materialize`` run commits, named before it commits them.

A Delta table's commits carry the commit ts it is applied up to (``cdcwire.applied_ts``), and
a run killed after its Delta commits, before the state's, leaves tables ahead of the state:
the next run must read those tables' own applied ts, or it would apply their changes again.
Finding them by listing every table's log made each run's driver work grow with the tables
stored (a thousand logs listed to find none). Instead a run names the tables in
``OUT/_cdcwire/committing.json`` before it commits any of them (:func:`note_commits`,
written aside and renamed into place), and removes the file once its state is saved
(:func:`clear_commits`). The next run reads the history of only the tables named there
(:func:`tables_to_check`); a killed run's names stay until a run's state is saved, whatever
number of runs are killed in a row.

A state written before the journal was kept (``TablesState.journaled`` false) may follow a
killed run that named nothing: then every table under OUT is checked, once; so is every table
when the journal is not a list of names (damaged).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Optional

JOURNAL = "_cdcwire/committing.json"


def _read(out: str) -> Optional[set[str]]:
    """The names in the journal; None: it is not a list of names (damaged)."""
    try:
        names = json.loads((Path(out) / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return set()
    except (OSError, ValueError):
        return None
    return set(names) if isinstance(names, list) and all(isinstance(n, str) for n in names) else None


def note_commits(out: str, tables: Iterable[str]) -> None:
    """Name ``tables`` in the journal (beside the names already there) before committing them."""
    names = set(tables)
    if not names:
        return
    before = _read(out)
    before = set(_every_table(out)) if before is None else before  # damaged: keep what it may have named
    if names <= before:
        return
    path = Path(out) / JOURNAL
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(aside, "w", encoding="utf-8") as f:
        json.dump(sorted(before | names), f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(aside, path)


def clear_commits(out: str) -> None:
    """The run's state is saved: the tables it committed are in it."""
    try:
        (Path(out) / JOURNAL).unlink()
    except FileNotFoundError:
        pass


def tables_to_check(out: str, journaled: bool) -> list[str]:
    """The Delta tables a killed run may have committed past the state: those the journal names
    (``journaled``: the state was saved by a run that keeps it), else, or when the journal is
    damaged, every table under OUT."""
    named = _read(out) if journaled else None
    if named is None:
        return _every_table(out)
    return sorted(n for n in named if (Path(out) / n / "_delta_log").is_dir())


def _every_table(out: str) -> list[str]:
    """The Delta tables under OUT (a ``schema.table`` directory with a ``_delta_log``)."""
    root = Path(out)
    if not root.is_dir():
        return []
    return sorted(d.name for d in root.iterdir() if "." in d.name and (d / "_delta_log").is_dir())
