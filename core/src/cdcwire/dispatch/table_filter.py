"""TiDB's table-filter syntax, the one matcher of tables: dispatch rules and consumer filters.

A filter is a list of ``schema.table`` patterns (shell globs, case-insensitive, ``*`` never
crossing the dot); a leading ``!`` excludes; the last pattern that matches a table decides,
and a table no pattern matches is out (so a filter of exclusions alone keeps nothing:
write ``*.*,!app.tmp_*``). Text form: the patterns separated by commas.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Sequence, Union

from ..foundation.bounded_cache import BoundedCache
from ..foundation.errors import CdcwireError

_PATTERNS: BoundedCache[str, tuple[bool, re.Pattern[str], re.Pattern[str]]] = BoundedCache()


class TableFilterError(CdcwireError, ValueError):
    """A pattern is not ``[!]schema.table``."""


@dataclass(frozen=True, slots=True)
class TableFilter:
    patterns: tuple[str, ...]

    def __post_init__(self) -> None:
        for pattern in self.patterns:
            compiled(pattern)  # a bad pattern fails here, not on the first event

    @classmethod
    def of(cls, spec: Union[str, Sequence[str], "TableFilter"]) -> "TableFilter":
        """From ``"app.*,!app.tmp_*"``, a list of patterns, or a filter."""
        if isinstance(spec, TableFilter):
            return spec
        parts = spec.split(",") if isinstance(spec, str) else list(spec)
        return cls(tuple(p.strip() for p in parts if p.strip()))

    def matches(self, schema: str, table: str) -> bool:
        schema, table = schema.lower(), table.lower()
        matched = False
        for pattern in self.patterns:
            exclude, schema_rx, table_rx = compiled(pattern)
            if schema_rx.fullmatch(schema) and table_rx.fullmatch(table):
                matched = not exclude
        return matched


def compiled(pattern: str) -> tuple[bool, re.Pattern[str], re.Pattern[str]]:
    """(excludes, schema regex, table regex) of one ``[!]schema.table`` glob."""
    hit = _PATTERNS.get(pattern)
    if hit is None:
        exclude = pattern.startswith("!")
        schema, dot, table = pattern[1 if exclude else 0 :].lower().partition(".")
        if not dot or not schema or not table:
            raise TableFilterError(f"table pattern {pattern!r} must be 'schema.table' (globs allowed, '!' to exclude)")
        # fnmatch's translation lets * cross any character; within one part there is no dot to cross
        hit = _PATTERNS.remember(pattern, (exclude, re.compile(fnmatch.translate(schema)), re.compile(fnmatch.translate(table))))
    return hit
