"""A bounded cache of compiled generated code, keyed by the column kinds it was generated for.

The group encoders and decoders are generated Python source compiled once per tuple
of value kinds and shared by every table shape with those kinds. Compiling is the
expensive part (milliseconds), so it is cached; a stream of ever new table shapes
must not grow the cache without bound, so it is cleared when full.
"""

from __future__ import annotations

from types import CodeType
from typing import Callable


class CodeCache:
    """Compiled code objects by kinds; at most ``limit`` of them."""

    __slots__ = ("_codes", "_source", "_label", "_limit")

    def __init__(self, source: Callable[[tuple[int, ...]], str], label: str, limit: int = 1024) -> None:
        self._codes: dict[tuple[int, ...], CodeType] = {}
        self._source = source
        self._label = label
        self._limit = limit

    def __call__(self, kinds: tuple[int, ...]) -> CodeType:
        """The code compiled from ``source(kinds)``, named for tracebacks by ``label`` and the width."""
        code = self._codes.get(kinds)
        if code is None:
            if len(self._codes) >= self._limit:
                self._codes.clear()
            name = f"<craft {self._label} of {len(kinds)} columns>"
            code = self._codes[kinds] = compile(self._source(kinds), name, "exec")
        return code
