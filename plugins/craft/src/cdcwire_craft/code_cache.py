"""A bounded cache of compiled generated code, keyed by the column kinds it was generated for.

The group encoders and decoders are generated Python source compiled once per tuple
of value kinds and shared by every table shape with those kinds. Compiling is the
expensive part (milliseconds), so it is cached; a stream of ever new table shapes
must not grow the cache without bound, so it is cdcwire's BoundedCache (emptied when
full). This class stays for what a cache does not do: compile on a miss.
"""

from __future__ import annotations

from types import CodeType
from typing import Callable

from cdcwire.plugin_api import BoundedCache


class CodeCache:
    """Compiled code objects by kinds; at most ``limit`` of them."""

    __slots__ = ("_codes", "_source", "_label")

    def __init__(self, source: Callable[[tuple[int, ...]], str], label: str, limit: int = 1024) -> None:
        self._codes: BoundedCache[tuple[int, ...], CodeType] = BoundedCache(limit)
        self._source = source
        self._label = label

    def __call__(self, kinds: tuple[int, ...]) -> CodeType:
        """The code compiled from ``source(kinds)``, named for tracebacks by ``label`` and the width."""
        code = self._codes.get(kinds)
        if code is None:
            name = f"<craft {self._label} of {len(kinds)} columns>"
            code = self._codes.remember(kinds, compile(self._source(kinds), name, "exec"))
        return code
