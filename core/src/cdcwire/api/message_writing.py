"""One topic-partition's encoded payloads written as messages, and counted.

Every path that encodes and writes (``cdcwire encode``, Spark's encoding stage and
``format("cdcwire")``) writes each payload as a :class:`~cdcwire.model.message.Message` and
counts the events the messages carry, the messages and their bytes; this is that
loop, once, so the three report the same numbers (bytes: :attr:`Message.size`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from ..model.message import Message, Payload
from ..contract.transport import MessageWriter


@dataclass(slots=True)
class WrittenMessages:
    """What was written to one topic-partition: ``events`` the messages say they carry,
    ``messages``, and ``bytes`` of their keys and values."""

    events: int = 0
    messages: int = 0
    bytes: int = 0


def write_payloads(
    writer: MessageWriter,
    topic: str,
    partition: int,
    payloads: Iterable[Payload],
    counts: Optional[WrittenMessages] = None,
) -> WrittenMessages:
    """Write each payload to ``topic``/``partition`` as it comes; the counts, added to ``counts``
    when given (a topic-partition encoded in chunks)."""
    if counts is None:
        counts = WrittenMessages()
    for payload in payloads:
        message = Message(topic, partition, payload.key, payload.value)
        writer.write(message)
        counts.events += payload.events
        counts.messages += 1
        counts.bytes += message.size
    return counts
