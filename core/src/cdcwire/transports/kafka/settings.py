"""What a ``kafka://`` URI means to librdkafka, and how the client's errors are told.

The settings are the one object that knows the URI's secrets (SASL password, OAuth client
secret, key file), so any text built from a client error (exception messages, the ``error_cb``
log, librdkafka's own log lines) goes through :meth:`KafkaSettings.describe`, which
scrubs them. Clients are made through :meth:`KafkaSettings.open_client`, so a setting
librdkafka refuses (a TLS file it cannot load) is named as the URI parameter it came from.
"""

from __future__ import annotations

import base64
import logging
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, TypeVar
from urllib.parse import urlsplit

from confluent_kafka import KafkaError, KafkaException

from ...foundation.durations import parse_duration
from ...foundation.errors import CdcwireError, SinkURIError, TransportError
from ...foundation.redact import MASK
from .consumer_settings import consumer_settings
from .sasl import (
    decoded_client_secret,
    gssapi_auth_type,
    gssapi_missing_text,
    kerberos_principal,
    scopes,
)

T = TypeVar("T")

log = logging.getLogger("cdcwire.kafka")
#: librdkafka's own log lines (connection failures, retries) go here instead of stderr.
librdkafka_log = logging.getLogger("cdcwire.kafka.librdkafka")
librdkafka_log.addHandler(logging.NullHandler())  # the application's handlers decide; never raw stderr

