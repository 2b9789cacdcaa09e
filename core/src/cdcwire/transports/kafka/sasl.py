"""Kafka logins without a password: SASL OAUTHBEARER (OIDC client credentials) and GSSAPI (Kerberos).

TiCDC takes them under these parameter names (``sasl-oauth-*`` in its changefeed config,
``sasl-gssapi-*`` in its sink URI); cdcwire has only the URI, so both families are URI
parameters here, with TiCDC's meanings: the OAuth client secret is Base64 as TiCDC reads it.
The rules of their values live here, apart from any transport: the kafka transport checks a
URI with them and its client settings read them back, and neither imports the other.

What librdkafka cannot do is refused with the reason and what to use instead:

* ``sasl-oauth-audience``: librdkafka's token request carries only grant_type and scope.
* ``sasl-oauth-grant-type`` other than ``client_credentials``: the only grant TiCDC's
  parameters can feed (jwt-bearer needs a signing key TiCDC has no parameter for).
* ``sasl-gssapi-password`` (TiCDC's ``sasl-gssapi-auth-type=user`` login): librdkafka logs in
  to Kerberos from a keytab or from the ticket cache, never with a password. Without a
  password, ``auth-type=user`` uses the ticket cache a ``kinit`` made beforehand.

``sasl-gssapi-disable-pafxfast`` is taken with a note: it turns off FAST armoring in TiCDC's
pure-Go Kerberos; librdkafka's system Kerberos uses FAST only when krb5.conf asks for it.
"""

from __future__ import annotations

import base64
import binascii
import functools
import logging
import os
import re
from typing import TYPE_CHECKING, Optional
from urllib.parse import urlsplit

from ...foundation.errors import SinkURIError
from ...foundation.redact import redact_url

if TYPE_CHECKING:
    from ...uris.sink_uri import SinkConfig

log = logging.getLogger("cdcwire.kafka")

#: The mechanisms that log in with a user name and a password.
PASSWORD_MECHANISMS = ("plain", "scram-sha-256", "scram-sha-512")
MECHANISMS = (*PASSWORD_MECHANISMS, "oauthbearer", "gssapi")
GRANT_TYPE = "client_credentials"
#: What OAUTHBEARER needs, in the order an error names the first one missing.
OAUTH_REQUIRED = ("sasl-oauth-client-id", "sasl-oauth-client-secret", "sasl-oauth-token-url")
OAUTH_PARAMETERS = (*OAUTH_REQUIRED, "sasl-oauth-scopes", "sasl-oauth-grant-type", "sasl-oauth-audience")
GSSAPI_PARAMETERS = (
    "sasl-gssapi-auth-type", "sasl-gssapi-keytab-path", "sasl-gssapi-kerberos-config-path",
    "sasl-gssapi-service-name", "sasl-gssapi-user", "sasl-gssapi-password", "sasl-gssapi-realm",
    "sasl-gssapi-disable-pafxfast",
)
#: librdkafka writes the scope into the token request's form body as it is, unescaped: a
#: scope holding one of these would change the request, so none is taken.
_SCOPE_SPLIT = re.compile(r"[,\s]+")
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x24\x27-\x2a\x2c-\x3c\x3e-\x5b\x5d-\x7e]+", re.ASCII)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}", re.ASCII)


# --- value rules (Parameter checks: the message never quotes a secret) --------------------------


def client_secret_problem(value: str) -> Optional[str]:
    try:
        decoded_client_secret(value)
    except ValueError as exc:
        return str(exc)
    return None


def decoded_client_secret(value: str) -> str:
    """The OAuth client secret of ``sasl-oauth-client-secret``: Base64 (standard alphabet,
    padded), as TiCDC reads it. The error never quotes the value."""
    hint = ""
    if " " in value and _BASE64.fullmatch(value.replace(" ", "+")):
        hint = " (a '+' of Base64 must be written %2B in a URI: a bare '+' reads as a space)"
    try:
        if not _BASE64.fullmatch(value):
            raise binascii.Error
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError(
            "must be the client secret in Base64, as TiCDC takes it (base64 of the secret)" + hint
        ) from None
    try:
        secret = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(
            "decodes from Base64 to bytes that are not UTF-8 text: give the client secret"
            " Base64-encoded, as TiCDC takes it"
        ) from None
    if not secret or "\0" in secret:
        raise ValueError("decodes from Base64 to an empty secret or one holding a NUL byte")
    return secret


