"""The Kafka writer: an idempotent, ``acks=all`` producer that loses nothing.

Why the writer keeps its own record of unconfirmed messages: an idempotent
producer turns a broker that forgot its sequence numbers (a restart that lost
state) into a *fatal* error. The writer then starts a new producer and sends every
message not yet confirmed again, in the original order, so the job completes
with nothing lost and per-partition order kept (messages the broker had written
since the last confirmation appear twice: at least once, as TiCDC's sink).

Why the record is kept sparsely: a delivery report per message (a Python callback, a
message object made for it) cost about as much as producing the message. The producer
reports failed deliveries only (``delivery.report.only.error``), and the writer confirms
what it sent in whole: when the producer's queue is empty after a flush, every message
sent before it was acknowledged or reported failed. A writer confirms at every ``flush``
and after :data:`CONFIRM_EVERY` messages, so the record holds no more messages than
librdkafka's own queue does.
"""

from __future__ import annotations

import functools
import logging
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional, TypeVar

from confluent_kafka import KafkaError, KafkaException, Producer

from ...foundation.errors import TransportError
from ...model.message import Message
from ...contract.transport import MessageWriter
from .settings import KafkaSettings, kafka_error_of
from .topics import TopicAdmin

T = TypeVar("T")

log = logging.getLogger("cdcwire.kafka")

#: How long a message may wait for acknowledgement (retries included) before it fails.
#: Long enough to ride out a broker restart.
MESSAGE_TIMEOUT_MS = 300_000
#: Bounds of librdkafka's in-memory queue: memory stays flat however much is written.
QUEUE_MAX_MESSAGES = 100_000
QUEUE_MAX_KBYTES = 64 * 1024
#: Messages sent between two confirmations (a flush): the most the writer keeps to send again.
CONFIRM_EVERY = QUEUE_MAX_MESSAGES
#: How many times one writer replaces a producer that hit a fatal error before giving up.
MAX_PRODUCER_RESTARTS = 5
#: Errors after which unacknowledged messages are sent again by a new producer.
_REPLAY_CODES = frozenset(
    {
        KafkaError._FATAL,
        KafkaError.OUT_OF_ORDER_SEQUENCE_NUMBER,
        KafkaError.UNKNOWN_PRODUCER_ID,
        KafkaError.INVALID_PRODUCER_EPOCH,
        KafkaError._PURGE_QUEUE,
        KafkaError._PURGE_INFLIGHT,
    }
)


