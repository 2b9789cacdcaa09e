"""kafka:// logins without a password: SASL OAUTHBEARER (OIDC client credentials) and GSSAPI
(Kerberos), under TiCDC's parameter names. The settings a URI becomes, the checks made when it is
parsed, the secrets never shown, and a real librdkafka fetching a token from an OIDC token endpoint
on 127.0.0.1 (and logging in with it to the suite's broker)."""

from __future__ import annotations

import base64
import http.server
import json
import os
import threading
import time
from contextlib import nullcontext
from typing import Iterator
from urllib.parse import parse_qs, quote

import pytest
from confluent_kafka import Producer

import cdcwire
from cdcwire import Message, SinkURIError, parse_sink_uri
from cdcwire.uris.sink_uri import SinkConfig, split_sink_uri
from cdcwire.transports.kafka.transport import KAFKA_PARAMETERS
from cdcwire.transports.kafka.sasl import gssapi_unsupported
from cdcwire.transports.kafka.settings import KafkaSettings

from fixtures.kafka_broker import free_port

BASE = "kafka://127.0.0.1:9092/orders?protocol=open-protocol"
CLIENT_SECRET = "cl13nt-s3cret+/="  # '+', '/' and '=' as a Base64 form would have them
CLIENT_SECRET_B64 = base64.b64encode(CLIENT_SECRET.encode()).decode()
OAUTH = (
    f"&sasl-mechanism=OAUTHBEARER&sasl-oauth-client-id=cdcwire-etl"
    f"&sasl-oauth-client-secret={quote(CLIENT_SECRET_B64, safe='')}"
)
NO_GSSAPI = gssapi_unsupported()


def oauth_uri(token_url: str = "https://idp.example/oauth2/token", base: str = BASE, extra: str = "") -> str:
    return f"{base}{OAUTH}&sasl-oauth-token-url={quote(token_url, safe='')}{extra}"


def typed(uri: str) -> SinkConfig:
    """The URI's values typed, without the transport's checks: the GSSAPI settings can be looked
    at on a build that refuses GSSAPI when a URI is checked."""
    return SinkConfig.typed(split_sink_uri(uri), "open-protocol", KAFKA_PARAMETERS)


# --- the librdkafka settings a URI becomes ---------------------------------------------------------


def test_oauthbearer_uri_becomes_librdkafkas_oidc_login():
    uri = oauth_uri(extra="&enable-tls=true&sasl-oauth-scopes=producer.kafka,consumer.kafka")
    s = KafkaSettings.of(parse_sink_uri(uri))
    assert s.security == {
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "OAUTHBEARER",
        "sasl.oauthbearer.method": "oidc",
        "sasl.oauthbearer.client.id": "cdcwire-etl",
        "sasl.oauthbearer.client.secret": CLIENT_SECRET,  # Base64 in the URI, as TiCDC takes it
        "sasl.oauthbearer.token.endpoint.url": "https://idp.example/oauth2/token",
        "sasl.oauthbearer.scope": "producer.kafka consumer.kafka",
    }


@pytest.mark.parametrize(
    "query, expected, kerberos_config",
    [
        (
            "&sasl-gssapi-auth-type=keytab&sasl-gssapi-keytab-path=/etc/cdc.keytab&sasl-gssapi-user=cdc"
            "&sasl-gssapi-realm=EXAMPLE.COM&sasl-gssapi-service-name=kafka-prod"
            "&sasl-gssapi-kerberos-config-path=/etc/krb5-prod.conf",
            {
                "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
                "sasl.kerberos.service.name": "kafka-prod", "sasl.kerberos.principal": "cdc@EXAMPLE.COM",
                "sasl.kerberos.keytab": "/etc/cdc.keytab",
            },
            "/etc/krb5-prod.conf",
        ),
        (
            "&sasl-gssapi-auth-type=user&sasl-gssapi-user=cdc@EXAMPLE.COM",
            {
                "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "GSSAPI",
                "sasl.kerberos.principal": "cdc@EXAMPLE.COM", "sasl.kerberos.min.time.before.relogin": 0,
            },
            None,
        ),
    ],
    ids=["keytab", "ticket-cache"],
)
def test_gssapi_uri_becomes_librdkafkas_kerberos_login(query, expected, kerberos_config):
    s = KafkaSettings.of(typed(f"{BASE}&sasl-mechanism=gssapi{query}"))
    assert s.security == expected
    assert s.kerberos_config == kerberos_config