#: URI parameter -> the librdkafka setting that takes its file path.
TLS_FILE_SETTINGS = {"ca": "ssl.ca.location", "cert": "ssl.certificate.location", "key": "ssl.key.location"}
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
    #: sasl-gssapi-kerberos-config-path: librdkafka's Kerberos reads krb5.conf from KRB5_CONFIG.
    kerberos_config: Optional[str] = None
    #: consumer-settings: what a reader's consumer adds to its own settings (:mod:`.consumer_settings`).
    consumer: dict[str, str] = field(default_factory=dict)

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
        secrets: list[Optional[str]] = [password, config.password, params.get("sasl-password")]
        secrets.append(params.get("key"))
        kerberos_config = None
        if mechanism == "oauthbearer":
            security.update(_oauthbearer(params, secrets))
        elif mechanism == "gssapi":
            security.update(_gssapi(params))
            kerberos_config = params.get("sasl-gssapi-kerberos-config-path") or None
            secrets.append(params.get("sasl-gssapi-password"))
        elif mechanism:
            security.update(
                {"sasl.mechanism": mechanism.upper(), "sasl.username": user or "", "sasl.password": password or ""}
            )
        for name, setting in TLS_FILE_SETTINGS.items():
            if params.get(name):
                security[setting] = params[name]
        if params.get("insecure-skip-verify"):
            security["enable.ssl.certificate.verification"] = False
            security["ssl.endpoint.identification.algorithm"] = "none"
        return cls(
            bootstrap=config.location,
            client_id=params.get("kafka-client-id") or "cdcwire",
            dial_timeout=parse_duration(params.get("dial-timeout") or "10s"),
            request_timeout_ms=int(params.get("request-timeout-ms") or 30000),
            security=security,
            # Longest first: a secret holding another is masked whole.
            secrets=tuple(sorted({s for s in secrets if s}, key=len, reverse=True)),
            kerberos_config=kerberos_config,
            consumer=consumer_settings(params.get("consumer-settings")),
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
            "logger": ScrubbedLog(self.describe),
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

    def describe(self, error: object) -> str:
        """The client's own words for ``error`` (a KafkaException, KafkaError or anything else), scrubbed.

        The one way a client error becomes text: every message and log line built
        from one goes through here, so no secret of the URI can slip into it.
        """
        if isinstance(error, KafkaException) and error.args and isinstance(error.args[0], KafkaError):
            error = error.args[0]
        return self.scrub(error.str() if isinstance(error, KafkaError) else error)

    def client_errors(self) -> "ClientErrors":
        """A fresh ``error_cb`` for one client, telling errors in this URI's scrubbed words."""
        return ClientErrors(self.describe)

    def open_client(self, kind: Callable[[dict[str, Any]], T], errors: "ClientErrors", **extra: Any) -> T:
        """A ``kind`` client (AdminClient, Producer, Consumer) with :meth:`client_config`.

        librdkafka loads the TLS files while the client is made; a file it cannot use
        becomes a SinkURIError naming the URI parameter (``ca``, ``cert``, ``key``), any
        other refused setting a TransportError, both scrubbed: never a bare KafkaException.
        """
        self._use_kerberos_config()
        try:
            return kind(self.client_config(errors, **extra))
        except KafkaException as exc:
            raise self._refused(exc) from None

    def _use_kerberos_config(self) -> None:
        """KRB5_CONFIG of this process set to sasl-gssapi-kerberos-config-path: the Kerberos library
        and librdkafka's kinit read it there. One process has one, so another value already set is refused."""
        if self.kerberos_config is None:
            return
        current = os.environ.get("KRB5_CONFIG")
        if current not in (None, "", self.kerberos_config):
            raise SinkURIError(
                f"sasl-gssapi-kerberos-config-path={self.kerberos_config} cannot be used: this process"
                f" already reads Kerberos settings from KRB5_CONFIG={current},"
                " and Kerberos takes one per process",
                "sasl-gssapi-kerberos-config-path",
            )
        os.environ["KRB5_CONFIG"] = self.kerberos_config

    def _refused(self, exc: KafkaException) -> CdcwireError:
        text = self.describe(exc)  # e.g. "Failed to create producer: ssl.ca.location failed: error:..."
        if "No provider for SASL mechanism GSSAPI" in text:  # a client made where the URI was not checked
            return SinkURIError(gssapi_missing_text(text), "sasl-mechanism")
        for name, setting in TLS_FILE_SETTINGS.items():
            path = self.security.get(setting)
            if path and f"{setting} failed" in text:
                if not os.path.exists(path):
                    why = "no such file"
                elif not os.access(path, os.R_OK):
                    why = "not readable"
                else:
                    why = "the TLS library refused it"
                return SinkURIError(self.scrub(f"{name}={path} cannot be used: {why} ({text})"), name)
        return TransportError(f"cannot set up a Kafka client for {self.bootstrap}: {text}")

    def unreachable(self, exc: object, errors: "ClientErrors") -> TransportError:
        return TransportError(
            f"cannot reach Kafka at {self.bootstrap} within {self.dial_timeout:g}s "
            f"(dial-timeout): {self.describe(exc)}{errors.last_words()}"
        )


def _oauthbearer(params: Any, secrets: list[Optional[str]]) -> dict[str, Any]:
    """librdkafka's OIDC login (it asks the token endpoint itself and refreshes the token) of
    TiCDC's sasl-oauth-* parameters; ``secrets`` gets every form of the client secret."""
    client_id, raw_secret = params["sasl-oauth-client-id"], params["sasl-oauth-client-secret"]
    secret = decoded_client_secret(raw_secret)
    token_url = params["sasl-oauth-token-url"]
    # The Basic credentials librdkafka sends the token endpoint are the secret too.
    basic = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    secrets.extend([raw_secret, secret, basic, urlsplit(token_url).password])
    settings = {
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.client.id": client_id,
        "sasl.oauthbearer.client.secret": secret,
        "sasl.oauthbearer.token.endpoint.url": token_url,
    }
    scope = scopes(params.get("sasl-oauth-scopes"))
    if scope:
        settings["sasl.oauthbearer.scope"] = scope
    return settings


def _gssapi(params: Any) -> dict[str, Any]:
    """librdkafka's Kerberos login of TiCDC's sasl-gssapi-* parameters: kinit from the keytab
    (librdkafka's default sasl.kerberos.kinit.cmd, renewed every minute), or the ticket cache
    of an earlier kinit as it is (no kinit: min.time.before.relogin 0)."""
    settings: dict[str, Any] = {"sasl.mechanism": "GSSAPI"}
    if params.get("sasl-gssapi-service-name"):
        settings["sasl.kerberos.service.name"] = params["sasl-gssapi-service-name"]
    principal = kerberos_principal(params)
    if principal:
        settings["sasl.kerberos.principal"] = principal
    if gssapi_auth_type(params) == "keytab":
        settings["sasl.kerberos.keytab"] = params["sasl-gssapi-keytab-path"]
    else:
        settings["sasl.kerberos.min.time.before.relogin"] = 0
    return settings


class ScrubbedLog:
    """What librdkafka hands its ``logger``, passed on to :data:`librdkafka_log` scrubbed.

    Its lines are client text like any error (a TLS failure can name the key file),
    so they go through the settings' :meth:`KafkaSettings.describe` too.
    """

    __slots__ = ("describe",)

    def __init__(self, describe: Callable[[object], str]) -> None:
        self.describe = describe

    def log(self, level: int, fmt: str, *args: object) -> None:
        if librdkafka_log.isEnabledFor(level):
            librdkafka_log.log(level, "%s", self.describe(fmt % args))


class ClientErrors:
    """The ``error_cb`` of one client: keeps the latest telling error (to explain a failure) and a fatal one.

    librdkafka follows each failed connection with a summary "N/N brokers are down";
    that summary never replaces the cause before it (refused, SASL authentication, TLS),
    or which one a failure message names would depend on timing. ``describe`` is the
    settings' scrubbing :meth:`KafkaSettings.describe`: errors are kept as they came
    and only told through it.
    """

    __slots__ = ("describe", "fatal", "last")

    def __init__(self, describe: Callable[[object], str]) -> None:
        self.describe = describe
        self.last: Optional[KafkaError] = None
        self.fatal: Optional[KafkaError] = None

    def __call__(self, err: KafkaError) -> None:
        if err.code() != KafkaError._ALL_BROKERS_DOWN or self.last is None:
            self.last = err
        if err.fatal():
            self.fatal = err
        log.debug("kafka client error: %s", self.describe(err))

    def last_words(self) -> str:
        """`` (last error: ...)`` to end a failure message with, or "" when the client reported none."""
        return f" (last error: {self.describe(self.last)})" if self.last is not None else ""


def kafka_error_of(exc: KafkaException) -> Optional[KafkaError]:
    """The KafkaError a KafkaException carries, to look at its code."""
    return exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
