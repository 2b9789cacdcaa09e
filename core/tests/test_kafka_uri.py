"""kafka:// URI parameters, their validation, the client settings they become, and the error
texts the client tells without the URI's secrets (no broker needed)."""

from __future__ import annotations

import datetime
import logging
import subprocess
import sys
from concurrent.futures import Future
from types import SimpleNamespace

import pytest

import cdcwire

from cdcwire import SinkURIError, parse_sink_uri
from cdcwire.foundation.durations import parse_duration

BASE = "kafka://127.0.0.1:9092/orders?protocol=echo-json"


def settings_of(uri: str):
    pytest.importorskip("confluent_kafka", reason="the cdcwire[kafka] extra is not installed")
    from cdcwire.transports.kafka.settings import KafkaSettings

    return KafkaSettings.of(parse_sink_uri(uri))


def test_kafka_parameters_have_ticdc_defaults():
    c = parse_sink_uri(BASE)
    assert (c["replication-factor"], c["auto-create-topic"], c["dial-timeout"]) == (1, True, "10s")
    assert c["kafka-client-id"] == "cdcwire"


@pytest.mark.parametrize("text, seconds", [("500ms", 0.5), ("10s", 10), ("1m30s", 90), ("2h", 7200), ("1.5s", 1.5)])
def test_durations_read_like_go(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "text, seconds",
    [(".5s", 0.5), ("1500us", 0.0015), ("1h2m3.5s", 3723.5), ("24h", 86400), ("250ns", 2.5e-7)],
)
def test_durations_take_every_go_unit_and_form(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["10", "ten", "0s", "", "5x", "1%D9%A0s", "10%20s", "-5s", "1_0s"])
def test_a_bad_dial_timeout_is_named(text):
    with pytest.raises(SinkURIError, match="dial-timeout") as info:
        parse_sink_uri(f"{BASE}&dial-timeout={text}")
    assert info.value.parameter == "dial-timeout"


@pytest.mark.parametrize("text", ["25h", "100000000000h", "9" * 400 + "s"])
def test_a_dial_timeout_past_a_day_is_refused_when_parsed(text):
    with pytest.raises(SinkURIError, match="longer than the limit of 24h") as info:
        parse_sink_uri(f"{BASE}&dial-timeout={text}")
    assert info.value.parameter == "dial-timeout"
    assert len(str(info.value)) < 200  # the 400 nines are not quoted whole


@pytest.mark.parametrize(
    "query, parameter, words",
    [
        ("request-timeout-ms=300001", "request-timeout-ms", "must be <= 300000"),
        ("request-timeout-ms=99999999999999", "request-timeout-ms", "must be <= 300000"),
        ("request-timeout-ms=99", "request-timeout-ms", "must be >= 100"),
        ("replication-factor=32768", "replication-factor", "must be <= 32767"),
    ],
)
def test_a_value_librdkafka_would_refuse_is_named_when_parsed(query, parameter, words):
    with pytest.raises(SinkURIError, match=words) as info:
        parse_sink_uri(f"{BASE}&{query}")
    assert info.value.parameter == parameter


@pytest.mark.parametrize(
    "query",
    [
        "dial-timeout=24h&request-timeout-ms=300000&max-message-bytes=1000000000",
        "dial-timeout=1ns&request-timeout-ms=100&max-message-bytes=64",
    ],
)
def test_every_client_takes_the_extremes_of_the_uri_ranges(query):
    import confluent_kafka
    import confluent_kafka.admin

    from cdcwire.transports.kafka.writer import producer_settings

    config = parse_sink_uri(f"{BASE}&{query}")
    s = settings_of(f"{BASE}&{query}")
    for kind, extra in [
        (confluent_kafka.Producer, producer_settings(config, s)),
        (confluent_kafka.Consumer, {"group.id": "g"}),
        (confluent_kafka.admin.AdminClient, {}),
    ]:
        assert s.open_client(kind, s.client_errors(), **extra) is not None