def test_kerberos_config_path_becomes_the_process_krb5_config(monkeypatch, tmp_path):
    monkeypatch.setenv("KRB5_CONFIG", "")  # restored (or removed) after the test: open_client sets it
    monkeypatch.delenv("KRB5_CONFIG")
    uri = f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-kerberos-config-path={tmp_path}/krb5.conf"
    s = KafkaSettings.of(typed(uri))
    # Without Kerberos in librdkafka the client is refused naming the build, after KRB5_CONFIG is set.
    with pytest.raises(SinkURIError, match="has no Kerberos support") if NO_GSSAPI else nullcontext():
        s.open_client(Producer, s.client_errors())
    assert os.environ["KRB5_CONFIG"] == f"{tmp_path}/krb5.conf"
    monkeypatch.setenv("KRB5_CONFIG", "/etc/another-krb5.conf")
    with pytest.raises(SinkURIError, match="Kerberos takes one per process") as info:
        s.open_client(Producer, s.client_errors())
    assert info.value.parameter == "sasl-gssapi-kerberos-config-path"


# --- checks when the URI is parsed ---------------------------------------------------------------


@pytest.mark.parametrize(
    "uri, parameter, words",
    [
        (f"{BASE}&sasl-mechanism=oauthbearer&sasl-oauth-client-id=x&sasl-oauth-token-url=https://i/t",
         "sasl-oauth-client-secret", "needs sasl-oauth-client-secret"),
        (f"{BASE}{OAUTH}", "sasl-oauth-token-url", "needs sasl-oauth-token-url"),
        (oauth_uri("ftp://idp.example/t"), "sasl-oauth-token-url", "must be an http:// or https:// URL"),
        (oauth_uri(extra="&sasl-oauth-audience=kafka"), "sasl-oauth-audience", "no audience field"),
        (oauth_uri(extra="&sasl-oauth-grant-type=password"), "sasl-oauth-grant-type",
         "only client_credentials"),
        (oauth_uri(extra="&sasl-oauth-scopes=a%26b"), "sasl-oauth-scopes", "without '&'"),
        (oauth_uri(extra="&sasl-user=bob&sasl-password=pw"), "sasl-user", "does not log in with a user name"),
        (f"{BASE}&sasl-oauth-client-id=x", "sasl-mechanism", "a parameter of sasl-mechanism=oauthbearer"),
        (f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-auth-type=keytab&sasl-gssapi-user=cdc",
         "sasl-gssapi-keytab-path", "keytab needs sasl-gssapi-keytab-path"),
        (f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-keytab-path=/nonexistent/cdc.keytab&sasl-gssapi-user=cdc",
         "sasl-gssapi-keytab-path", "keytab-path=/nonexistent/cdc.keytab cannot be used: no such file"),
        (f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-kerberos-config-path=/nonexistent/krb5.conf",
         "sasl-gssapi-kerberos-config-path", "cannot be used: no such file"),
        (f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-realm=EXAMPLE.COM", "sasl-gssapi-user",
         "realm needs sasl-gssapi-user"),
        (f"{BASE}&sasl-mechanism=scram-sha-512&sasl-user=u&sasl-password=p&sasl-gssapi-user=cdc",
         "sasl-mechanism", "a parameter of sasl-mechanism=gssapi"),
    ],
)
def test_a_missing_or_unusable_sasl_part_is_named(uri, parameter, words):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(uri)
    assert info.value.parameter == parameter
    assert words in str(info.value)


def test_a_gssapi_password_is_refused_saying_what_to_use_instead():
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(
            f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-auth-type=user&sasl-gssapi-user=cdc"
            "&sasl-gssapi-password=hunt3r-s3cret"
        )
    assert info.value.parameter == "sasl-gssapi-password"
    assert "never with a password" in str(info.value) and "sasl-gssapi-keytab-path" in str(info.value)
    assert "hunt3r" not in str(info.value)


@pytest.mark.skipif(not NO_GSSAPI, reason="this librdkafka has Kerberos (GSSAPI) support")
def test_gssapi_on_a_librdkafka_without_kerberos_is_refused_when_the_uri_is_checked(tmp_path):
    keytab = tmp_path / "cdc.keytab"
    keytab.write_bytes(b"\x05\x02")
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(f"{BASE}&sasl-mechanism=gssapi&sasl-gssapi-keytab-path={keytab}&sasl-gssapi-user=cdc")
    assert info.value.parameter == "sasl-mechanism"
    assert "has no Kerberos support" in str(info.value)
    assert "pip install --no-binary confluent-kafka confluent-kafka" in str(info.value)


# --- the client secret is never shown -------------------------------------------------------------


