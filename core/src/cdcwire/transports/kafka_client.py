"""The Kafka client side of ``kafka://``: topic checks, a writer that loses nothing, a bounded reader.

This is the only module that imports confluent-kafka, so ``kafka://`` URIs parse
without it. Three ideas, one per class:

* :class:`KafkaSettings` turns a SinkConfig into librdkafka settings and knows the
  secrets in them, so every error text is scrubbed before it leaves this module.
* :class:`TopicAdmin` answers "how many partitions" and creates missing topics;
  :func:`ensure_topic` is the up-front check a pipeline calls once per topic.
* :class:`KafkaWriter` / :class:`KafkaReader` implement the transport ABCs.

Why the writer keeps its own record of unacknowledged messages: an idempotent
producer turns a broker that forgot its sequence numbers (a restart that lost
state) into a *fatal* error. The writer then starts a new producer and sends every
message not yet acknowledged again, in the original order, so the job completes
with nothing lost and per-partition order kept (messages the broker had written
but not acknowledged appear twice).
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from ..errors import SinkURIError, TransportError
from ..message import Message
from ..redact import MASK
from ..transport import MessageReader, MessageWriter
from .kafka import parse_duration

log = logging.getLogger("cdcwire.kafka")
#: librdkafka's own log lines (connection failures, retries) go here instead of stderr.
librdkafka_log = logging.getLogger("cdcwire.kafka.librdkafka")
librdkafka_log.addHandler(logging.NullHandler())  # the application's handlers decide; never raw stderr

#: How long a message may wait for acknowledgement (retries included) before it fails.
#: Long enough to ride out a broker restart.
MESSAGE_TIMEOUT_MS = 300_000
#: Bounds of librdkafka's in-memory queue: memory stays flat however much is written.
QUEUE_MAX_MESSAGES = 100_000
QUEUE_MAX_KBYTES = 64 * 1024
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
_SECURITY_PROTOCOLS = {
    (False, False): "PLAINTEXT",
    (True, False): "SSL",
    (False, True): "SASL_PLAINTEXT",
    (True, True): "SASL_SSL",
}


@dataclass(frozen=True, slots=True)
class KafkaSettings:
    """librdkafka settings of one sink/source URI; the secrets never show in its repr."""

    bootstrap: str
    client_id: str
    dial_timeout: float
    request_timeout_ms: int
    security: dict[str, Any] = field(repr=False)
    secrets: tuple[str, ...] = field(repr=False)

    @classmethod
    def of(cls, config) -> "KafkaSettings":
        params = config.params
        mechanism = params.get("sasl-mechanism") or ("plain" if config.username else None)
        user = params.get("sasl-user") or config.username
        password = params.get("sasl-password")
        if password is None:
            password = config.password
        tls = bool(params.get("enable-tls") or params.get("ca") or params.get("cert") or params.get("key"))
        security: dict[str, Any] = {"security.protocol": _SECURITY_PROTOCOLS[(tls, bool(mechanism))]}
        if mechanism:
            security.update(
                {"sasl.mechanism": mechanism.upper(), "sasl.username": user or "", "sasl.password": password or ""}
            )
        for name, setting in (("ca", "ssl.ca.location"), ("cert", "ssl.certificate.location"), ("key", "ssl.key.location")):
            if params.get(name):
                security[setting] = params[name]
        if params.get("insecure-skip-verify"):
            security["enable.ssl.certificate.verification"] = False
            security["ssl.endpoint.identification.algorithm"] = "none"
        secrets = tuple(s for s in (password, config.password, params.get("sasl-password"), params.get("key")) if s)
        return cls(
            bootstrap=config.location,
            client_id=params.get("kafka-client-id") or "cdcwire",
            dial_timeout=parse_duration(params.get("dial-timeout") or "10s"),
            request_timeout_ms=int(params.get("request-timeout-ms") or 30000),
            security=security,
            secrets=secrets,
        )

    def client_config(self, errors: "ClientErrors", **extra: Any) -> dict[str, Any]:
        """Settings shared by producer, consumer and admin client, plus ``extra``."""
        conf: dict[str, Any] = {
            "bootstrap.servers": self.bootstrap,
            "client.id": self.client_id,
            "socket.connection.setup.timeout.ms": max(1000, int(self.dial_timeout * 1000)),
            "socket.timeout.ms": self.request_timeout_ms,
            "reconnect.backoff.ms": 50,
            "reconnect.backoff.max.ms": 1000,
            "log.connection.close": False,
            # A metadata request must never create a topic behind partition-num's back.
            "allow.auto.create.topics": False,
            "error_cb": errors,
            "logger": librdkafka_log,
            **self.security,
        }
        conf.update(extra)
        return conf

    def scrub(self, text: object) -> str:
        """``text`` with every secret of this URI masked."""
        out = str(text)
        for secret in self.secrets:
            out = out.replace(secret, MASK)
        return out

    def unreachable(self, exc: object, errors: "ClientErrors") -> TransportError:
        last = f" (last error: {self.scrub(errors.last.str())})" if errors.last is not None else ""
        return TransportError(
            f"cannot reach Kafka at {self.bootstrap} within {self.dial_timeout:g}s "
            f"(dial-timeout): {self.scrub(_error_text(exc))}{last}"
        )


class ClientErrors:
    """The ``error_cb`` of one client: keeps the latest telling error (to explain a failure) and a fatal one.

    librdkafka follows each failed connection with a summary "N/N brokers are down";
    that summary never replaces the cause before it (refused, SASL authentication, TLS),
    or which one a failure message names would depend on timing.
    """

    __slots__ = ("last", "fatal")

    def __init__(self) -> None:
        self.last: Optional[KafkaError] = None
        self.fatal: Optional[KafkaError] = None

    def __call__(self, err: KafkaError) -> None:
        if err.code() != KafkaError._ALL_BROKERS_DOWN or self.last is None:
            self.last = err
        if err.fatal():
            self.fatal = err
        log.debug("kafka client error: %s", err.str())


def _error_text(exc: object) -> str:
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return exc.args[0].str()
    if isinstance(exc, KafkaError):
        return exc.str()
    return str(exc)


def _kafka_error(exc: KafkaException) -> Optional[KafkaError]:
    return exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None


# --- topics --------------------------------------------------------------------------------


class TopicAdmin:
    """Partition counts and topic creation through one AdminClient."""

    def __init__(self, settings: KafkaSettings) -> None:
        self.settings = settings
        self._errors = ClientErrors()
        self._admin = AdminClient(settings.client_config(self._errors))

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
                raise TransportError(f"cannot describe topic {topic!r} at {self.settings.bootstrap}: {err.str()}")
            if time.monotonic() > deadline:
                why = err.str() if err is not None else "no partitions yet"
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
            err = _kafka_error(exc)
            code = err.code() if err is not None else None
            if code == KafkaError.TOPIC_ALREADY_EXISTS:
                return False
            if code == KafkaError.INVALID_REPLICATION_FACTOR:
                raise SinkURIError(
                    f"replication-factor={replication_factor} cannot be met for topic {topic!r}: {_error_text(exc)}",
                    "replication-factor",
                ) from None
            if code == KafkaError.INVALID_PARTITIONS:
                raise SinkURIError(
                    f"partition-num={partitions} is refused for topic {topic!r}: {_error_text(exc)}", "partition-num"
                ) from None
            if code in (KafkaError._TRANSPORT, KafkaError._TIMED_OUT):
                raise self.settings.unreachable(exc, self._errors) from None
            raise TransportError(f"cannot create topic {topic!r} at {self.settings.bootstrap}: {_error_text(exc)}") from None
        except TimeoutError:
            raise TransportError(
                f"creating topic {topic!r} at {self.settings.bootstrap} got no answer within {self.settings.dial_timeout:g}s"
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


# --- writing -------------------------------------------------------------------------------


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
        compression = config.get("compression") or "none"
        max_message = int(config.get("max-message-bytes") or 1_000_000)
        message_max_bytes = min(1_000_000_000, max(1_000_000, max_message + 1024))
        self._producer_extra = {
            "enable.idempotence": True,
            "acks": "all",
            "compression.type": compression,
            "linger.ms": 5,
            "message.timeout.ms": MESSAGE_TIMEOUT_MS,
            "request.timeout.ms": self.settings.request_timeout_ms,
            "retry.backoff.ms": 100,
            "retry.backoff.max.ms": 1000,
            "message.max.bytes": message_max_bytes,
            "queue.buffering.max.messages": QUEUE_MAX_MESSAGES,
            "queue.buffering.max.kbytes": max(QUEUE_MAX_KBYTES, 2 * message_max_bytes // 1024),
        }
        self._admin = TopicAdmin(self.settings)
        self._admin.check_reachable()
        self._partition_counts: dict[str, int] = {}
        self._pending: dict[int, Message] = {}
        self._next_seq = 0
        self._generation = 0
        self.restarts = 0
        self._needs_restart = False
        self._failures: list[DeliveryFailure] = []
        self._failure_count = 0
        self._fatal_text = "fatal producer error"
        #: Messages acknowledged by the brokers so far; ``restarts``: producers replaced after a fatal error.
        self.delivered = 0
        self._errors = ClientErrors()
        self._producer: Optional[Producer] = self._new_producer()

    def __repr__(self) -> str:
        return f"KafkaWriter({self.settings.bootstrap}, pending={len(self._pending)}, delivered={self.delivered})"

    def _new_producer(self) -> Producer:
        self._errors = ClientErrors()
        return Producer(self.settings.client_config(self._errors, **self._producer_extra))

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
        seq = self._next_seq
        self._next_seq = seq + 1
        self._pending[seq] = message
        self._produce(seq, message)
        if self._needs_restart:
            self._restart_producer()

    def flush(self) -> None:
        if self._producer is None:
            return
        deadline = time.monotonic() + MESSAGE_TIMEOUT_MS / 1000 + 30
        while True:
            if self._needs_restart:
                self._restart_producer()
                deadline = time.monotonic() + MESSAGE_TIMEOUT_MS / 1000 + 30
            try:
                left = self._producer.flush(0.5)
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
        if self._pending:
            raise TransportError(f"{len(self._pending)} message(s) got no delivery report from Kafka")

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
                producer.poll(0)
            except KafkaException:
                pass
        self._pending.clear()
        self._admin.close()

    # delivery ----------------------------------------------------------------------------

    def _produce(self, seq: int, message: Message) -> None:
        on_delivery = functools.partial(self._on_delivery, self._generation, seq)
        producer = self._producer
        while True:
            try:
                producer.produce(
                    message.topic, message.value, message.key, partition=message.partition, on_delivery=on_delivery
                )
                break
            except BufferError:
                self._serve(0.05)  # the queue is full: wait for acknowledgements
                if self._needs_restart:
                    return
            except KafkaException as exc:
                self._note_exception(exc)
                if self._needs_restart:
                    return
                raise TransportError(
                    f"cannot send to {message.topic}/{message.partition}: {self.settings.scrub(_error_text(exc))}"
                ) from None
        if seq & 0xFF == 0:
            self._serve(0)

    def _serve(self, timeout: float) -> None:
        try:
            self._producer.poll(timeout)
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
                self._fatal_text = f"the client failed while serving delivery reports ({exc})"
                self._needs_restart = True
                return
            exc = exc.__cause__
        if not isinstance(exc, KafkaException):
            raise exc
        err = _kafka_error(exc)
        if err is not None and (err.fatal() or err.code() in _REPLAY_CODES):
            self._fatal_text = err.str()
            self._needs_restart = True
            return
        raise TransportError(
            f"Kafka producer at {self.settings.bootstrap} failed: {self.settings.scrub(_error_text(exc))}"
        ) from None

    def _on_delivery(self, generation: int, seq: int, err: Optional[KafkaError], msg) -> None:
        if err is None:
            if self._pending.pop(seq, None) is not None:
                self.delivered += 1
            return
        if generation != self._generation or seq not in self._pending:
            return  # a replaced producer's message: it is sent again by the new one
        if err.fatal() or err.code() in _REPLAY_CODES or self._errors.fatal is not None:
            self._fatal_text = err.str()
            self._needs_restart = True
            return
        self._pending.pop(seq, None)
        self._failure_count += 1
        if len(self._failures) < 5:
            self._failures.append(DeliveryFailure(msg.topic(), msg.partition(), self.settings.scrub(err.str())))

    def _restart_producer(self) -> None:
        """Replace a producer that hit a fatal error and send every unacknowledged message again, in order."""
        while self._needs_restart:
            self._needs_restart = False
            cause = self._errors.fatal.str() if self._errors.fatal is not None else self._fatal_text
            if self.restarts >= MAX_PRODUCER_RESTARTS:
                raise TransportError(
                    f"Kafka producer at {self.settings.bootstrap} failed {self.restarts + 1} times "
                    f"with {len(self._pending)} message(s) unacknowledged: {self.settings.scrub(cause)}"
                )
            self.restarts += 1
            log.warning(
                "Kafka producer failed (%s); sending %d unacknowledged message(s) again with a new producer",
                self.settings.scrub(cause), len(self._pending),
            )
            old = self._producer
            self._generation += 1
            try:
                old.purge(in_queue=True, in_flight=True, blocking=False)
                old.poll(0)
            except KafkaException:
                pass
            self._producer = self._new_producer()
            for seq, message in list(self._pending.items()):
                self._produce(seq, message)
                if self._needs_restart:
                    break

    def _raise_failures(self) -> None:
        first = self._failures[0]
        more = f" (and {self._failure_count - 1} more)" if self._failure_count > 1 else ""
        raise TransportError(
            f"{self._failure_count} message(s) not delivered to Kafka at {self.settings.bootstrap}; "
            f"first: {first.topic}/{first.partition}: {first.error}{more}"
        )


# --- reading -------------------------------------------------------------------------------


class KafkaReader(MessageReader):
    """Bounded reads: each partition from an offset to its high watermark at the call.

    Partitions are assigned directly; no consumer group offsets are committed.
    """

    def __init__(self, config) -> None:
        self.settings = KafkaSettings.of(config)
        self._errors = ClientErrors()
        self._consumer: Optional[Consumer] = Consumer(
            self.settings.client_config(
                self._errors,
                **{
                    "group.id": f"{self.settings.client_id}-reader",
                    "enable.auto.commit": False,
                    "enable.auto.offset.store": False,
                    "enable.partition.eof": True,
                    "auto.offset.reset": "error",
                    "fetch.wait.max.ms": 100,
                },
            )
        )
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
            raise TransportError(f"cannot describe topic {topic!r} at {self.settings.bootstrap}: {meta.error.str()}")
        return sorted(meta.partitions)

    def watermarks(self, topic: str, partition: int) -> tuple[int, int]:
        """(low, high): the first offset still held and the offset the next message will get."""
        try:
            return self._open().get_watermark_offsets(
                TopicPartition(topic, partition), timeout=self.settings.dial_timeout
            )
        except KafkaException as exc:
            err = _kafka_error(exc)
            if err is not None and err.code() in (KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_PARTITION):
                raise TransportError(f"partition {topic}/{partition} does not exist at {self.settings.bootstrap}") from None
            raise self.settings.unreachable(exc, self._errors) from None

    def read(
        self, topic: str, partition: int, start: Optional[int] = 0, end: Optional[int] = None
    ) -> Iterator[Message]:
        """Messages with offsets in [start, end); ``start`` None = earliest held, ``end`` None = high
        watermark now. ``end`` beyond the high watermark is cut to it: a read never waits for new data."""
        low, high = self.watermarks(topic, partition)  # now, not at the first next()
        stop = high if end is None else min(end, high)
        begin = low if start is None else max(start, low)
        return self._messages(topic, partition, begin, stop)

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
                        last = f" (last error: {self._errors.last.str()})" if self._errors.last is not None else ""
                        raise TransportError(
                            f"no data from Kafka at {self.settings.bootstrap} for {topic}/{partition} "
                            f"at offset {next_offset} within {idle_limit:g}s{last}"
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
                            f"{self.settings.scrub(err.str())}"
                        )
                    offset = m.offset()
                    if offset >= stop:
                        next_offset = stop
                        break
                    yield Message(topic, partition, m.key(), m.value(), offset)
                    next_offset = offset + 1
        finally:
            if self._consumer is not None:
                self._consumer.unassign()

    def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        if consumer is not None:
            consumer.close()
