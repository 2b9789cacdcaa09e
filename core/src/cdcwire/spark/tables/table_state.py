"""Where a ``materialize`` run stopped, kept with its tables so the next run continues there.

The state is one JSON manifest, ``OUT/_cdcwire_state.json``, written aside and renamed into
place after every table of the run is written: that rename is the run's commit. A run that
fails before it leaves the previous manifest, and the next run applies the same events
again; applying is idempotent (each key ends as its last change says), so tables a failed
run had already written come out the same.

It holds: the next offset to read per ``topic/partition``; the latest resolved ts seen per
partition (the release point is their minimum); per table, the commit ts it has been
applied up to (events at or below it are replays and are skipped); each Parquet table's
current snapshot directory; the file of pending events (read, but above the release
point); the table filter the runs apply (a later run with another filter is refused: a
table it added would have missed the events earlier runs read past); for a storage-sink
layout instead of offsets, where its read stopped (a
:class:`~cdcwire.transports.storage.position.LayoutPosition`: the checkpoint and each data
directory's last file); the commit ts of the last RENAME TABLE applied to the tables, and
a journal of Delta tables being moved to their new names (:mod:`.table_renames`); the
partitioning of each partitioned table, as the DDLs seen gave it (:mod:`.partition_ddls`;
a state written before it was kept has none); the dropped tables kept for a RECOVER TABLE
(:mod:`.dropped_tables`); whether the run that saved it named its Delta commits in a journal
before making them (:mod:`.commit_journal`: a state saved before that was kept is followed
by a check of every Delta table). Delta tables also
carry their applied commit ts in their own commit metadata (``cdcwire.applied_ts``),
written in the commit that applies it.

A run trusts the state only after checking it: every field of its type
(:data:`STATE_FIELDS`), every table applied into a Parquet snapshot named, every directory
it names present under OUT. A damaged state is one error naming the file and the field,
never a run that writes wrong tables from it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ...foundation.errors import CdcwireError
from ...transports.storage.position import LayoutPosition

STATE_FILE = "_cdcwire_state.json"
STATE_VERSION = 1


def _count(v: Any) -> bool:
    return type(v) is int and v >= 0


def _text(v: Any) -> bool:
    return isinstance(v, str)


def _place(k: str) -> bool:
    topic, _, partition = k.rpartition("/")
    return bool(topic) and partition.isdigit()


def _table(k: str) -> bool:
    return "." in k.strip(".")


def _object(key: Callable[[str], bool], value: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: isinstance(v, dict) and all(isinstance(k, str) and key(k) and value(x) for k, x in v.items())


def _layout_position(v: Any) -> bool:
    try:
        LayoutPosition.from_doc(v)
    except ValueError:
        return False
    return True


def _moves(v: Any) -> bool:
    return (isinstance(v, dict) and set(v) == {"phase", "moves"} and v["phase"] in (1, 2) and isinstance(v["moves"], list)
            and all(isinstance(m, list) and len(m) == 2 and all(isinstance(x, str) and _table(x) for x in m)
                    for m in v["moves"]))


def _partitioning(v: Any) -> bool:
    return (isinstance(v, dict) and set(v) == {"kind", "column", "expr", "parts"} and v["kind"] in ("range", "list")
            and isinstance(v["column"], str) and v["expr"] in ("", "year") and isinstance(v["parts"], list)
            and all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in v["parts"]))


def _parked(v: Any) -> bool:
    return (isinstance(v, dict) and set(v) == {"table", "ts", "applied", "dir"} and _table(v["table"])
            and _count(v["ts"]) and _count(v["applied"]) and _text(v["dir"]))


def _or_null(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


#: Each field of the state: (its check, what it must be). ``tables`` and ``layout`` may be
#: missing (states written before they were kept: every table; a topic's state).
STATE_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "format": (_text, "a table format"),
    "source": (_text, "the source URI"),
    "offsets": (_object(_place, _count), 'an object of "topic/partition": next offset (an integer >= 0)'),
    "resolved": (_object(_place, _count), 'an object of "topic/partition": resolved ts (an integer >= 0)'),
    "applied": (_object(_table, _count), 'an object of "schema.table": applied commit ts (an integer >= 0)'),
    "snapshots": (_object(_table, _text), 'an object of "schema.table": snapshot directory under the output'),
    "pending": (_or_null(_text), "null or the directory of pending events under the output"),
    "release_ts": (_or_null(_count), "null or a commit ts (an integer >= 0)"),
    "run": (_count, "the number of the last run (an integer >= 0)"),
    "tables": (_or_null(_text), "null or the table filter of the runs"),
    "layout": (_or_null(_layout_position), 'null or where the read of a storage-sink layout stopped: {"checkpoint":'
               ' ts, "files": {"<data directory>/meta/CDC.index": the last file index read there}}'),
    "renamed_ts": (_or_null(_count), "null or the commit ts of the last RENAME TABLE applied to the tables"),
    "renaming": (_or_null(_moves), 'null or the Delta tables being renamed: {"phase": 1 or 2, "moves": [["old", "new"]]}'),
    "partitions": (_object(_table, _partitioning), 'an object of "schema.table": its partitioning as the DDLs gave it'
                   ' ({"kind": "range" or "list", "column": name, "expr": "" or "year", "parts": [[name, bound]]})'),
    "journaled": (lambda v: isinstance(v, bool),
                  "true or false (whether the run that saved the state named its Delta commits in a journal first)"),
    "dropped": (_object(lambda k: True, _parked), 'an object of "schema.table-ts": a dropped table kept for a RECOVER'
                ' ({"table": name, "ts": drop ts, "applied": applied ts, "dir": directory under the output})'),
}
_OPTIONAL_FIELDS = ("tables", "layout", "renamed_ts", "renaming", "partitions", "dropped", "journaled")
_WHAT_TO_DO = "restore the file, or materialize into a new output directory"


@dataclass(slots=True)
class TablesState:
    format: str
    source: str = ""  # the source URI, redacted: a run against another source is refused
    offsets: dict[str, int] = field(default_factory=dict)
    resolved: dict[str, int] = field(default_factory=dict)
    applied: dict[str, int] = field(default_factory=dict)
    snapshots: dict[str, str] = field(default_factory=dict)  # parquet: table -> directory under OUT
    pending: Optional[str] = None  # a Parquet directory under OUT, or None
    release_ts: Optional[int] = None
    run: int = 0
    tables: Optional[str] = None  # the table filter of the runs (None: every table)
    layout: Optional[LayoutPosition] = None  # a storage-sink layout's source: where its read stopped
    renamed_ts: Optional[int] = None  # the last RENAME TABLE applied to the tables (see table_renames)
    renaming: Optional[dict] = None  # Delta tables being moved to their new names (see table_renames)
    partitions: dict[str, dict] = field(default_factory=dict)  # partitioning learnt from the DDLs (partition_ddls)
    dropped: dict[str, dict] = field(default_factory=dict)  # dropped tables kept for a RECOVER (dropped_tables)
    journaled: bool = False  # saved by a run that names its Delta commits first (commit_journal)

    @classmethod
    def load(cls, out: str, format: str) -> "TablesState":
        path = Path(out) / STATE_FILE
        if not path.exists():
            return cls(format)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CdcwireError(f"{path} is not a cdcwire materialize state: {exc}") from None
        if not isinstance(doc, dict):
            raise CdcwireError(f"{path} is not a cdcwire materialize state: not a JSON object; {_WHAT_TO_DO}")
        if doc.get("state_version") != STATE_VERSION:
            raise CdcwireError(f"{path} has state version {doc.get('state_version')!r}; this cdcwire reads {STATE_VERSION}")
        if doc.get("format") != format:
            raise CdcwireError(
                f"{out} holds {doc.get('format')} tables; materialize it with --format {doc.get('format')}"
                f" (or into another directory)"
            )
        doc.pop("state_version")
        _check_fields(doc, path)
        if doc.get("layout") is not None:
            doc["layout"] = LayoutPosition.from_doc(doc["layout"])
        state = cls(**doc)
        state._check_on_disk(Path(out), path)
        return state

    def _check_on_disk(self, out: Path, path: Path) -> None:
        """What the state names is there: a snapshot for every table applied (Parquet), a
        Delta log for every table applied (Delta), the directories it names under ``out``."""
        if self.format == "parquet":
            for name in sorted(set(self.applied) ^ set(self.snapshots)):
                missing, has = ("snapshots", "applied") if name in self.applied else ("applied", "snapshots")
                raise CdcwireError(f"{path} is damaged: field {missing} has no entry for {name}, which {has} names;"
                                   f" {_WHAT_TO_DO}")
        named = [(f"snapshots[{name!r}]", d) for name, d in sorted(self.snapshots.items())]
        named += [("pending", self.pending)] if self.pending is not None else []
        if self.format == "delta":
            moving = {new for _, new in self.renaming["moves"]} if self.renaming else set()  # see table_renames
            named += [(f"applied[{name!r}]", f"{name}/_delta_log") for name in sorted(self.applied) if name not in moving]
        for field_name, directory in named:
            # told from the name alone (no path resolved: a state names every table's directory,
            # a thousand of them for a whole database, and a run reads it whole)
            relative = os.path.normpath(directory)
            if os.path.isabs(directory) or relative in (".", "..") or relative.startswith("../"):
                raise CdcwireError(f"{path} is damaged: field {field_name} names {directory!r}, not a directory under"
                                   f" {out}; {_WHAT_TO_DO}")
            if not (out / relative).is_dir():
                raise CdcwireError(f"{path} is damaged: field {field_name} names {directory!r}, which is not in {out};"
                                   f" {_WHAT_TO_DO}")

    def save(self, out: str) -> None:
        """Write the manifest aside, then rename it into place (the commit of a run)."""
        directory = Path(out)
        directory.mkdir(parents=True, exist_ok=True)
        aside = directory / f".{STATE_FILE}.{os.getpid()}.tmp"
        with open(aside, "w", encoding="utf-8") as f:
            doc = {"state_version": STATE_VERSION, **asdict(self)}
            doc["layout"] = self.layout.to_doc() if self.layout is not None else None
            json.dump(doc, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(aside, directory / STATE_FILE)


def _check_fields(doc: dict, path: Path) -> None:
    """Every field of :data:`STATE_FIELDS` present (but the optional ones), of its type, and no other."""
    for name in doc:
        if name not in STATE_FIELDS:
            raise CdcwireError(f"{path} is damaged: unknown field {name!r}; {_WHAT_TO_DO}")
    for name, (check, what) in STATE_FIELDS.items():
        if name not in doc:
            if name in _OPTIONAL_FIELDS:
                continue
            raise CdcwireError(f"{path} is damaged: field {name} is missing (it must be {what}); {_WHAT_TO_DO}")
        if not check(doc[name]):
            shown = json.dumps(doc[name])
            shown = shown if len(shown) <= 60 else shown[:57] + "..."
            raise CdcwireError(f"{path} is damaged: field {name} is {shown}, not {what}; {_WHAT_TO_DO}")


def state_saved_at(out: str) -> Optional[float]:
    """When the state of OUT was last committed (its file's modification time), None without one."""
    try:
        return (Path(out) / STATE_FILE).stat().st_mtime
    except OSError:
        return None
