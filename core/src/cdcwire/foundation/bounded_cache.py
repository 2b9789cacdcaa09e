"""The one size-capped cache of cdcwire: a dict that empties itself when it is full.

Codecs remember what they derived per table shape (layouts, compiled code, parsed
plans, registry ids) so that the next event of the same shape costs a dict lookup.
A stream of ever new shapes must not grow that memory without bound, and an LRU's
bookkeeping on every hit would cost the hot path more than an occasional rebuild:
so the cache is a plain dict (lookups stay C-speed ``get``) whose ``remember`` clears
it once it holds ``limit`` entries. Every cache in the core and the plugins is one of
these, so a reader finds one rule for how much a codec keeps.
"""

from __future__ import annotations

from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: The default number of entries: far more table shapes than a sink sees at once.
DEFAULT_LIMIT = 4096


class BoundedCache(dict[K, V], Generic[K, V]):
    """A dict of at most ``limit`` entries: read it as a dict, fill it with :meth:`remember`."""

    __slots__ = ("limit",)

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        super().__init__()
        if limit < 1:
            raise ValueError(f"a cache holds at least one entry, not {limit}")
        self.limit = limit

    def remember(self, key: K, value: V) -> V:
        """Store and return ``value``; a full cache is emptied first."""
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value

    def __repr__(self) -> str:
        return f"BoundedCache({len(self)} of {self.limit})"