def producer_settings(config, settings: KafkaSettings) -> dict[str, Any]:
    """The producer's own librdkafka settings (on top of :meth:`KafkaSettings.client_config`).

    Idempotence with ``acks=all`` is what makes a retried batch land once and in order
    on every in-sync replica; nothing in a URI can turn either off.
    """
    max_message = int(config.get("max-message-bytes") or 1_000_000)
    message_max_bytes = min(1_000_000_000, max(1_000_000, max_message + 1024))
    return {
        "enable.idempotence": True,
        "acks": "all",
        "compression.type": config.get("compression") or "none",
        "linger.ms": 5,
        "message.timeout.ms": MESSAGE_TIMEOUT_MS,
        "request.timeout.ms": settings.request_timeout_ms,
        "retry.backoff.ms": 100,
        "retry.backoff.max.ms": 1000,
        "message.max.bytes": message_max_bytes,
        "queue.buffering.max.messages": QUEUE_MAX_MESSAGES,
        "queue.buffering.max.kbytes": max(QUEUE_MAX_KBYTES, 2 * message_max_bytes // 1024),
        "delivery.report.only.error": True,  # see the module doc: successes are confirmed in whole
    }


def _served(call: Callable[..., T], *args: Any) -> T:
    """``call(*args)``, a producer call that serves callbacks (poll, flush).

    On Python < 3.12 confluent-kafka re-raises a fatal error met while serving
    callbacks as the KafkaError object itself (its type claims to be an exception
    but is no BaseException), so no typed ``except`` matches it and it would tear
    through the job and whatever runs it. It is turned into the KafkaException it
    stands for, which the writer handles like any fatal error: a new producer.
    """
    try:
        return call(*args)
    except BaseException:
        raise
    except:  # noqa: E722 -- deliberately bare: nothing else catches that object
        error = sys.exc_info()[1]
        if isinstance(error, KafkaError):
            raise KafkaException(error) from None
        raise


@dataclass(frozen=True, slots=True)
class DeliveryFailure:
    topic: str
    partition: int
    error: str


class KafkaWriter(MessageWriter):
    """Idempotent, ``acks=all`` producer writing each message to its own partition.

    A failed delivery is never dropped: it raises TransportError at the next
    ``write``, ``flush`` or ``close``, naming the topic, partition and error.
    """

    def __init__(self, config) -> None:
        self.settings = KafkaSettings.of(config)
        self._config = config
        self._producer_extra = producer_settings(config, self.settings)
        self._admin = TopicAdmin(self.settings)
        self._admin.check_reachable()
        self._partition_counts: dict[str, int] = {}
        self._pending: list[Message] = []  # sent since the last confirmation, in order
        self._generation = 0
        self.restarts = 0
        self._needs_restart = False
        self._failures: list[DeliveryFailure] = []
        self._failure_count = 0
        self._fatal_text = "fatal producer error"
        #: Messages confirmed acknowledged by the brokers so far (at each flush); ``restarts``:
        #: producers replaced after a fatal error.
        self.delivered = 0
        self._errors = self.settings.client_errors()
        self._producer: Optional[Producer] = self._new_producer()

    def __repr__(self) -> str:
        return f"KafkaWriter({self.settings.bootstrap}, pending={len(self._pending)}, delivered={self.delivered})"

    def _new_producer(self) -> Producer:
        self._errors = self.settings.client_errors()
        on_failure = functools.partial(self._on_failure, self._generation)
        return self.settings.open_client(Producer, self._errors, **self._producer_extra, on_delivery=on_failure)

    # the public surface ------------------------------------------------------------------

    def partition_count(self, topic: str) -> int:
        """Partitions this writer may use in ``topic`` (the topic is created on first use)."""
        count = self._partition_counts.get(topic)
        if count is None:
            count = self._partition_counts[topic] = self._admin.ensure(self._config, topic)
        return count

    def write(self, message: Message) -> None:
        if self._failure_count:
            self._raise_failures()
        if self._producer is None:
            raise TransportError("the Kafka writer is closed")
        count = self._partition_counts.get(message.topic)
        if count is None:
            count = self.partition_count(message.topic)
        if not 0 <= message.partition < count:
            raise TransportError(
                f"partition {message.partition} is outside topic {message.topic!r}'s {count} partition(s)"
            )
        self._pending.append(message)
        self._produce(message, len(self._pending))
        if self._needs_restart:
            self._restart_producer()
        if len(self._pending) >= CONFIRM_EVERY:
            self.flush()

    def flush(self) -> None:
        if self._producer is None:
            return
        deadline = time.monotonic() + MESSAGE_TIMEOUT_MS / 1000 + 30
        while True:
            if self._needs_restart:
                self._restart_producer()
                deadline = time.monotonic() + MESSAGE_TIMEOUT_MS / 1000 + 30
            try:
                left = _served(self._producer.flush, 0.5)
            except (KafkaException, SystemError) as exc:
                self._note_exception(exc)
                continue
            if self._errors.fatal is not None:
                self._needs_restart = True
            if self._needs_restart:
                continue
            if left == 0:
                break
            if time.monotonic() > deadline:
                raise TransportError(
                    f"{left} message(s) still not acknowledged by Kafka at {self.settings.bootstrap} "
                    f"after {MESSAGE_TIMEOUT_MS // 1000}s"
                )
        if self._failure_count:
            self._raise_failures()
        # the queue is empty and no delivery failed: every message sent so far is acknowledged
        self.delivered += len(self._pending)
        self._pending.clear()

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._producer = None
            self._admin.close()

    def abort(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            try:
                producer.purge(in_queue=True, in_flight=True, blocking=False)
                _served(producer.poll, 0)
            except (KafkaException, SystemError):
                pass
        self._pending.clear()
        self._admin.close()

    # delivery ----------------------------------------------------------------------------

    def _produce(self, message: Message, count: int) -> None:
        producer = self._producer
        while True:
            try:
                producer.produce(message.topic, message.value, message.key, partition=message.partition)
                break
            except BufferError:
                self._serve(0.05)  # the queue is full: wait for acknowledgements
                if self._needs_restart:
                    return
            except KafkaException as exc:
                err = kafka_error_of(exc)
                if err is not None and (err.fatal() or err.code() in _REPLAY_CODES):
                    self._note_exception(exc)  # this producer is done for: replace it
                    return
                # Refused before it was queued (larger than message.max.bytes, an unknown
                # partition): a failed delivery like any other, so flush and close fail too.
                self._pending.pop(next(i for i in range(len(self._pending) - 1, -1, -1) if self._pending[i] is message))
                self._note_failure(message.topic, message.partition, self.settings.describe(exc))
                self._raise_failures()
        if count & 0xFF == 0:
            self._serve(0)

    def _serve(self, timeout: float) -> None:
        try:
            _served(self._producer.poll, timeout)
        except (KafkaException, SystemError) as exc:
            self._note_exception(exc)
        if self._errors.fatal is not None:
            self._needs_restart = True

    def _note_exception(self, exc: Exception) -> None:
        if isinstance(exc, SystemError):
            # confluent-kafka raises a fatal error while serving delivery reports; it then
            # surfaces as SystemError (with the real error as cause, or none at all).
            # Either way this producer is done for: replace it.
            if not isinstance(exc.__cause__, KafkaException):
                self._fatal_text = f"the client failed while serving delivery reports ({self.settings.describe(exc)})"
                self._needs_restart = True
                return
            exc = exc.__cause__
        if not isinstance(exc, KafkaException):
            raise exc
        err = kafka_error_of(exc)
        if err is not None and (err.fatal() or err.code() in _REPLAY_CODES):
            self._fatal_text = self.settings.describe(err)
            self._needs_restart = True
            return
        raise TransportError(
            f"Kafka producer at {self.settings.bootstrap} failed: {self.settings.describe(exc)}"
        ) from None

    def _on_failure(self, generation: int, err: Optional[KafkaError], msg) -> None:
        """A failed delivery (the producer reports no others; see the module doc)."""
        if err is None or generation != self._generation:
            return  # a replaced producer's message: it is sent again by the new one
        if err.fatal() or err.code() in _REPLAY_CODES or self._errors.fatal is not None:
            self._fatal_text = self.settings.describe(err)
            self._needs_restart = True
            return
        self._note_failure(msg.topic(), msg.partition(), self.settings.describe(err))

    def _note_failure(self, topic: str, partition: int, error: str) -> None:
        """Count a message Kafka will never have; the first few are kept to name them."""
        self._failure_count += 1
        if len(self._failures) < 5:
            self._failures.append(DeliveryFailure(topic, partition, error))

    def _restart_producer(self) -> None:
        """Replace a producer that hit a fatal error and send every unconfirmed message again, in order."""
        while self._needs_restart:
            self._needs_restart = False
            fatal = self._errors.fatal
            cause = self.settings.describe(fatal) if fatal is not None else self._fatal_text
            if self.restarts >= MAX_PRODUCER_RESTARTS:
                raise TransportError(
                    f"Kafka producer at {self.settings.bootstrap} failed {self.restarts + 1} times "
                    f"with {len(self._pending)} message(s) unacknowledged: {cause}"
                )
            self.restarts += 1
            log.warning(
                "Kafka producer failed (%s); sending %d unacknowledged message(s) again with a new producer",
                cause, len(self._pending),
            )
            old = self._producer
            self._generation += 1
            try:
                old.purge(in_queue=True, in_flight=True, blocking=False)
                _served(old.poll, 0)
            except (KafkaException, SystemError):
                pass
            self._producer = self._new_producer()
            for count, message in enumerate(list(self._pending), 1):
                self._produce(message, count)
                if self._needs_restart:
                    break

    def _raise_failures(self) -> None:
        first = self._failures[0]
        more = f" (and {self._failure_count - 1} more)" if self._failure_count > 1 else ""
        raise TransportError(
            f"{self._failure_count} message(s) not delivered to Kafka at {self.settings.bootstrap}; "
            f"first: {first.topic}/{first.partition}: {first.error}{more}"
        )
