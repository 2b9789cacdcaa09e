"""Kafka topics: how many partitions a topic has, and creating it with ``partition-num`` when missing.

A metadata request never creates a topic here (``allow.auto.create.topics`` is off):
a topic is created only by :meth:`TopicAdmin.create`, with the partition count the
URI asks for, so its size never depends on a broker default.
"""

from __future__ import annotations

import logging
import time
from typing import Optional

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient, NewTopic

from ...foundation.errors import SinkURIError, TransportError
from .settings import KafkaSettings, kafka_error_of

log = logging.getLogger("cdcwire.kafka")


class TopicAdmin:
    """Partition counts and topic creation through one AdminClient."""

    def __init__(self, settings: KafkaSettings) -> None:
        self.settings = settings
        self._errors = settings.client_errors()
        self._admin = settings.open_client(AdminClient, self._errors)

    def __repr__(self) -> str:
        return f"TopicAdmin({self.settings.bootstrap})"

    def _metadata(self, topic: Optional[str] = None):
        try:
            return self._admin.list_topics(topic=topic, timeout=self.settings.dial_timeout)
        except KafkaException as exc:
            self._admin.poll(0)  # collect the client's own errors (refused, authentication) for the message
            raise self.settings.unreachable(exc, self._errors) from None

    def check_reachable(self) -> None:
        """Raise TransportError naming the brokers if none answers within dial-timeout."""
        self._metadata()

    def topics(self) -> list[str]:
        return sorted(name for name in self._metadata().topics if not name.startswith("__"))

    def partition_count(self, topic: str) -> Optional[int]:
        """The real partition count of ``topic``; None when it does not exist."""
        deadline = time.monotonic() + self.settings.dial_timeout
        while True:
            meta = self._metadata(topic).topics.get(topic)
            err = meta.error if meta is not None else None
            if meta is None or (err is not None and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
                return None
            if err is None and meta.partitions:
                return len(meta.partitions)
            if err is not None and not err.retriable() and err.code() != KafkaError.LEADER_NOT_AVAILABLE:
                raise TransportError(
                    f"cannot describe topic {topic!r} at {self.settings.bootstrap}: {self.settings.describe(err)}"
                )
            if time.monotonic() > deadline:
                why = self.settings.describe(err) if err is not None else "no partitions yet"
                raise TransportError(f"topic {topic!r} at {self.settings.bootstrap} is not ready: {why}")
            time.sleep(0.05)

    def create(self, topic: str, partitions: int, replication_factor: int) -> bool:
        """Create ``topic``; False when someone else created it first."""
        futures = self._admin.create_topics(
            [NewTopic(topic, num_partitions=partitions, replication_factor=replication_factor)],
            request_timeout=self.settings.dial_timeout,
        )
        try:
            futures[topic].result(timeout=self.settings.dial_timeout + 5)
        except KafkaException as exc:
            err = kafka_error_of(exc)
            code = err.code() if err is not None else None
            if code == KafkaError.TOPIC_ALREADY_EXISTS:
                return False
            if code == KafkaError.INVALID_REPLICATION_FACTOR:
                raise SinkURIError(
                    f"replication-factor={replication_factor} cannot be met for topic {topic!r}: "
                    f"{self.settings.describe(exc)}",
                    "replication-factor",
                ) from None
            if code == KafkaError.INVALID_PARTITIONS:
                raise SinkURIError(
                    f"partition-num={partitions} is refused for topic {topic!r}: {self.settings.describe(exc)}",
                    "partition-num",
                ) from None
            if code in (KafkaError._TRANSPORT, KafkaError._TIMED_OUT):
                raise self.settings.unreachable(exc, self._errors) from None
            raise TransportError(
                f"cannot create topic {topic!r} at {self.settings.bootstrap}: {self.settings.describe(exc)}"
            ) from None
        except TimeoutError:
            raise TransportError(
                f"creating topic {topic!r} at {self.settings.bootstrap} "
                f"got no answer within {self.settings.dial_timeout:g}s"
            ) from None
        return True

    def ensure(self, config, topic: str) -> int:
        """See :func:`ensure_topic`."""
        wanted = int(config["partition-num"])
        given = "partition-num" in config.given
        real = self.partition_count(topic)
        if real is None:
            if not config.get("auto-create-topic", True):
                raise TransportError(
                    f"topic {topic!r} does not exist at {self.settings.bootstrap} and auto-create-topic is false"
                )
            if self.create(topic, wanted, int(config.get("replication-factor") or 1)):
                log.info("created topic %s with %d partitions", topic, wanted)
            real = self.partition_count(topic)
            if real is None:
                raise TransportError(f"topic {topic!r} was created but {self.settings.bootstrap} does not list it")
        if not given:
            return real
        if wanted > real:
            raise SinkURIError(
                f"partition-num={wanted} is larger than the {real} partition(s) topic {topic!r} has; "
                f"use partition-num <= {real} or add partitions to the topic",
                "partition-num",
            )
        return wanted

    def close(self) -> None:
        self._admin = None  # type: ignore[assignment]


def topic_partition_count(config, topic: str) -> Optional[int]:
    """The real partition count of ``topic`` at the config's brokers, or None when it does not exist."""
    return TopicAdmin(KafkaSettings.of(config)).partition_count(topic)


def ensure_topic(config, topic: str) -> int:
    """Create ``topic`` when missing (``partition-num`` partitions, ``replication-factor``) and
    return how many partitions to use.

    An existing topic: its real count unless the URI gives ``partition-num``; a
    ``partition-num`` larger than the real count raises SinkURIError naming both
    numbers; a smaller one is returned (only the first N partitions are used).
    """
    return TopicAdmin(KafkaSettings.of(config)).ensure(config, topic)