@pytest.mark.parametrize(
    "hosts, parameter, words",
    [
        ("h:\u0669\u0660\u0669\u0662", "port", "the port must be a number from 1 to 65535 in ASCII digits"),
        ("h:\u00b2", "port", "in ASCII digits, got '\u00b2'"),
        ("h:65536", "port", "from 1 to 65535"),
        ("h:0", "port", "from 1 to 65535"),
        ("h%20x:9092", "host", "is not a host name"),
        ("localhost", "host", "must be host:port"),
    ],
)
def test_a_bad_broker_is_named(hosts, parameter, words):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(f"kafka://{hosts}/t?protocol=echo-json")
    assert info.value.parameter == parameter
    assert words in str(info.value)


@pytest.mark.parametrize("hosts", ["[::1]:9092", "kafka-1.example.com:9092,10.0.0.2:19092"])
def test_host_names_and_addresses_are_brokers(hosts):
    assert parse_sink_uri(f"kafka://{hosts}/t?protocol=echo-json").location == hosts


@pytest.mark.parametrize(
    "query, parameter", [("kafka-client-id=a%00b", "kafka-client-id"), ("ca=/x%00y", "ca")]
)
def test_a_nul_byte_in_a_value_is_refused_naming_the_parameter(query, parameter):
    with pytest.raises(SinkURIError, match="holds a NUL byte") as info:
        parse_sink_uri(f"{BASE}&{query}")
    assert info.value.parameter == parameter


def test_a_nul_byte_in_a_password_is_refused_without_showing_it():
    with pytest.raises(SinkURIError, match="holds a NUL byte") as info:
        parse_sink_uri(f"{BASE}&sasl-mechanism=plain&sasl-user=bob&sasl-password=hun%00ter2")
    assert info.value.parameter == "sasl-password"
    assert "hun" not in str(info.value) and "ter2" not in str(info.value)


def test_a_nul_byte_in_the_user_info_is_refused_without_showing_it():
    with pytest.raises(SinkURIError, match="holds a NUL byte") as info:
        parse_sink_uri("kafka://bob:hun%00ter2@127.0.0.1:9092/t?protocol=echo-json")
    assert info.value.parameter == "userinfo"
    assert "hun" not in str(info.value) and "ter2" not in str(info.value)


@pytest.mark.parametrize(
    "uri, parameter, words",
    [
        (f"{BASE}&sasl-mechanism=plain", "sasl-user", "sasl-mechanism needs sasl-user"),
        (f"{BASE}&sasl-user=bob&sasl-password=pw", "sasl-mechanism", "need sasl-mechanism"),
        (f"{BASE}&sasl-mechanism=plain&sasl-user=bob", "sasl-password", "sasl-user needs sasl-password"),
        ("kafka://bob@127.0.0.1:9092/t?protocol=echo-json", "userinfo", "names a user but no password"),
        (f"{BASE}&cert=/c.pem", "key", "needs both cert and key"),
        (f"{BASE}&key=/k.pem", "cert", "needs both cert and key"),
        (f"{BASE}&replication-factor=0", "replication-factor", "must be >= 1"),
        (f"{BASE}&auto-create-topic=maybe", "auto-create-topic", "must be true or false"),
        (f"{BASE}&sasl-mechanism=kerberos&sasl-user=bob&sasl-password=pw", "sasl-mechanism", "must be one of"),
        (f"{BASE}&sasl-mechanism=gssapi&sasl-user=bob&sasl-password=pw", "sasl-user",
         "does not log in with a user name and password"),
    ],
)
def test_inconsistent_security_parameters_are_named(uri, parameter, words):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(uri)
    assert info.value.parameter == parameter
    assert words in str(info.value)


