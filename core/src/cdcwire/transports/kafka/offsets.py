"""Kafka's :class:`~cdcwire.contract.transport.OffsetsCapability`: a consumer used for offsets only.

It never fetches (the messages come through :class:`~.reader.KafkaReader`): it reads and
commits a consumer group's offsets and asks the broker for the offsets of a time
(``offsets_for_times``, which looks the time up in each partition's time index).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from confluent_kafka import Consumer, KafkaException, TopicPartition

from ...foundation.errors import TransportError
from ...contract.transport import OffsetsCapability
from .settings import KafkaSettings

Key = tuple[str, int]


class KafkaOffsets(OffsetsCapability):
    """Committed offsets of ``group`` and offsets for a time on one ``kafka://`` source."""

    def __init__(self, config: Any, group: Optional[str]) -> None:
        self.group = group
        self._settings = KafkaSettings.of(config)
        self._errors = self._settings.client_errors()
        self._consumer: Any = self._settings.open_client(
            Consumer,
            self._errors,
            **{
                # a time look-up alone needs some group id; it never commits under it
                "group.id": group or f"{self._settings.client_id}-follow",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                **self._settings.consumer,
            },
        )

    def _call(self, what: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KafkaException as exc:
            raise TransportError(
                f"{what} at {self._settings.bootstrap}: {self._settings.describe(exc)}{self._errors.last_words()}"
            ) from None

    def committed(self, keys: Sequence[Key]) -> dict[Key, tuple[int, Optional[str]]]:
        if not keys or self.group is None:
            return {}
        got = self._call(
            f"reading the committed offsets of group {self.group!r}", self._consumer.committed,
            [TopicPartition(t, p) for t, p in keys], timeout=self._settings.dial_timeout,
        )
        return {(tp.topic, tp.partition): (tp.offset, tp.metadata or None) for tp in got if tp.offset >= 0}

    def commit(self, positions: dict[Key, int], metadata: Optional[str] = None) -> None:
        if self.group is None:
            raise TransportError("offsets are committed for a consumer group: this one was opened without one")
        extra = {} if metadata is None else {"metadata": metadata}
        offsets = [TopicPartition(t, p, offset, **extra) for (t, p), offset in sorted(positions.items())]
        self._call(
            f"committing the offsets of group {self.group!r}", self._consumer.commit,
            offsets=offsets, asynchronous=False,
        )

    def at_time(self, keys: Sequence[Key], ms: int) -> dict[Key, Optional[int]]:
        if not keys:
            return {}
        got = self._call(
            f"looking up offsets for the time {ms}", self._consumer.offsets_for_times,
            [TopicPartition(t, p, ms) for t, p in keys], timeout=self._settings.dial_timeout,
        )
        return {(tp.topic, tp.partition): (tp.offset if tp.offset >= 0 else None) for tp in got}

    def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            consumer.close()
