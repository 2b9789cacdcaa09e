"""avro's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.10 and 1.13): a
Java decoder and batch encoder in a package of their own, using only the framework's public
classes and Apache Avro's Java library; the encoder's field texts and value rules probed from
the installed Python encoder."""

from __future__ import annotations

from urllib.parse import quote

from cdcwire import open_sink
from cdcwire.plugin_api import Column, ColumnFlag, ColumnType, JvmCodec
from cdcwire_avro.codec import AvroCodec
from cdcwire_avro.jvm_writing import _FLAGS, field_table, refusal
from cdcwire_avro.options import AvroOptions
from cdcwire_avro.plugin import cdcwire_plugin_api
from cdcwire_avro.record_schemas import record_schema


def test_the_codec_declares_a_java_decoder_and_batch_encoder_its_own_sources_define():
    jvm = AvroCodec.jvm
    assert isinstance(jvm, JvmCodec)
    assert jvm.encoder is None  # one message a row, but a delete's value is none: a BatchEncoder's message
    for name, text in ((jvm.decoder, "public final class AvroDecoder implements MessageDecoder"),
                       (jvm.batch_encoder, "public final class AvroBatchEncoder extends RowMessages")):
        source = jvm.sources.joinpath(*name.split(".")).with_suffix(".java")
        assert text in source.read_text(encoding="utf-8")


def test_each_kinds_field_text_is_the_encoders_with_its_name_and_numbers_as_placeholders():
    table = field_table(AvroOptions())
    decimal = table["DECIMAL"][0]
    assert decimal["rule"] == "decimal" and decimal["type"] == "bytes"
    filled = decimal["field"].replace("@name@", "x").replace("@precision@", "10").replace("@scale@", "4")
    made = record_schema("s", "t", [Column("x", ColumnType.DECIMAL, ColumnFlag(0), None, "decimal(10,4)")], [0],
                         AvroOptions(), False).text
    assert f'"fields":[{filled}]' in made


def test_value_rules_are_found_by_probing_the_encoders_conversions():
    rules = {name: [e and e["rule"] for e in entries] for name, entries in field_table(AvroOptions()).items()}
    unsigned = 1 << _FLAGS.index(int(ColumnFlag.UNSIGNED))
    assert rules["BIGINT"][0] == "same" and rules["BIGINT"][unsigned] == "u64"
    as_text = field_table(AvroOptions(bigint_unsigned_as_string=True))["BIGINT"][unsigned]
    assert as_text["rule"] == "utext" and as_text["type"] == "string"
    assert (rules["ENUM"][0], rules["SET"][0], rules["BIT"][0]) == ("enum", "set", "bit")
    assert rules["GEOMETRY"] == [None] * len(rules["GEOMETRY"])  # the encoder refuses it: Python's error


def test_java_registers_with_a_plain_http_registry_only():
    def refused(url: str):
        return refusal(open_sink(f"file:///tmp/t?protocol=avro&topic-rule=a_{{schema}}_{{table}}"
                                     f"&schema-registry={quote(url, safe='')}").config)

    assert refused("http://127.0.0.1:8081") is None
    assert "http://" in refused("https://127.0.0.1:8081")
    assert "credentials" in refused("http://u:p@127.0.0.1:8081")


def test_its_java_lives_in_its_own_package_not_the_frameworks():
    paths = list(AvroCodec.jvm.sources.rglob("*.java"))
    assert paths
    for path in paths:
        assert path.read_text(encoding="utf-8").startswith("package io.cdcwire.avro;"), path


def test_its_sources_are_among_those_the_core_compiles():
    from cdcwire.spark.jvm.jar import source_roots

    assert AvroCodec.jvm.sources in source_roots()


def test_the_plugin_declares_the_api_version_of_the_jvm_tier():
    major, minor = (int(p) for p in cdcwire_plugin_api.split("."))
    assert (major, minor) >= (1, 13)
