"""simple's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.10): a Java
decoder and batch encoder (1.17) in a package of its own, using only the framework's public
classes, configured by tables probed from the installed Python decoder and encoder."""

from __future__ import annotations

import json

import cdcwire
from cdcwire.plugin_api import ColumnFlag, ColumnType, JvmCodec
from cdcwire.sinks.sink import open_sink
from cdcwire.testing.strategies import all_types_table
from cdcwire_simple import json_values
from cdcwire_simple.codec import SimpleCodec
from cdcwire_simple.jvm_reading import decoder_config, reading_table
from cdcwire_simple.jvm_writing import type_table
from cdcwire_simple.plugin import cdcwire_plugin_api

QUERY = "protocol=simple"


def test_the_codec_declares_a_java_decoder_and_batch_encoder_its_own_sources_define():
    jvm = SimpleCodec.jvm
    assert isinstance(jvm, JvmCodec)
    assert jvm.encoder is None  # a BOOTSTRAP and its row are two messages of one row: a BatchEncoder
    source = jvm.sources.joinpath(*jvm.decoder.split(".")).with_suffix(".java")
    assert "public final class SimpleDecoder implements MessageDecoder" in source.read_text(encoding="utf-8")
    source = jvm.sources.joinpath(*jvm.batch_encoder.split(".")).with_suffix(".java")
    assert "public final class SimpleBatchEncoder implements BatchEncoder" in source.read_text(encoding="utf-8")


def test_avro_compression_and_claim_check_are_encoded_in_python_and_every_other_setting_in_java():
    jvm = SimpleCodec.jvm
    refused = {
        "encoding-format=avro": "simple's avro encoding is encoded in Python only",
        "large-message-handle-compression=snappy": "simple's large-message compression is encoded in Python only",
        "large-message-handle-option=claim-check&claim-check-storage-uri=file:///tmp/cc":
            "simple's claim-check is encoded in Python only",
    }
    for options, why in refused.items():
        assert jvm.encoder_refusal(open_sink(f"file:///tmp/t?{QUERY}&{options}").config) == why
    for query in (QUERY, f"{QUERY}&send-bootstrap-in-msg-count=3&send-bootstrap-to-all-partition=false",
                  f"{QUERY}&large-message-handle-option=handle-key-only&max-message-bytes=2000"):
        assert jvm.encoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_each_types_value_writer_in_java_is_named_for_the_python_encoders_writer():
    samples = {"int": (7, "7"), "float32": (0.5, "0.5"), "double": (2.25, "2.25"), "base64": (b"hi", "aGk="),
               "text": ("x", "x"), "timestamp": ("2024-01-01 00:00:00", {"location": "UTC", "value": "2024-01-01 00:00:00"})}
    for name, writing in type_table().items():
        for binary, rule in enumerate(writing["rules"]):
            value, written = samples[rule]
            ctype = ColumnType[name]
            assert json_values.writer_of(ctype, int(ColumnFlag.BINARY) * binary, "UTC")(value) == written, name


def test_it_declares_the_plugin_api_its_java_needs():
    assert cdcwire_plugin_api == "1.18"  # the framework's public helpers (SureJson: 1.13, ColumnEntry.sparkColumn: 1.14), a BatchEncoder's messages of no event (1.17) and its state handed over (1.18)


def test_its_java_lives_in_its_own_package_not_the_frameworks():
    for path in SimpleCodec.jvm.sources.rglob("*.java"):
        assert path.read_text(encoding="utf-8").startswith("package io.cdcwire.simple;"), path


def test_its_sources_are_among_those_the_core_compiles():
    from cdcwire.spark.jvm.jar import source_roots

    assert SimpleCodec.jvm.sources in source_roots()


def test_avro_and_compression_are_refused_in_one_line_and_every_other_setting_is_served():
    jvm = SimpleCodec.jvm
    avro = open_sink(f"file:///tmp/t?{QUERY}&encoding-format=avro").config
    assert jvm.decoder_refusal(avro) == "simple's avro encoding is decoded in Python only"
    compressed = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=snappy").config
    assert jvm.decoder_refusal(compressed) == "simple's large-message compression is decoded in Python only"
    for query in (QUERY, f"{QUERY}&send-bootstrap-interval-in-sec=0&send-bootstrap-to-all-partition=false"):
        assert jvm.decoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def _bootstrap_columns() -> list[dict]:
    """The columns of the BOOTSTRAP the encoder writes for a table of every column kind."""
    from cdcwire import Column, ColumnFlag as F, ColumnType, RowChangedEvent

    spec = all_types_table()
    key = Column("id", ColumnType.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1, "int(11)")
    columns = [Column(f"c_{k.label}", k.type, spec.flags(i), None, k.mysql_type) for i, k in enumerate(spec.kinds)]
    boot = cdcwire.encode(f"file:///tmp/t?{QUERY}&partition-num=1", [RowChangedEvent(1 << 20, "s", "t", (key, *columns), None)])[0]
    return json.loads(boot.value)["tableSchema"]["columns"]


def test_the_reading_table_has_every_column_the_encoder_writes():
    table = reading_table()
    for col in _bootstrap_columns():
        dt = col["dataType"]
        key = f"{dt['mysqlType']}/{int(dt.get('unsigned') is True)}/{int(dt['charset'] == 'binary')}"
        assert key in table, key
    assert table["bigint/1/1"]["rule"] == "int" and table["varchar/0/1"]["rule"] == "base64"
    assert table["varchar/0/0"]["rule"] == "text" and table["timestamp/0/1"]["rule"] == "timestamp"


def test_each_rule_named_is_the_one_the_python_decoder_reads_with():
    probes = {"int": "-12", "float32": "0.1", "double": "0.1", "base64": "YWI=", "text": "x",
              "timestamp": {"location": "UTC", "value": "2020-01-01 00:00:00"}}
    expected = {"int": -12, "float32": json_values.float32_of(0.1), "double": 0.1, "base64": b"ab", "text": "x",
                "timestamp": "2020-01-01 00:00:00"}
    from cdcwire.plugin_api import ColumnType

    for key, reading in reading_table().items():
        reader = json_values.reader_of(ColumnType[reading["type"]], ColumnFlag(reading["flags"]))
        assert reader(probes[reading["rule"]]) == expected[reading["rule"]], key


def test_the_decoders_configuration_is_its_reading_table_and_the_flags():
    config = decoder_config(open_sink(f"file:///tmp/t?{QUERY}").config)
    assert config["readings"] == reading_table()
    assert config["flags"]["HANDLE_KEY"] == int(ColumnFlag.HANDLE_KEY)
