"""Where an event of a storage layout came from: a file and a line, as a topic/partition/offset
names a message. Every error of this room names one, so a damaged file is found at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ...foundation.errors import DecodeError


@dataclass(frozen=True, slots=True)
class Place:
    """``path`` relative to the layout's root; ``line`` 1-based (None: the file as a whole)."""

    path: str
    line: Optional[int] = None

    def __str__(self) -> str:
        return self.path if self.line is None else f"{self.path}:{self.line}"


class LayoutError(DecodeError):
    """A file of the layout is damaged or is not what its name says: one line, naming the file
    (and line) and what is wrong. ``place`` is where."""

    def __init__(self, place: Place, reason: str) -> None:
        super().__init__(reason)
        self.place = place
        self.where = str(place)
        self.args = (f"{place}: {reason}",)
