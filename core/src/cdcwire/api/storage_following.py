"""Following TiCDC's storage sink as it writes: each time the root checkpoint moves, the events
up to it that were not given before, in replay order (:mod:`cdcwire.transports.storage.replay`,
whose :class:`Replayer` remembers the DDLs and rows given and the files read).

``cdcwire.follow("s3://bucket/prefix?protocol=csv&...")`` comes here (:func:`cdcwire.follow`
refuses the options that name topics, partitions, offsets or groups, which a layout does not
have). Each round reads the ``metadata`` checkpoint; when it moved, the layout is listed again
and the new events are given, ending with a ResolvedEvent at the checkpoint.
"""

from __future__ import annotations

import threading
from typing import Iterator, Optional

from ..model.events import Event
from .storage_reading import line_decoder
from ..transports.storage.layout import read_checkpoint, snapshot
from ..transports.storage.location import StorageLocation
from ..transports.storage.replay import PlacedEvent, Replayer

#: The follow options that apply to a layout (it is always given in its replay order, so ordered too).
STORAGE_FOLLOW_OPTIONS = ("count", "until", "exit_at_end", "poll_interval", "ordered")


class StorageFollower:
    """Iterate it for events (:meth:`placed`: with their file and line); :meth:`stop` ends it."""

    def __init__(self, uri: str, count: Optional[int] = None, until: Optional[int] = None,
                 exit_at_end: bool = False, poll_interval: float = 0.5) -> None:
        self.location = StorageLocation.parse(uri)
        self.count, self.until, self.exit_at_end, self.poll_interval = count, until, exit_at_end, poll_interval
        self.events = 0
        self.checkpoint = -1
        self.stopped_by: Optional[str] = None
        self._stopping = threading.Event()
        self._replayer = Replayer(self.location, line_decoder(self.location))

    @property
    def starts(self) -> dict[tuple[str, int], int]:
        """Where each partition starts, as a topic follower says: a layout has none (it starts at its beginning)."""
        return {}

    def summary(self) -> str:
        """One line: events given, the checkpoint reached."""
        reached = "none" if self.checkpoint < 0 else str(self.checkpoint)
        return f"{self.events} event(s) from {self.location.display()}; checkpoint reached: {reached}"

    def placed(self) -> Iterator[PlacedEvent]:
        until, count = self.until, self.count
        while not self._stopping.is_set():
            checkpoint = read_checkpoint(self.location.storage)
            if until is not None:
                checkpoint = min(checkpoint, int(until))
            if checkpoint > self.checkpoint:
                shot = snapshot(self.location, checkpoint)
                for placed in self._replayer.events(shot, after=self.checkpoint):
                    self.events += 1
                    yield placed
                    if count is not None and self.events >= count:
                        return self._end("count")
                self.checkpoint = checkpoint
                if until is not None and checkpoint >= int(until):
                    return self._end("until")
            elif self.exit_at_end:
                return self._end("end")
            else:
                self._stopping.wait(self.poll_interval)
        return None

    def __iter__(self) -> Iterator[Event]:
        return (placed.event for placed in self.placed())

    def _end(self, reason: str) -> None:
        self.stopped_by = self.stopped_by or reason
        self._stopping.set()

    def stop(self, reason: str = "stop()") -> None:
        """End the iteration at the next check (within a poll interval); safe from another thread."""
        self._end(reason)

    def close(self, processed: bool = True) -> None:
        self.stop(self.stopped_by or "close()")

    def __enter__(self) -> "StorageFollower":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close()

