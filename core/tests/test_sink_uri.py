from __future__ import annotations

import pytest

from cdcwire import SinkURIError, parse_sink_uri


def test_file_uri_splits_directory_and_topic():
    c = parse_sink_uri("file:///tmp/out/orders?protocol=echo-json")
    assert (c.scheme, c.location, c.topic, c.protocol) == ("file", "/tmp/out", "orders", "echo-json")


def test_kafka_uri_keeps_every_broker_and_the_topic():
    c = parse_sink_uri("kafka://10.0.0.1:9092,10.0.0.2:9092/orders?protocol=echo")
    assert c.location == "10.0.0.1:9092,10.0.0.2:9092"
    assert c.topic == "orders"
    assert c.protocol == "echo-json"  # the alias resolves to the codec's name


def test_defaults_come_from_the_reference_table():
    c = parse_sink_uri("file:///tmp/o/t?protocol=echo-json")
    assert c["partition-num"] == 3
    assert c["max-message-bytes"] == 10485760
    assert c["max-batch-size"] == 16
    assert c["compression"] == "none"
    assert c.given == {"protocol"}


def test_parameters_are_typed():
    c = parse_sink_uri("file:///tmp/o/t?protocol=echo-json&partition-num=7&max-batch-size=2&compression=ZSTD")
    assert (c["partition-num"], c["max-batch-size"], c["compression"]) == (7, 2, "zstd")


@pytest.mark.parametrize(
    "query, parameter, words",
    [
        ("protocol=echo-json&partition-nmu=2", "partition-nmu", "did you mean 'partition-num'"),
        ("protocol=echo-json&partition-num=two", "partition-num", "must be an integer"),
        ("protocol=echo-json&partition-num=0", "partition-num", "must be >= 1"),
        ("protocol=echo-json&max-batch-size=-1", "max-batch-size", "must be >= 1"),
        ("protocol=echo-json&compression=brotli", "compression", "must be one of"),
        ("protocol=echo-json&partition-num=2&partition-num=3", "partition-num", "given twice"),
        ("partition-num=2", "protocol", "installed protocols: echo-json"),
        ("protocol=nope", "protocol", "unknown protocol 'nope'; installed protocols: echo-json"),
        ("protocol=echo-json&partition=columns", "partition-columns", "needs partition-columns"),
        ("protocol=echo-json&partition=hash", "partition", "must be one of"),
    ],
)
def test_bad_parameter_is_named_in_the_error(query, parameter, words):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(f"file:///tmp/o/t?{query}")
    assert info.value.parameter == parameter
    assert words in str(info.value)


def test_unknown_scheme_lists_the_installed_transports():
    with pytest.raises(SinkURIError, match="unknown URI scheme 'pulsar'; installed transports: file, kafka"):
        parse_sink_uri("pulsar://h:1/t?protocol=echo-json")


def test_missing_topic_is_an_error():
    with pytest.raises(SinkURIError, match="names no topic"):
        parse_sink_uri("kafka://h:9092/?protocol=echo-json")


def test_invalid_topic_name_is_an_error():
    with pytest.raises(SinkURIError, match="not a valid topic name"):
        parse_sink_uri("kafka://h:9092/or%20ders?protocol=echo-json")


def test_kafka_broker_without_port_is_an_error():
    with pytest.raises(SinkURIError, match="must be host:port") as info:
        parse_sink_uri("kafka://localhost/t?protocol=echo-json")
    assert info.value.parameter == "host"


def test_password_never_appears_in_repr_or_str():
    c = parse_sink_uri(
        "kafka://alice:s3cret@h:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-password=tok3n"
    )
    for text in (repr(c), str(c), c.redacted_uri):
        assert "s3cret" not in text and "tok3n" not in text
        assert "alice" in text
    assert c.password == "s3cret"


def test_password_never_appears_in_an_error():
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri("kafka://alice:s3cret@h:9092/t?protocol=echo-json&bogus=1")
    assert "s3cret" not in str(info.value)


def test_a_secret_parameter_with_a_bad_value_is_not_echoed():
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri("kafka://h:9092/t?protocol=echo-json&sasl-mechanism=oauth&sasl-password=tok3n")
    assert "tok3n" not in str(info.value)


