"""``kafka://[user:password@]host:port[,host:port]/TOPIC``: Kafka through confluent-kafka
(extra ``cdcwire[kafka]``).

The URI is parsed and validated without confluent-kafka installed; the client
(:mod:`.kafka_topics`, :mod:`.kafka_writer`, :mod:`.kafka_reader`) is imported only
when a writer, a reader or a topic check is made.
"""

from __future__ import annotations

import re
from typing import Optional

from ..errors import SinkURIError
from ..params import Parameter
from ..transport import MessageReader, MessageWriter, Transport

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_DURATION_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """Seconds of a Go-style duration (``500ms``, ``10s``, ``1m30s``), as TiCDC URIs write them."""
    compact = text.strip().replace(" ", "")
    pos, total = 0, 0.0
    while pos < len(compact):
        m = _DURATION_PART.match(compact, pos)
        if m is None:
            raise ValueError(f"{text!r} is not a duration such as 500ms, 10s or 1m30s")
        total += float(m.group(1)) * _DURATION_UNIT_SECONDS[m.group(2)]
        pos = m.end()
    if pos == 0 or total <= 0:
        raise ValueError(f"{text!r} is not a positive duration such as 500ms, 10s or 1m30s")
    return total


def _duration_problem(value: str) -> Optional[str]:
    try:
        parse_duration(value)
    except ValueError as exc:
        return str(exc)
    return None


KAFKA_PARAMETERS: tuple[Parameter, ...] = (
    Parameter("replication-factor", "int", 1, "replication factor of a topic cdcwire creates", minimum=1),
    Parameter("auto-create-topic", "bool", True, "create a missing topic with partition-num partitions"),
    Parameter("kafka-client-id", "str", "cdcwire", "client.id of the producer / consumer"),
    Parameter("enable-tls", "bool", False, "connect with TLS"),
    Parameter("ca", "str", None, "path of the CA certificate (PEM) for TLS"),
    Parameter("cert", "str", None, "path of the client certificate (PEM) for TLS"),
    Parameter("key", "str", None, "path of the client key (PEM) for TLS", secret=True),
    Parameter("insecure-skip-verify", "bool", False, "do not verify the broker's certificate"),
    Parameter(
        "sasl-mechanism", "choice", None, "SASL mechanism (plain when user:password@ is in the URI)",
        choices=("plain", "scram-sha-256", "scram-sha-512"),
    ),
    Parameter("sasl-user", "str", None, "SASL user name"),
    Parameter("sasl-password", "str", None, "SASL password", secret=True),
    Parameter("request-timeout-ms", "int", 30000, "broker request timeout", minimum=100),
    Parameter(
        "dial-timeout", "str", "10s",
        "how long to wait for the brokers to answer before giving up (500ms, 10s, 1m)",
        check=_duration_problem,
    ),
)


class KafkaTransport(Transport):
    scheme = "kafka"
    parameters = KAFKA_PARAMETERS

    def validate(self, config) -> None:  # type: ignore[override]
        for hostport in config.location.split(","):
            host, sep, port = hostport.rpartition(":")
            if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
                raise SinkURIError(f"kafka broker {hostport!r} must be host:port", "host")
        params = config.params
        if params.get("sasl-mechanism") and not params.get("sasl-user") and not config.username:
            raise SinkURIError("sasl-mechanism needs sasl-user (or user:password@ in the URI)", "sasl-user")
        if (params.get("sasl-user") or params.get("sasl-password")) and not params.get("sasl-mechanism"):
            raise SinkURIError("sasl-user/sasl-password need sasl-mechanism", "sasl-mechanism")
        if params.get("sasl-user") and params.get("sasl-password") is None and config.password is None:
            raise SinkURIError("sasl-user needs sasl-password (or user:password@ in the URI)", "sasl-password")
        if config.username and params.get("sasl-password") is None and config.password is None:
            raise SinkURIError("the URI names a user but no password (user:password@host)", "userinfo")
        if bool(params.get("cert")) != bool(params.get("key")):
            missing = "cert" if params.get("key") else "key"
            raise SinkURIError("a TLS client certificate needs both cert and key", missing)

    def partition_count(self, config, topic: str) -> Optional[int]:  # type: ignore[override]
        """The real partition count of ``topic``, or None when it does not exist."""
        from .kafka_topics import topic_partition_count

        return topic_partition_count(config, topic)

    def prepare_topic(self, config, topic: str) -> int:  # type: ignore[override]
        """Create ``topic`` if missing and check ``partition-num`` against it; the partition count to use.

        A ``partition-num`` larger than an existing topic's real count raises SinkURIError;
        without ``partition-num`` in the URI an existing topic's real count is used.
        """
        from .kafka_topics import ensure_topic

        return ensure_topic(config, topic)

    def writer(self, config) -> MessageWriter:  # type: ignore[override]
        from .kafka_writer import KafkaWriter

        return KafkaWriter(config)

    def reader(self, config) -> MessageReader:  # type: ignore[override]
        from .kafka_reader import KafkaReader

        return KafkaReader(config)
