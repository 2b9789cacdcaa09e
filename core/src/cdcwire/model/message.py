"""A protocol message: what a transport carries and a decoder reads."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

#: Bytes a Kafka record costs beyond its key and value, as the reference reserves when it
#: checks ``max-message-bytes`` (5 varints of 5 bytes, plus 10, plus 1). Every codec's size
#: check uses this one number, so they all refuse and split at the same size.
MESSAGE_OVERHEAD = 36


@dataclass(frozen=True, slots=True)
class Message:
    """One Kafka-style record. ``offset`` is set on messages read back from a transport;
    ``timestamp`` (milliseconds since the epoch) and ``headers`` (``(name, value)`` pairs, in
    order) on those read back from Kafka, which keeps them per record (``file://`` framing has
    neither: None)."""

    topic: str
    partition: int
    key: Optional[bytes]
    value: Optional[bytes]
    offset: Optional[int] = None
    timestamp: Optional[int] = None
    headers: Optional[tuple[tuple[str, Optional[bytes]], ...]] = None

    @property
    def size(self) -> int:
        return len(self.key or b"") + len(self.value or b"")

    def location(self) -> str:
        """``topic/partition/offset`` for error messages."""
        off = "?" if self.offset is None else str(self.offset)
        return f"{self.topic}/{self.partition}/{off}"


@dataclass(frozen=True, slots=True)
class Payload:
    """What an encoder yields for one message: key, value, and how many events it carries.

    The event count lets a pipeline reconcile events in with events written.
    """

    key: Optional[bytes]
    value: Optional[bytes]
    events: int = 1