def test_kafka_uris_parse_without_confluent_kafka_installed():
    code = (
        "import sys; sys.modules['confluent_kafka'] = None\n"
        "from cdcwire import parse_sink_uri\n"
        "c = parse_sink_uri('kafka://h:9092/t?protocol=open-protocol&compression=zstd&dial-timeout=3s')\n"
        "print(c.topic, c['compression'], 'confluent_kafka' in sys.modules and sys.modules['confluent_kafka'])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["t", "zstd", "None"]


# --- the librdkafka settings a URI becomes ----------------------------------------------------

def test_plain_uri_gives_a_plaintext_client():
    s = settings_of(f"{BASE}&kafka-client-id=etl-7&dial-timeout=3s&request-timeout-ms=5000")
    assert (s.bootstrap, s.client_id, s.dial_timeout, s.request_timeout_ms) == ("127.0.0.1:9092", "etl-7", 3.0, 5000)
    assert s.security == {"security.protocol": "PLAINTEXT"}


def test_userinfo_means_sasl_plain():
    s = settings_of("kafka://alice:pw%40x@127.0.0.1:9092/t?protocol=echo-json")
    assert s.security == {
        "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": "PLAIN",
        "sasl.username": "alice", "sasl.password": "pw@x",
    }


def test_sasl_parameters_win_over_userinfo_and_tls_makes_it_sasl_ssl():
    s = settings_of(
        "kafka://alice:old@127.0.0.1:9092/t?protocol=echo-json&enable-tls=true"
        "&sasl-mechanism=scram-sha-512&sasl-user=bob&sasl-password=new"
    )
    assert s.security["security.protocol"] == "SASL_SSL"
    assert (s.security["sasl.mechanism"], s.security["sasl.username"], s.security["sasl.password"]) == (
        "SCRAM-SHA-512", "bob", "new"
    )


def test_tls_files_and_skip_verify_map_to_ssl_settings():
    s = settings_of(f"{BASE}&ca=/ca.pem&cert=/c.pem&key=/k.pem&insecure-skip-verify=true")
    assert s.security == {
        "security.protocol": "SSL",
        "ssl.ca.location": "/ca.pem",
        "ssl.certificate.location": "/c.pem",
        "ssl.key.location": "/k.pem",
        "enable.ssl.certificate.verification": False,
        "ssl.endpoint.identification.algorithm": "none",
    }


def test_client_config_never_lets_metadata_create_topics():
    s = settings_of(f"{BASE}&dial-timeout=2s")
    conf = s.client_config(s.client_errors())
    assert conf["allow.auto.create.topics"] is False
    assert conf["socket.connection.setup.timeout.ms"] == 2000
    assert conf["bootstrap.servers"] == "127.0.0.1:9092"


@pytest.mark.parametrize(
    "query, compression",
    [
        ("", "none"),
        ("&compression=zstd&max-message-bytes=5000000", "zstd"),
        ("&compression=snappy&kafka-client-id=etl&request-timeout-ms=500&enable-tls=true", "snappy"),
    ],
)
def test_the_producer_is_idempotent_with_acks_all_whatever_the_uri_says(query, compression):
    s = settings_of(f"{BASE}{query}")
    from cdcwire.transports.kafka.writer import producer_settings

    conf = s.client_config(s.client_errors(), **producer_settings(parse_sink_uri(f"{BASE}{query}"), s))
    assert conf["enable.idempotence"] is True
    assert conf["acks"] == "all"
    assert conf["compression.type"] == compression


def test_settings_hide_secrets_in_repr_and_scrub_them_from_text():
    s = settings_of(
        "kafka://alice:uri-s3cret@127.0.0.1:9092/t?protocol=echo-json"
        "&sasl-mechanism=plain&sasl-user=bob&sasl-password=p4ram-s3cret"
    )
    assert "s3cret" not in repr(s)
    assert s.scrub("login p4ram-s3cret / uri-s3cret failed") == "login *** / *** failed"
    config = parse_sink_uri(
        "kafka://alice:uri-s3cret@127.0.0.1:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-password=p4ram-s3cret"
    )
    assert "s3cret" not in repr(config) + str(config)


# --- TLS files librdkafka cannot load --------------------------------------------------------------


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory) -> dict[str, str]:
    """A self-signed client certificate and a key that is not its own: librdkafka loads the
    certificate, so the key is the file that fails."""
    x509 = pytest.importorskip("cryptography.x509")
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key, other_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "cdcwire-test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    d = tmp_path_factory.mktemp("tls")
    (d / "client.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (d / "other-s3cret.key").write_bytes(
        other_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return {"cert": str(d / "client.pem"), "other_key": str(d / "other-s3cret.key")}


TLS_CASES = {
    "ca-missing": ("ca=/nonexistent/ca.pem", "ca", "ca=/nonexistent/ca.pem cannot be used: no such file"),
    "cert-missing": ("cert=/nonexistent/c.pem&key={other_key}", "cert", "cert=/nonexistent/c.pem cannot be used"),
    "key-missing": ("cert={cert}&key=/nonexistent/s3cret.key", "key", "key=*** cannot be used: no such file"),
    "key-not-the-certs": ("cert={cert}&key={other_key}", "key", "key=*** cannot be used: the TLS library refused"),
}


@pytest.mark.parametrize("client", ["AdminClient", "Producer", "Consumer"])
@pytest.mark.parametrize("case", list(TLS_CASES))
def test_a_tls_file_the_client_cannot_load_names_its_parameter(tls_files, client, case):
    import confluent_kafka
    import confluent_kafka.admin

    query, parameter, words = TLS_CASES[case]
    s = settings_of(f"{BASE}&{query.format(**tls_files)}")
    kind = getattr(confluent_kafka, client, None) or getattr(confluent_kafka.admin, client)
    extra = {"group.id": "g"} if client == "Consumer" else {}
    with pytest.raises(SinkURIError) as info:
        s.open_client(kind, s.client_errors(), **extra)
    assert info.value.parameter == parameter
    assert words in str(info.value) and "s3cret" not in str(info.value)


@pytest.mark.parametrize("make", ["writer", "reader", "partition_count", "prepare_topic"])
def test_every_kafka_entry_point_names_a_bad_tls_file(make):
    pytest.importorskip("confluent_kafka")
    config = parse_sink_uri(f"{BASE}&ca=/nonexistent/ca.pem")
    with pytest.raises(SinkURIError) as info:
        if make in ("writer", "reader"):
            getattr(cdcwire.open_sink(config).transport, make)(config)
        else:
            getattr(cdcwire.open_sink(config).transport, make)(config, "orders")
    assert info.value.parameter == "ca"


def test_the_cli_reports_a_bad_key_file_without_a_traceback_or_its_path(tls_files, capsys):
    from cdcwire.cli import main

    assert main(["inspect", f"{BASE}&cert={tls_files['cert']}&key=/nonexistent/s3cret.key"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cdcwire inspect: error: key=*** cannot be used: no such file")
    assert "Traceback" not in err and "s3cret" not in err


# --- error texts never carry the URI's secrets --------------------------------------------------

SECRET = "uri-s3cret"
SECRET_URI = f"kafka://alice:{SECRET}@127.0.0.1:9092/t?protocol=echo-json&dial-timeout=100ms"


def secret_error(code_name: str, retriable: bool = False):
    """A client error whose text holds the URI's password, as a broker or librdkafka might echo it."""
    from confluent_kafka import KafkaError

    return KafkaError(getattr(KafkaError, code_name), f"broker said {SECRET}", retriable=retriable)


class FakeAdmin:
    """An AdminClient stand-in whose topic metadata and topic creation fail with ``error``."""

    def __init__(self, error) -> None:
        self.error = error

    def list_topics(self, topic=None, timeout=None):
        return SimpleNamespace(topics={topic: SimpleNamespace(error=self.error, partitions={})})

    def create_topics(self, new_topics, request_timeout=None):
        from confluent_kafka import KafkaException

        failed: Future = Future()
        failed.set_exception(KafkaException(self.error))
        return {t.topic: failed for t in new_topics}

    def poll(self, timeout):
        return 0


def admin_failing_with(error):
    from cdcwire.transports.kafka.topics import TopicAdmin

    admin = TopicAdmin(settings_of(SECRET_URI))
    admin._admin = FakeAdmin(error)
    return admin


def test_describe_scrubs_every_kind_of_client_error():
    from confluent_kafka import KafkaException

    s = settings_of(SECRET_URI)
    err = secret_error("_TRANSPORT")
    for error in (err, KafkaException(err), f"text with {SECRET}"):
        assert SECRET not in s.describe(error) and "***" in s.describe(error)


def test_the_client_error_log_and_last_words_are_scrubbed(caplog):
    errors = settings_of(SECRET_URI).client_errors()
    with caplog.at_level(logging.DEBUG, logger="cdcwire.kafka"):
        errors(secret_error("_TRANSPORT"))
    assert "broker said ***" in caplog.text and SECRET not in caplog.text
    assert errors.last_words() == " (last error: broker said ***)"


def test_librdkafka_log_lines_are_scrubbed(caplog):
    s = settings_of(SECRET_URI)
    logger = s.client_config(s.client_errors())["logger"]  # what librdkafka logs through
    with caplog.at_level(logging.DEBUG, logger="cdcwire.kafka.librdkafka"):
        logger.log(logging.ERROR, "%s [%s] %s", "SSL", "cdcwire#producer-1", f"cannot open {SECRET}")
    assert "SSL [cdcwire#producer-1] cannot open ***" in caplog.text and SECRET not in caplog.text


@pytest.mark.parametrize(
    "code, retriable, call, words",
    [
        ("TOPIC_AUTHORIZATION_FAILED", False, lambda a: a.partition_count("t"), "cannot describe topic 't'"),
        ("LEADER_NOT_AVAILABLE", True, lambda a: a.partition_count("t"), "topic 't' at 127.0.0.1:9092 is not ready"),
        ("INVALID_REPLICATION_FACTOR", False, lambda a: a.create("t", 3, 2), "replication-factor=2 cannot be met"),
        ("INVALID_PARTITIONS", False, lambda a: a.create("t", 3, 1), "partition-num=3 is refused"),
        ("POLICY_VIOLATION", False, lambda a: a.create("t", 3, 1), "cannot create topic 't'"),
        ("_TRANSPORT", False, lambda a: a.create("t", 3, 1), "cannot reach Kafka at 127.0.0.1:9092"),
    ],
)
def test_topic_errors_are_scrubbed(code, retriable, call, words):
    from cdcwire import CdcwireError

    with pytest.raises(CdcwireError) as info:
        call(admin_failing_with(secret_error(code, retriable)))
    assert words in str(info.value)
    assert "broker said ***" in str(info.value) and SECRET not in str(info.value)


def test_a_sink_uri_as_ticdcs_documentation_writes_it_is_taken_as_it_is(caplog):
    caplog.set_level("INFO", logger="cdcwire.kafka")
    config = parse_sink_uri(
        "kafka://127.0.0.1:9092/topic-name?kafka-version=2.4.0&partition-num=6&max-message-bytes=67108864"
        "&replication-factor=1&protocol=echo-json&read-timeout=10s&write-timeout=10s&required-acks=-1"
    )
    assert config["kafka-version"] == "2.4.0" and config["partition-num"] == 6
    assert "'kafka-version' is TiCDC's and has no effect here" in caplog.text


@pytest.mark.parametrize("acks", ["0", "1"])
def test_required_acks_that_could_lose_messages_are_refused(acks):
    with pytest.raises(SinkURIError, match="could lose messages") as info:
        parse_sink_uri(f"kafka://127.0.0.1:9092/t?protocol=echo-json&required-acks={acks}")
    assert info.value.parameter == "required-acks"


def test_a_reference_timeout_that_is_not_a_duration_is_refused_naming_it():
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri("kafka://127.0.0.1:9092/t?protocol=echo-json&read-timeout=soon")
    assert info.value.parameter == "read-timeout"
