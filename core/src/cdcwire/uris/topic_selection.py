"""Which topics a read takes: the one rule for ``cs.read(topics=...)``, ``cdcwire run --topics``
and ``cdcwire inspect --topics``.

Nothing: the URI's topic. Otherwise a comma-separated list whose entries are topic names
or shell-style patterns (``*``, ``?``, ``[...]``: ``tidb_app_*`` for the topics a topic
rule ``tidb_{schema}_{table}`` made; ``*`` alone for every topic the source holds), as
Spark's Kafka source takes ``subscribePattern``. A pattern that matches no topic is an
error naming what the source holds: a bounded read of nothing is a typo, not a result.
"""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Callable, Optional, Sequence, Union

from ..foundation.errors import CdcwireError

_PATTERN_CHARS = frozenset("*?[")


def select_topics(
    spec: Optional[Union[str, Sequence[str]]], default: str, available: Callable[[], list[str]]
) -> list[str]:
    """The topics ``spec`` names, in its order (each pattern's matches sorted), without repeats.
    ``available`` lists the source's topics; it is called only when a pattern needs it."""
    if spec is None:
        return [default]
    entries = [e.strip() for e in (spec.split(",") if isinstance(spec, str) else spec) if e.strip()]
    if not entries:
        return [default]
    held: Optional[list[str]] = None
    chosen: list[str] = []
    for entry in entries:
        if _PATTERN_CHARS.isdisjoint(entry):
            found = [entry]
        else:
            held = available() if held is None else held
            found = [t for t in held if fnmatchcase(t, entry)]
            if not found:
                shown = ", ".join(held[:20]) + (" ..." if len(held) > 20 else "") if held else "no topics"
                raise CdcwireError(f"no topic matches {entry!r}; the source holds {shown}")
        chosen.extend(t for t in found if t not in chosen)
    return chosen
