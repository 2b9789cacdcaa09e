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
point). Delta tables also carry their applied commit ts in their own commit metadata
(``cdcwire.applied_ts``), written in the MERGE that applies it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from ...errors import CdcwireError

STATE_FILE = "_cdcwire_state.json"
STATE_VERSION = 1


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

    @classmethod
    def load(cls, out: str, format: str) -> "TablesState":
        path = Path(out) / STATE_FILE
        if not path.exists():
            return cls(format)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise CdcwireError(f"{path} is not a cdcwire materialize state: {exc}") from None
        if doc.get("state_version") != STATE_VERSION:
            raise CdcwireError(f"{path} has state version {doc.get('state_version')!r}; this cdcwire reads {STATE_VERSION}")
        if doc.get("format") != format:
            raise CdcwireError(
                f"{out} holds {doc.get('format')} tables; materialize it with --format {doc.get('format')}"
                f" (or into another directory)"
            )
        doc.pop("state_version")
        return cls(**doc)

    def save(self, out: str) -> None:
        """Write the manifest aside, then rename it into place (the commit of a run)."""
        directory = Path(out)
        directory.mkdir(parents=True, exist_ok=True)
        aside = directory / f".{STATE_FILE}.{os.getpid()}.tmp"
        with open(aside, "w", encoding="utf-8") as f:
            json.dump({"state_version": STATE_VERSION, **asdict(self)}, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(aside, directory / STATE_FILE)