def token_url_problem(value: str) -> Optional[str]:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - a bad port raises here
    except ValueError:
        return f"{redact_url(value)!r} is not a URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"must be an http:// or https:// URL of the token endpoint, got {redact_url(value)!r}"
    return None


def scopes(value: Optional[str]) -> Optional[str]:
    """librdkafka's ``sasl.oauthbearer.scope`` (space-separated) of ``sasl-oauth-scopes``
    (TiCDC's list, written comma-separated in a URI), or None for no scope."""
    names = [s for s in _SCOPE_SPLIT.split(value or "") if s]
    return " ".join(names) or None


def scopes_problem(value: str) -> Optional[str]:
    for name in _SCOPE_SPLIT.split(value):
        if name and not _SCOPE_TOKEN.fullmatch(name):
            return (
                f"scope {name[:60]!r}: a scope is printable ASCII without '&', '=', '+', '%', '\"' or '\\'"
                " (librdkafka sends it unescaped in the token request)"
            )
    return None


def grant_type_problem(value: str) -> Optional[str]:
    if value.strip().lower() == GRANT_TYPE:
        return None
    return (
        f"only {GRANT_TYPE} is taken (TiCDC's default): librdkafka's OIDC login asks the token endpoint"
        " with the client id and secret, and another grant needs settings TiCDC has no parameter for"
    )


# --- cross-parameter rules ------------------------------------------------------------------------


def gssapi_auth_type(params) -> str:
    """``keytab`` or ``user``: TiCDC's ``sasl-gssapi-auth-type``, or, when the URI leaves it out,
    ``keytab`` when it names a keytab and ``user`` (the ticket cache) when not."""
    if params.get("sasl-gssapi-auth-type"):
        return params["sasl-gssapi-auth-type"]
    return "keytab" if params.get("sasl-gssapi-keytab-path") else "user"


def kerberos_principal(params) -> Optional[str]:
    """``user@REALM`` of ``sasl-gssapi-user`` and ``sasl-gssapi-realm`` (the user alone without
    a realm: Kerberos adds krb5.conf's default realm)."""
    user, realm = params.get("sasl-gssapi-user"), params.get("sasl-gssapi-realm")
    if not user:
        return None
    return f"{user}@{realm}" if realm else user


def check_sasl(config: "SinkConfig") -> None:
    """Every SASL parameter of a kafka:// URI consistent, the files it names there, and the
    mechanism supported by this librdkafka: a SinkURIError naming the parameter, never a secret."""
    params = config.params
    # An empty value is unset, as in TiCDC.
    given = {name for name in (*OAUTH_PARAMETERS, *GSSAPI_PARAMETERS) if params.get(name)}
    mechanism = params.get("sasl-mechanism") or ("plain" if config.username else None)
    for family, wanted in ((OAUTH_PARAMETERS, "oauthbearer"), (GSSAPI_PARAMETERS, "gssapi")):
        stray = [name for name in family if name in given]
        if stray and mechanism != wanted:
            raise SinkURIError(
                f"{stray[0]} is a parameter of sasl-mechanism={wanted}"
                f" (this URI's sasl-mechanism: {mechanism or 'none'})",
                "sasl-mechanism",
            )
    if mechanism in (None, *PASSWORD_MECHANISMS):
        return
    login = next((name for name in ("sasl-user", "sasl-password") if params.get(name)), None)
    if login is None and (config.username or config.password):
        login = "userinfo"
    if login:
        if mechanism == "oauthbearer":
            takes = "sasl-oauth-client-id and sasl-oauth-client-secret"
        else:
            takes = "a keytab (sasl-gssapi-keytab-path) or the Kerberos ticket cache"
        raise SinkURIError(
            f"sasl-mechanism={mechanism} does not log in with a user name and password (sasl-user,"
            f" sasl-password, user:password@ are for {', '.join(PASSWORD_MECHANISMS)}): it takes {takes}",
            login,
        )
    if mechanism == "oauthbearer":
        _check_oauthbearer(params)
    else:
        _check_gssapi(params)


def _check_oauthbearer(params) -> None:
    for name in OAUTH_REQUIRED:
        if not params.get(name):
            raise SinkURIError(
                f"sasl-mechanism=oauthbearer needs {name} (OIDC client credentials: "
                + ", ".join(OAUTH_REQUIRED) + ")",
                name,
            )
    if params.get("sasl-oauth-audience"):
        raise SinkURIError(
            "sasl-oauth-audience cannot be sent: librdkafka's OIDC token request carries only grant_type"
            " and scope, with no audience field. Leave it out and have the identity provider give this"
            " client's tokens the broker's audience by default (a default audience for the client, or"
            " an audience mapper), or ask for it through sasl-oauth-scopes where the provider maps"
            " a scope to it",
            "sasl-oauth-audience",
        )


