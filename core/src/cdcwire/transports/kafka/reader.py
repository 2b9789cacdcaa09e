"""The Kafka reader: bounded reads of one partition, from an offset to the high watermark of the call.

Partitions are assigned directly and no consumer group offsets are committed: a
read is a snapshot of what the topic holds, repeatable from any offset.
"""

from __future__ import annotations

import logging
import time
from typing import Iterator, Optional

from confluent_kafka import TIMESTAMP_NOT_AVAILABLE, Consumer, KafkaError, KafkaException, TopicPartition

from ...foundation.errors import TransportError
from ...model.message import Message
from ...contract.transport import MessageReader
from .settings import KafkaSettings, kafka_error_of

log = logging.getLogger("cdcwire.kafka")


class KafkaReader(MessageReader):
    """Bounded reads: each partition from an offset to its high watermark at the call.

    Partitions are assigned directly; no consumer group offsets are committed. Each message
    carries its record's timestamp (create or log-append time, as the topic keeps it).
    """

    def __init__(self, config) -> None:
        self.settings = KafkaSettings.of(config)
        self._errors = self.settings.client_errors()
        self._consumer: Optional[Consumer] = self.settings.open_client(
            Consumer,
            self._errors,
            **{
                "group.id": f"{self.settings.client_id}-reader",
                "enable.auto.commit": False,
                "enable.auto.offset.store": False,
                "enable.partition.eof": True,
                "auto.offset.reset": "error",
                "fetch.wait.max.ms": 100,
                **self.settings.consumer,
            },
        )
        #: Per (topic, partition): offsets reads asked for that were already removed, so skipped.
        self.skipped: dict[tuple[str, int], int] = {}
        self._metadata()

    def __repr__(self) -> str:
        return f"KafkaReader({self.settings.bootstrap})"

    def _open(self) -> Consumer:
        if self._consumer is None:
            raise TransportError("the Kafka reader is closed")
        return self._consumer

    def _metadata(self, topic: Optional[str] = None):
        consumer = self._open()
        try:
            return consumer.list_topics(topic=topic, timeout=self.settings.dial_timeout)
        except KafkaException as exc:
            if not consumer.assignment():
                consumer.poll(0)  # collect the client's own errors (refused, authentication) for the message
            raise self.settings.unreachable(exc, self._errors) from None

    def topics(self) -> list[str]:
        return sorted(name for name in self._metadata().topics if not name.startswith("__"))

    def partitions(self, topic: str) -> list[int]:
        meta = self._metadata(topic).topics.get(topic)
        if meta is None or (meta.error is not None and meta.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
            raise TransportError(f"topic {topic!r} does not exist at {self.settings.bootstrap}")
        if meta.error is not None:
            raise TransportError(
                f"cannot describe topic {topic!r} at {self.settings.bootstrap}: {self.settings.describe(meta.error)}"
            )
        return sorted(meta.partitions)

    def leader(self, topic: str, partition: int) -> Optional[tuple[str, int]]:
        """(host, port) of the broker leading the partition now, or None when it has none: where a
        reader of its own (the JVM's, :mod:`cdcwire.spark.reader.kafka_source`) fetches from."""
        meta = self._metadata(topic)
        described = meta.topics.get(topic)
        part = None if described is None else described.partitions.get(partition)
        broker = None if part is None or part.leader < 0 else meta.brokers.get(part.leader)
        return None if broker is None else (broker.host, broker.port)

    def watermarks(self, topic: str, partition: int) -> tuple[int, int]:
        """(low, high): the first offset still held and the offset the next message will get."""
        try:
            return self._open().get_watermark_offsets(
                TopicPartition(topic, partition), timeout=self.settings.dial_timeout
            )
        except KafkaException as exc:
            err = kafka_error_of(exc)
            if err is not None and err.code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_PARTITION):
                raise TransportError(
                    f"partition {topic}/{partition} does not exist at {self.settings.bootstrap}"
                ) from None
            raise self.settings.unreachable(exc, self._errors) from None

    def read(
        self, topic: str, partition: int, start: Optional[int] = None, end: Optional[int] = None
    ) -> Iterator[Message]:
        """Messages with offsets in [start, end); ``start`` None = earliest held, ``end`` None = high
        watermark now. ``end`` beyond the high watermark is cut to it: a read never waits for new data.
        A ``start`` below the low watermark reads from the low watermark, with a warning and the
        offsets no longer held counted in :attr:`skipped`."""
        low, high = self.watermarks(topic, partition)  # now, not at the first next()
        stop = high if end is None else min(end, high)
        if start is None:
            return self._messages(topic, partition, low, stop)
        gone = min(low, stop) - start
        if gone > 0:
            self._note_removed(topic, partition, start, low, gone)
        return self._messages(topic, partition, max(start, low), stop)

    def _note_removed(self, topic: str, partition: int, start: int, low: int, gone: int) -> None:
        """A read asked for offsets the partition no longer holds: say so, and count them.

        Retention (or delete-records) removed them; reading on from the low watermark is
        all that can be done, but a caller who asked for them must be able to tell.
        """
        key = (topic, partition)
        self.skipped[key] = self.skipped.get(key, 0) + gone
        log.warning(
            "%s/%d: offset %d asked for, but the partition holds offsets from its low watermark %d on "
            "(removed by retention or delete-records); %d offset(s) skipped",
            topic, partition, start, low, gone,
        )

    def _messages(self, topic: str, partition: int, begin: int, stop: int) -> Iterator[Message]:
        if begin >= stop:
            return
        consumer = self._open()
        consumer.assign([TopicPartition(topic, partition, begin)])
        idle_limit = max(self.settings.dial_timeout, self.settings.request_timeout_ms / 1000)
        next_offset = begin
        last_progress = time.monotonic()
        try:
            while next_offset < stop:
                batch = consumer.consume(min(1000, stop - next_offset + 1), 0.2)
                if not batch:
                    if time.monotonic() - last_progress > idle_limit:
                        raise TransportError(
                            f"no data from Kafka at {self.settings.bootstrap} for {topic}/{partition} "
                            f"at offset {next_offset} within {idle_limit:g}s{self._errors.last_words()}"
                        )
                    continue
                last_progress = time.monotonic()
                for m in batch:
                    err = m.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF:
                            next_offset = stop  # nothing more is held (offsets may skip, e.g. transaction markers)
                            break
                        raise TransportError(
                            f"reading {topic}/{partition} at offset {next_offset} from {self.settings.bootstrap}: "
                            f"{self.settings.describe(err)}"
                        )
                    offset = m.offset()
                    if offset >= stop:
                        next_offset = stop
                        break
                    kind, ts = m.timestamp()
                    stamp = None if kind == TIMESTAMP_NOT_AVAILABLE else ts
                    headers = m.headers()
                    yield Message(
                        topic, partition, m.key(), m.value(), offset, stamp,
                        None if headers is None else tuple((str(k), v) for k, v in headers),
                    )
                    next_offset = offset + 1
        finally:
            if self._consumer is not None:
                self._consumer.unassign()

    def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            consumer.close()
