"""Where messages go and come from: a transport per sink-URI scheme.

A transport is a plugin point like a codec. The core ships ``file`` (always)
and ``kafka`` (with the ``cdcwire[kafka]`` extra).
"""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING, ClassVar, Iterable, Iterator, Optional

from .message import Message
from .params import Parameter

if TYPE_CHECKING:
    from .sink_uri import SinkConfig


class MessageWriter(abc.ABC):
    """Writes messages to their topic-partition. Use as a context manager:
    leaving the block flushes and fails loudly if any message was not delivered."""

    @abc.abstractmethod
    def write(self, message: Message) -> None: ...

    def write_all(self, messages: Iterable[Message]) -> int:
        n = 0
        for m in messages:
            self.write(m)
            n += 1
        return n

    @abc.abstractmethod
    def flush(self) -> None:
        """Block until every written message is durable; raise TransportError otherwise."""

    def close(self) -> None:
        self.flush()

    def __enter__(self) -> "MessageWriter":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()

    def abort(self) -> None:
        """Release resources after a failure without claiming success."""


class MessageReader(abc.ABC):
    """Reads messages back, bounded: from an offset to the end as it was at the call."""

    @abc.abstractmethod
    def partitions(self, topic: str) -> list[int]:
        """The partitions of a topic that exist."""

    @abc.abstractmethod
    def read(
        self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
    ) -> Iterator[Message]:
        """Messages of one partition with offsets in [start, end); ``start`` None = the earliest
        held, ``end`` None = the high watermark now."""

    def topics(self) -> list[str]:
        """Topics this source holds, where the transport can list them."""
        return []

    def close(self) -> None:
        pass


class Transport(abc.ABC):
    """A sink-URI scheme. ``parameters`` are the URI parameters it honours."""

    scheme: ClassVar[str]
    parameters: ClassVar[tuple[Parameter, ...]] = ()

    def validate(self, config: SinkConfig) -> None:
        """Check the location and transport parameters; raise SinkURIError."""

    def partition_count(self, config: SinkConfig, topic: str) -> Optional[int]:
        """The real partition count of an existing topic, or None if unknown / new."""
        return None

    def prepare_topic(self, config: SinkConfig, topic: str) -> int:
        """How many partitions of ``topic`` a write uses; called once per topic before dispatching.

        The reference's rule: ``partition-num`` when the URI gives it, else an existing
        topic's real count, else 3. A transport whose topics have a fixed size (Kafka)
        overrides this to create a missing topic and to refuse a ``partition-num``
        larger than the real count.
        """
        if "partition-num" not in config.given:
            existing = self.partition_count(config, topic)
            if existing:
                return int(existing)
        return int(config["partition-num"])

    @abc.abstractmethod
    def writer(self, config: SinkConfig) -> MessageWriter: ...

    @abc.abstractmethod
    def reader(self, config: SinkConfig) -> MessageReader: ...