def _check_gssapi(params) -> None:
    if params.get("sasl-gssapi-password"):
        raise SinkURIError(
            "sasl-gssapi-password cannot be used: librdkafka logs in to Kerberos from a keytab or from"
            " the ticket cache, never with a password. Use sasl-gssapi-auth-type=keytab with"
            " sasl-gssapi-keytab-path and sasl-gssapi-user, or run kinit for the user before cdcwire"
            " and leave the password out (sasl-gssapi-auth-type=user then uses the ticket cache)",
            "sasl-gssapi-password",
        )
    user, realm = params.get("sasl-gssapi-user"), params.get("sasl-gssapi-realm")
    if realm and not user:
        raise SinkURIError(
            "sasl-gssapi-realm needs sasl-gssapi-user (the principal is user@realm)", "sasl-gssapi-user"
        )
    if realm and user and "@" in user:
        raise SinkURIError(
            "sasl-gssapi-user already names a realm (user@REALM); give sasl-gssapi-realm or the"
            " realm in the user, not both",
            "sasl-gssapi-realm",
        )
    if gssapi_auth_type(params) == "keytab":
        if not params.get("sasl-gssapi-keytab-path"):
            raise SinkURIError(
                "sasl-gssapi-auth-type=keytab needs sasl-gssapi-keytab-path", "sasl-gssapi-keytab-path"
            )
        if not user:
            raise SinkURIError(
                "sasl-gssapi-auth-type=keytab needs sasl-gssapi-user: the principal whose key kinit takes"
                " from the keytab",
                "sasl-gssapi-user",
            )
    elif params.get("sasl-gssapi-keytab-path"):
        raise SinkURIError(
            "sasl-gssapi-keytab-path is for sasl-gssapi-auth-type=keytab;"
            " auth-type=user uses the ticket cache",
            "sasl-gssapi-auth-type",
        )
    for name in ("sasl-gssapi-keytab-path", "sasl-gssapi-kerberos-config-path"):
        path = params.get(name)
        if path:
            _check_readable_file(name, path)
    if params.get("sasl-gssapi-disable-pafxfast"):
        log.info(
            "kafka://: sasl-gssapi-disable-pafxfast is TiCDC's (its Go Kerberos); librdkafka's system"
            " Kerberos uses FAST only when krb5.conf asks for it, so it has no effect here"
        )
    problem = gssapi_unsupported()
    if problem:
        raise SinkURIError(problem, "sasl-mechanism")


def _check_readable_file(name: str, path: str) -> None:
    if not os.path.exists(path):
        why = "no such file"
    elif not os.path.isfile(path):
        why = "not a file"
    elif not os.access(path, os.R_OK):
        why = "not readable"
    else:
        return
    raise SinkURIError(f"{name}={path} cannot be used: {why}", name)


@functools.lru_cache(maxsize=None)
def gssapi_unsupported() -> Optional[str]:
    """Why this process's librdkafka cannot do SASL GSSAPI, or None when it can (or when
    confluent-kafka is not installed: making a client then says which extra to install).

    librdkafka's documented check: setting ``builtin.features`` to a feature this build
    lacks is refused.
    """
    try:
        import confluent_kafka
    except ImportError:
        return None
    try:
        probe = confluent_kafka.Producer({"builtin.features": "sasl_gssapi", "logger": _Silent()})
    except confluent_kafka.KafkaException as exc:
        error = exc.args[0] if exc.args else exc
        return gssapi_missing_text(error.str() if isinstance(error, confluent_kafka.KafkaError) else str(exc))
    del probe
    return None


def gssapi_missing_text(words: str) -> str:
    import confluent_kafka

    return (
        f"sasl-mechanism=gssapi: this confluent-kafka ({getattr(confluent_kafka, '__version__', '?')},"
        f" librdkafka {confluent_kafka.libversion()[0]}) has no Kerberos support ({words})."
        " The confluent-kafka wheels on PyPI are built without it: install librdkafka with libsasl2"
        " (cyrus-sasl-gssapi) from your OS or Confluent's packages and build confluent-kafka against it"
        " (pip install --no-binary confluent-kafka confluent-kafka), or log in with"
        " sasl-mechanism=oauthbearer or scram-sha-512"
    )


class _Silent:
    """A librdkafka ``logger`` that drops everything (the probe client has no broker to name)."""

    def log(self, level: int, fmt: str, *args: object) -> None:
        pass
