"""``kafka://[user:password@]host:port[,host:port]/TOPIC``: Kafka through confluent-kafka
(extra ``cdcwire[kafka]``).

The URI is parsed and validated without confluent-kafka installed; the client
(:mod:`.topics`, :mod:`.writer`, :mod:`.reader`) is imported only
when a writer, a reader or a topic check is made.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Optional

from ...foundation.durations import parse_duration
from ...foundation.extras import extra_required
from ...foundation.errors import SinkURIError
from ...foundation.params import Parameter, shown_value
from ...uris.sink_uri import SinkConfig
from ...contract.transport import MessageReader, MessageWriter, OffsetsCapability, Transport
from .consumer_settings import consumer_settings_problem
from .sasl import (
    MECHANISMS,
    PASSWORD_MECHANISMS,
    check_sasl,
    client_secret_problem,
    grant_type_problem,
    scopes_problem,
    token_url_problem,
)

#: The longest dial-timeout: one day, well inside librdkafka's socket.connection.setup.timeout.ms
#: (at most 2147483647 ms), so a long value is refused here, naming the parameter, not by the client.
MAX_DIAL_TIMEOUT_SECONDS = 24 * 3600.0
#: request-timeout-ms becomes librdkafka's socket.timeout.ms (10..300000) and request.timeout.ms
#: (1..900000): the narrower range, so the client never refuses it.
REQUEST_TIMEOUT_MS_RANGE = (100, 300_000)
_HOST = re.compile(r"[A-Za-z0-9._-]+|\[[0-9A-Za-z:.%_-]+\]", re.ASCII)
_PORT = re.compile(r"[0-9]{1,5}", re.ASCII)


def _duration_problem(value: str) -> Optional[str]:
    try:
        parse_duration(value)
    except ValueError as exc:
        return str(exc)
    return None


def _dial_timeout_problem(value: str) -> Optional[str]:
    try:
        seconds = parse_duration(value)
    except ValueError as exc:
        return str(exc)
    if seconds > MAX_DIAL_TIMEOUT_SECONDS:
        return f"{shown_value(value)} is longer than the limit of 24h"
    return None


log = logging.getLogger("cdcwire.kafka")

KAFKA_PARAMETERS: tuple[Parameter, ...] = (
    Parameter(
        "replication-factor", "int", 1, "replication factor of a topic cdcwire creates",
        minimum=1, maximum=32767,  # Kafka's INT16 field
    ),
    Parameter("auto-create-topic", "bool", True, "create a missing topic with partition-num partitions"),
    Parameter("kafka-client-id", "str", "cdcwire", "client.id of the producer / consumer"),
    Parameter("enable-tls", "bool", False, "connect with TLS"),
    Parameter("ca", "str", None, "path of the CA certificate (PEM) for TLS"),
    Parameter("cert", "str", None, "path of the client certificate (PEM) for TLS"),
    Parameter("key", "str", None, "path of the client key (PEM) for TLS", secret=True),
    Parameter("insecure-skip-verify", "bool", False, "do not verify the broker's certificate"),
    Parameter(
        "sasl-mechanism", "choice", None, "SASL mechanism (plain when user:password@ is in the URI)",
        choices=MECHANISMS,
    ),
    Parameter("sasl-user", "str", None, "SASL user name"),
    Parameter("sasl-password", "str", None, "SASL password", secret=True),
    # sasl-mechanism=oauthbearer: OIDC client credentials, TiCDC's names (its changefeed config's).
    Parameter("sasl-oauth-client-id", "str", None, "oauthbearer: OAuth client id (required)"),
    Parameter(
        "sasl-oauth-client-secret", "str", None,
        "oauthbearer: OAuth client secret, Base64-encoded as TiCDC takes it (required)",
        secret=True, check=client_secret_problem,
    ),
    Parameter(
        "sasl-oauth-token-url", "str", None, "oauthbearer: the identity provider's token endpoint (required)",
        check=token_url_problem,
    ),
    Parameter(
        "sasl-oauth-scopes", "str", None, "oauthbearer: scopes to ask for, comma-separated",
        check=scopes_problem,
    ),
    Parameter(
        "sasl-oauth-grant-type", "str", None, "oauthbearer: only client_credentials (the default)",
        check=grant_type_problem,
    ),
    Parameter(
        "sasl-oauth-audience", "str", None,
        "oauthbearer: TiCDC's; refused (librdkafka's token request has no audience field)",
    ),
    # sasl-mechanism=gssapi: Kerberos, TiCDC's sink-URI names; needs a librdkafka built with libsasl2.
    Parameter(
        "sasl-gssapi-auth-type", "choice", None,
        "gssapi: keytab (kinit from sasl-gssapi-keytab-path) or user (the ticket cache of an earlier kinit);"
        " default keytab when a keytab is given",
        choices=("user", "keytab"),
    ),
    Parameter("sasl-gssapi-keytab-path", "str", None, "gssapi: path of the keytab (auth-type keytab)"),
    Parameter(
        "sasl-gssapi-kerberos-config-path", "str", None,
        "gssapi: path of krb5.conf (set as KRB5_CONFIG of the process)",
    ),
    Parameter("sasl-gssapi-service-name", "str", None, "gssapi: the brokers' Kerberos service name (kafka)"),
    Parameter("sasl-gssapi-user", "str", None, "gssapi: Kerberos principal (user, or user@REALM)"),
    Parameter(
        "sasl-gssapi-password", "str", None,
        "gssapi: TiCDC's; refused (librdkafka logs in from a keytab or the ticket cache, never a password)",
        secret=True,
    ),
    Parameter("sasl-gssapi-realm", "str", None, "gssapi: Kerberos realm of sasl-gssapi-user"),
    Parameter(
        "sasl-gssapi-disable-pafxfast", "bool", False,
        "gssapi: TiCDC's; accepted with a note and not used (FAST is krb5.conf's to enable)",
    ),
    Parameter(
        "request-timeout-ms", "int", 30000, "broker request timeout (at most 300000)",
        minimum=REQUEST_TIMEOUT_MS_RANGE[0], maximum=REQUEST_TIMEOUT_MS_RANGE[1],
    ),
    Parameter(
        "dial-timeout", "str", "10s",
        "how long to wait for the brokers to answer before giving up (500ms, 10s, 1m; at most 24h)",
        check=_dial_timeout_problem,
    ),
    Parameter(
        "consumer-settings", "str", None,
        'librdkafka settings a reader\'s consumer adds, as JSON {"fetch.max.bytes": "1048576"}'
        " (the Spark source's kafka.* options come here)",
        check=consumer_settings_problem,
    ),
    # TiCDC's own sink-URI parameters that cdcwire reads and has nothing to do with: a URI
    # copied from TiCDC's documentation works as it is, with a note that says so.
    Parameter(
        "kafka-version", "str", None,
        "TiCDC's: accepted with a note and not used (librdkafka negotiates the protocol version)",
    ),
    Parameter(
        "read-timeout", "str", None,
        "TiCDC's: accepted with a note and not used (request-timeout-ms bounds a request)",
        check=_duration_problem,
    ),
    Parameter(
        "write-timeout", "str", None,
        "TiCDC's: accepted with a note and not used (request-timeout-ms bounds a request)",
        check=_duration_problem,
    ),
    Parameter(
        "required-acks", "int", -1,
        "TiCDC's: only -1 (every in-sync replica) is taken, what cdcwire always asks; 0 and 1 could"
        " lose acknowledged messages and are refused",
        minimum=-1, maximum=1,
    ),
)

#: The reference's parameters above that are read and have no effect here.
UNUSED_REFERENCE_PARAMETERS = ("kafka-version", "read-timeout", "write-timeout")


def _check_broker(hostport: str) -> None:
    """One ``host:port`` of the broker list: a DNS name, IPv4 or ``[IPv6]`` host, a port of ASCII
    digits in 1-65535 (``str.isdigit`` would pass Arabic-Indic and superscript digits)."""
    host, sep, port = hostport.rpartition(":")
    if not sep or not host:
        raise SinkURIError(f"kafka broker {shown_value(hostport)} must be host:port", "host")
    if not _HOST.fullmatch(host):
        raise SinkURIError(
            f"kafka broker {shown_value(hostport)}: host {shown_value(host)} is not a host name,"
            " an IPv4 address or a [bracketed] IPv6 address",
            "host",
        )
    if not _PORT.fullmatch(port) or not 0 < int(port) < 65536:
        raise SinkURIError(
            f"kafka broker {shown_value(hostport)}: the port must be a number from 1 to 65535"
            f" in ASCII digits, got {shown_value(port)}",
            "port",
        )


class KafkaTransport(Transport):
    scheme = "kafka"
    parameters = KAFKA_PARAMETERS

    def validate(self, config: SinkConfig) -> None:
        for hostport in config.location.split(","):
            _check_broker(hostport)
        params = config.params
        if params.get("required-acks") != -1:
            raise SinkURIError(
                f"parameter 'required-acks': cdcwire delivers with acks=all (-1) and an idempotent"
                f" producer; required-acks={params.get('required-acks')} could lose messages the broker"
                " acknowledged, so it is refused",
                "required-acks",
            )
        for name in UNUSED_REFERENCE_PARAMETERS:
            if name in config.given:
                log.info("kafka://: parameter %r is TiCDC's and has no effect here", name)
        check_sasl(config)
        password_login = params.get("sasl-mechanism") in PASSWORD_MECHANISMS
        if password_login and not params.get("sasl-user") and not config.username:
            raise SinkURIError("sasl-mechanism needs sasl-user (or user:password@ in the URI)", "sasl-user")
        if (params.get("sasl-user") or params.get("sasl-password")) and not params.get("sasl-mechanism"):
            raise SinkURIError("sasl-user/sasl-password need sasl-mechanism", "sasl-mechanism")
        if params.get("sasl-user") and params.get("sasl-password") is None and config.password is None:
            raise SinkURIError(
                "sasl-user needs sasl-password (or user:password@ in the URI)", "sasl-password"
            )
        if config.username and params.get("sasl-password") is None and config.password is None:
            raise SinkURIError("the URI names a user but no password (user:password@host)", "userinfo")
        if bool(params.get("cert")) != bool(params.get("key")):
            missing = "cert" if params.get("key") else "key"
            raise SinkURIError("a TLS client certificate needs both cert and key", missing)

    def partition_count(self, config: SinkConfig, topic: str) -> Optional[int]:
        """The real partition count of ``topic``, or None when it does not exist."""
        with _client_needed():
            from .topics import topic_partition_count

        return topic_partition_count(config, topic)

    def prepare_topic(self, config: SinkConfig, topic: str) -> int:
        """Create ``topic`` if missing and check ``partition-num`` against it; the partition count to use.

        A ``partition-num`` larger than an existing topic's real count raises SinkURIError;
        without ``partition-num`` in the URI an existing topic's real count is used.
        """
        with _client_needed():
            from .topics import ensure_topic

        return ensure_topic(config, topic)

    def writer(self, config: SinkConfig) -> MessageWriter:
        with _client_needed():
            from .writer import KafkaWriter

        return KafkaWriter(config)

    def reader(self, config: SinkConfig) -> MessageReader:
        with _client_needed():
            from .reader import KafkaReader

        return KafkaReader(config)

    def offsets(self, config: SinkConfig, group: Optional[str] = None) -> Optional[OffsetsCapability]:
        """Consumer groups and time look-ups (:class:`.offsets.KafkaOffsets`)."""
        with _client_needed():
            from .offsets import KafkaOffsets

        return KafkaOffsets(config, group)


def _client_needed() -> contextlib.AbstractContextManager[None]:
    return extra_required("kafka", "a kafka:// sink or source")