def test_codec_parameter_choices_are_checked():
    with pytest.raises(SinkURIError, match="ddl-to"):
        parse_sink_uri("file:///tmp/o/t?protocol=echo-json&ddl-to=everywhere")


@pytest.mark.parametrize("password", ["pa/ssWORD", "pa?ssWORD", "pa#ssWORD"])
def test_a_password_with_an_unencoded_delimiter_is_refused_without_echoing_it(password):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(f"file://alice:{password}@localhost/tmp/t?protocol=echo-json")
    assert info.value.parameter == "userinfo" and "percent-encode" in str(info.value)
    assert "ssWORD" not in str(info.value)


def test_printing_the_parameter_values_masks_secret_ones():
    config = parse_sink_uri(
        "kafka://127.0.0.1:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-user=bob&sasl-password=hunter2"
    )
    assert config["sasl-password"] == "hunter2"  # the value is there for the client ...
    assert "hunter2" not in repr(config.params) and "hunter2" not in str(config.params)
    assert "'sasl-user': 'bob'" in repr(config.params)


def test_a_parameter_declared_secret_is_masked_whatever_its_name():
    config = parse_sink_uri("file:///tmp/d/t?protocol=echo-json&echo-credential=opensesame")
    assert "opensesame" not in config.redacted_uri and "opensesame" not in repr(config)


# --- integers as TiCDC reads them (Go's strconv.Atoi) -------------------------------------------


@pytest.mark.parametrize("text", ["1_0", "%2010", "10%20", "%D9%A1%D9%A0", "1e1", "0x10", ""])
def test_an_integer_parameter_takes_ascii_digits_only(text):
    with pytest.raises(SinkURIError, match="must be an integer") as info:
        parse_sink_uri(f"file:///tmp/o/t?protocol=echo-json&partition-num={text}")
    assert info.value.parameter == "partition-num"


def test_an_integer_parameter_may_have_a_sign_as_in_go():
    assert parse_sink_uri("file:///tmp/o/t?protocol=echo-json&partition-num=%2B10")["partition-num"] == 10


def test_a_400_digit_integer_is_out_of_range_and_not_quoted_whole():
    words = r"must be <= 1048576, got '9{60}'\.\.\. \(400 characters\)"
    with pytest.raises(SinkURIError, match=words) as info:
        parse_sink_uri(f"file:///tmp/o/t?protocol=echo-json&partition-num={'9' * 400}")
    assert info.value.parameter == "partition-num"


def test_max_message_bytes_stops_at_the_kafka_client_ceiling():
    with pytest.raises(SinkURIError, match="must be <= 1000000000") as info:
        parse_sink_uri("file:///tmp/o/t?protocol=echo-json&max-message-bytes=1000000001")
    assert info.value.parameter == "max-message-bytes"


# --- topics in the URI ------------------------------------------------------------------------


@pytest.mark.parametrize("topic", [".", ".."])
def test_a_dot_or_dot_dot_topic_is_refused(topic):
    with pytest.raises(SinkURIError, match="cannot be named '.' or '..'") as info:
        parse_sink_uri(f"file:///srv/out/base/{topic}?protocol=echo-json")
    assert info.value.parameter == "topic"


def test_a_topic_of_250_characters_is_refused_naming_the_limit():
    with pytest.raises(SinkURIError, match="at most 249 characters, this one has 250") as info:
        parse_sink_uri(f"kafka://h:9092/{'t' * 250}?protocol=echo-json")
    assert info.value.parameter == "topic"


def test_a_topic_of_249_characters_is_kept():
    assert parse_sink_uri(f"kafka://h:9092/{'t' * 249}?protocol=echo-json").topic == "t" * 249


def test_a_topic_ending_in_a_newline_is_refused():
    with pytest.raises(SinkURIError, match="is not a valid topic name"):
        parse_sink_uri("kafka://h:9092/orders%0A?protocol=echo-json")