def test_the_oauth_client_secret_is_shown_nowhere():
    config = parse_sink_uri(oauth_uri())
    s = KafkaSettings.of(config)
    basic = base64.b64encode(f"cdcwire-etl:{CLIENT_SECRET}".encode()).decode()
    for form in (CLIENT_SECRET, CLIENT_SECRET_B64, basic):
        assert s.scrub(f"the IdP said {form}") == "the IdP said ***"
    with pytest.raises(SinkURIError) as info:  # a secret that is not Base64 is refused without quoting it
        parse_sink_uri(f"{BASE}&sasl-mechanism=oauthbearer&sasl-oauth-client-secret={quote(CLIENT_SECRET)}")
    shown = [str(config), repr(config), repr(config.params), repr(s), str(info.value)]
    assert not [text for text in shown if "s3cret" in text or CLIENT_SECRET_B64 in text]


def test_a_bare_plus_in_a_base64_secret_is_explained():
    with pytest.raises(SinkURIError, match="written %2B") as info:
        parse_sink_uri(f"{BASE}&sasl-mechanism=oauthbearer&sasl-oauth-client-secret=ab+d")
    assert info.value.parameter == "sasl-oauth-client-secret" and "ab d" not in str(info.value)


# --- a real token endpoint --------------------------------------------------------------------------


class TokenEndpoint(http.server.ThreadingHTTPServer):
    """An OIDC token endpoint on 127.0.0.1: the client_credentials grant, answered with a
    JWT-shaped access token (unsigned: librdkafka reads its sub and exp, the broker checks it)."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _TokenRequest)
        self.requests: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_port}/oauth2/token"

    def wait_for_request(self, timeout: float = 10.0) -> dict:
        deadline = time.monotonic() + timeout
        while not self.requests and time.monotonic() < deadline:
            time.sleep(0.01)
        assert self.requests, f"no token request reached {self.url} within {timeout:g}s"
        return self.requests[0]


class _TokenRequest(http.server.BaseHTTPRequestHandler):
    server: TokenEndpoint

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
        form = {k: v[0] for k, v in parse_qs(body).items()}
        authorization = self.headers.get("Authorization")
        self.server.requests.append({"path": self.path, "authorization": authorization, "form": form})
        if form.get("grant_type") != "client_credentials":
            self.send_error(400, "unsupported_grant_type")
            return
        now = int(time.time())
        claims = {"sub": "cdcwire-etl", "iat": now, "exp": now + 3600, "scope": form.get("scope", "")}
        token = ".".join(_b64url(part) for part in ({"alg": "none", "typ": "JWT"}, claims)) + ".c2ln"
        payload = json.dumps({"access_token": token, "token_type": "Bearer", "expires_in": 3600}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


def _b64url(part: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(part).encode()).rstrip(b"=").decode()


@pytest.fixture
def token_endpoint() -> Iterator[TokenEndpoint]:
    server = TokenEndpoint()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_librdkafka_posts_the_client_credentials_to_the_token_endpoint(token_endpoint):
    # No broker needed: librdkafka asks for a token as soon as the client is made.
    uri = oauth_uri(token_endpoint.url, base=f"kafka://127.0.0.1:{free_port()}/t?protocol=open-protocol",
                    extra="&sasl-oauth-scopes=producer.kafka,consumer.kafka")
    s = KafkaSettings.of(parse_sink_uri(uri))
    producer = s.open_client(Producer, s.client_errors())
    try:
        request = token_endpoint.wait_for_request()
    finally:
        producer.flush(0)
    assert request["path"] == "/oauth2/token"
    basic = base64.b64encode(f"cdcwire-etl:{CLIENT_SECRET}".encode()).decode()
    assert request["authorization"] == f"Basic {basic}"
    assert request["form"] == {"grant_type": "client_credentials", "scope": "producer.kafka consumer.kafka"}


def test_messages_go_through_the_broker_over_oauthbearer(kafka_broker, kafka_topic, token_endpoint):
    # noida-db (the suite's broker) completes an OAUTHBEARER exchange without checking the token
    # (it advertises PLAIN only), so this proves the login cdcwire configures is made with a token
    # from the endpoint, not that a broker validated it.
    uri = oauth_uri(token_endpoint.url, base=kafka_broker.uri(kafka_topic, partition_num=1))
    cdcwire.write(uri, [Message(kafka_topic, 0, b"k", b"over oauthbearer")])
    assert [m.value for m in cdcwire.read(uri)] == [b"over oauthbearer"]
    grants = {r["form"]["grant_type"] for r in token_endpoint.requests}
    assert grants == {"client_credentials"}  # the clients asked for tokens
