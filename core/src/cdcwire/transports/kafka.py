"""``kafka://host:port[,host:port]/TOPIC``: Kafka through confluent-kafka (extra ``cdcwire[kafka]``).

The URI is parsed and validated without confluent-kafka installed; the client
is imported only when a writer or reader is made.
"""

from __future__ import annotations

from typing import Optional

from ..errors import SinkURIError
from ..params import Parameter
from ..transport import MessageReader, MessageWriter, Transport

KAFKA_PARAMETERS: tuple[Parameter, ...] = (
    Parameter("replication-factor", "int", 1, "replication factor of a topic cdcwire creates", minimum=1),
    Parameter("kafka-client-id", "str", "cdcwire", "client.id of the producer / consumer"),
    Parameter("enable-tls", "bool", False, "connect with TLS"),
    Parameter("ca", "str", None, "path of the CA certificate (PEM) for TLS"),
    Parameter("cert", "str", None, "path of the client certificate (PEM) for TLS"),
    Parameter("key", "str", None, "path of the client key (PEM) for TLS", secret=True),
    Parameter("insecure-skip-verify", "bool", False, "do not verify the broker's certificate"),
    Parameter(
        "sasl-mechanism", "choice", None, "SASL mechanism",
        choices=("plain", "scram-sha-256", "scram-sha-512"),
    ),
    Parameter("sasl-user", "str", None, "SASL user name"),
    Parameter("sasl-password", "str", None, "SASL password", secret=True),
    Parameter("request-timeout-ms", "int", 30000, "broker request timeout", minimum=100),
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

    def partition_count(self, config, topic: str) -> Optional[int]:  # type: ignore[override]
        from .kafka_client import topic_partition_count

        return topic_partition_count(config, topic)

    def writer(self, config) -> MessageWriter:  # type: ignore[override]
        from .kafka_client import KafkaWriter

        return KafkaWriter(config)

    def reader(self, config) -> MessageReader:  # type: ignore[override]
        from .kafka_client import KafkaReader

        return KafkaReader(config)