def test_a_kafka_topic_may_end_in_a_slash_as_in_ticdc():
    assert parse_sink_uri("kafka://h:9092/orders/?protocol=echo-json").topic == "orders"


# --- file paths --------------------------------------------------------------------------------


def test_a_file_uri_ending_in_a_slash_names_no_topic():
    with pytest.raises(SinkURIError, match="names no topic after the directory '/d/out/'") as info:
        parse_sink_uri("file:///d/out/?protocol=echo-json")
    assert info.value.parameter == "topic"


def test_a_file_uri_with_one_segment_writes_in_the_root_directory():
    c = parse_sink_uri("file:///orders?protocol=echo-json")
    assert (c.location, c.topic) == ("/", "orders")


def test_a_relative_file_uri_without_a_directory_writes_in_the_current_one():
    c = parse_sink_uri("file:orders?protocol=echo-json")
    assert (c.location, c.topic) == (".", "orders")


@pytest.mark.parametrize("encoded, char", [("%00", "\\x00"), ("%0A", "\\n"), ("%7F", "\\x7f")])
def test_a_control_character_in_a_file_path_is_refused_with_its_position(encoded, char):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(f"file:///d/o{encoded}ut/t?protocol=echo-json")
    assert f"holds the control character '{char}' at position 4" in str(info.value)
    assert info.value.parameter == "path"


# --- percent-encoding ----------------------------------------------------------------------------


def test_a_value_that_is_not_utf8_is_refused_naming_the_parameter():
    words = "parameter 'topic-rule' is not UTF-8 once percent-decoded"
    with pytest.raises(SinkURIError, match=words) as info:
        parse_sink_uri("file:///tmp/o/t?protocol=echo-json&topic-rule=a%FF")
    assert info.value.parameter == "topic-rule"


def test_a_secret_that_is_not_utf8_is_refused_without_showing_it():
    with pytest.raises(SinkURIError, match="not UTF-8") as info:
        parse_sink_uri(
            "kafka://h:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-user=u&sasl-password=hunter%FF2"
        )
    assert info.value.parameter == "sasl-password" and "hunter" not in str(info.value)


def test_a_password_that_is_not_utf8_is_refused_without_showing_it():
    with pytest.raises(SinkURIError, match="user info is not UTF-8") as info:
        parse_sink_uri("kafka://alice:s3cr%FFet@h:9092/t?protocol=echo-json")
    assert info.value.parameter == "userinfo" and "s3cr" not in str(info.value)


def test_a_path_that_is_not_utf8_is_refused_naming_the_byte():
    words = r"not UTF-8 once percent-decoded \(byte 3 of the decoded path\)"
    with pytest.raises(SinkURIError, match=words) as info:
        parse_sink_uri("file:///d/%FF/t?protocol=echo-json")
    assert info.value.parameter == "path"


def test_percent_encoded_values_are_decoded():
    c = parse_sink_uri(
        "kafka://h:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-user=b%C3%B6b&sasl-password=a%26b+c"
    )
    assert (c["sasl-user"], c["sasl-password"]) == ("böb", "a&b c")


def test_a_bare_protocol_config_keeps_a_value_holding_an_ampersand():
    from cdcwire.sinks.sink import protocol_config

    config = protocol_config("echo-json", **{"echo-credential": "a&partition-num=9"})
    assert (config["echo-credential"], config["partition-num"]) == ("a&partition-num=9", 3)


@pytest.mark.parametrize(
    "uri",
    [
        "file:///d/my#topic?protocol=echo-json",
        "kafka://h:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-user=u&sasl-password=ab#hunter2",
        "file:///d/t?protocol=echo-json#",
    ],
)
def test_an_unencoded_hash_that_would_cut_the_uri_short_is_refused_without_showing_the_rest(uri):
    with pytest.raises(SinkURIError, match="unencoded '#'") as info:
        parse_sink_uri(uri)
    assert info.value.parameter == "uri"
    assert "hunter2" not in str(info.value) and "topic" not in str(info.value)


def test_an_encoded_hash_is_part_of_a_value():
    c = parse_sink_uri(
        "kafka://h:9092/t?protocol=echo-json&sasl-mechanism=plain&sasl-user=u&sasl-password=ab%23cd"
    )
    assert c["sasl-password"] == "ab#cd"


@pytest.mark.parametrize(
    "text, value", [("true", True), ("TRUE", True), ("True", True), ("1", True), ("false", False), ("FaLsE", False), ("0", False)]
)
def test_a_bool_parameter_takes_true_or_false_in_any_case_or_1_or_0(text, value):
    assert parse_sink_uri(f"kafka://h:9092/t?protocol=echo-json&enable-tls={text}")["enable-tls"] is value


@pytest.mark.parametrize("text", ["yes", "no", "on", "off", "t", "f", "2", ""])
def test_a_bool_parameter_refuses_other_words_and_says_exactly_what_it_takes(text):
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(f"file:///tmp/o/t?protocol=echo-json&output-raw-change-event={text}")
    assert str(info.value) == (
        f"parameter 'output-raw-change-event' must be true or false (any case), or 1 or 0, got {text!r}"
    )


@pytest.mark.parametrize("name", ["skip-damaged", "output-raw-change-event"])
def test_every_bool_parameter_of_the_core_has_the_same_rule(name):
    with pytest.raises(SinkURIError, match="must be true or false \\(any case\\), or 1 or 0, got 'yes'"):
        parse_sink_uri(f"file:///tmp/o/t?protocol=echo-json&{name}=yes")


def test_the_s3_storage_option_force_path_style_has_the_same_boolean_rule():
    from cdcwire.large_messages.storage import Storage

    assert Storage.parse("s3://b/p?force-path-style=TRUE").options["force-path-style"] == "TRUE"
    with pytest.raises(SinkURIError, match="'force-path-style' must be true or false \\(any case\\), or 1 or 0"):
        Storage.parse("s3://b/p?force-path-style=yes")


@pytest.mark.parametrize("name", ["sasl-pasword", "sasl_password", "sasl-passwd", "sesion-tokn", "acess-key", "my-credentials"])
def test_a_misspelt_secret_parameter_is_masked_in_the_uri_repr_and_the_right_name_suggested(name):
    from cdcwire.uris.sink_uri import split_sink_uri

    uri = f"kafka://h:9092/t?protocol=echo-json&sasl-mechanism=plain&{name}=hunter2"
    assert "hunter2" not in repr(split_sink_uri(uri))
    with pytest.raises(SinkURIError) as info:
        parse_sink_uri(uri)
    assert f"unknown parameter {name!r}" in str(info.value) and "hunter2" not in str(info.value)
    if "pas" in name:
        assert "did you mean 'sasl-password'?" in str(info.value)


def test_a_declared_parameter_named_like_a_secret_is_shown_an_unknown_one_masked():
    from cdcwire.foundation.redact import redact_url

    uri = "file:///tmp/d/t?protocol=echo-json&passwd-file=/etc/x&handle-key-columns=true"
    known = redact_url(uri, known_names=["protocol", "passwd-file", "handle-key-columns"])
    assert "passwd-file=/etc/x" in known and "handle-key-columns=true" in known
    assert "passwd-file=***" in redact_url(uri) and "handle-key-columns=true" in redact_url(uri)


def test_a_url_without_its_scheme_has_its_password_masked():
    from cdcwire.uris.sink_uri import split_sink_uri

    uri = "file:///tmp/d/t?protocol=echo-json&schema-registry=bob:hunter2@registry:8081"
    assert "schema-registry=bob:***@registry:8081" in repr(split_sink_uri(uri))


def test_a_url_encoded_twice_in_a_parameter_has_its_secrets_masked():
    from urllib.parse import quote

    from cdcwire.uris.sink_uri import split_sink_uri

    inner = "s3://b/p?access-key=AKIAX1&secret-access-key=SEKRITX&session-token=TOKENX"
    shown = repr(split_sink_uri("file:///tmp/d/t?protocol=echo-json&claim-check-storage-uri="
                                + quote(quote(inner, safe=""), safe="")))
    assert "AKIAX1" not in shown and "SEKRITX" not in shown and "TOKENX" not in shown
    assert "s3://b/p" in shown
