"""open-protocol's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.12 and
1.13): a Java decoder and batch encoder in a package of their own, using only the framework's
public classes, configured with the value readers and writers its glue probes from the installed
Python decoder and encoder."""

from __future__ import annotations

import json

import cdcwire
from cdcwire.plugin_api import ColumnFlag, ColumnType, JvmCodec
from cdcwire.sinks.sink import open_sink
from cdcwire.testing.strategies import all_types_table
from cdcwire_open import plugin
from cdcwire_open.codec import OpenProtocolCodec
from cdcwire_open.jvm_reading import decoder_config, flag_bits, reading_table

QUERY = "protocol=open-protocol"


def test_the_codec_declares_a_java_decoder_its_own_sources_define():
    jvm = OpenProtocolCodec.jvm
    assert isinstance(jvm, JvmCodec)
    assert jvm.encoder is None  # not one message a row: a BatchEncoder packs several
    source = jvm.sources.joinpath(*jvm.decoder.split(".")).with_suffix(".java")
    text = source.read_text(encoding="utf-8")
    assert "public final class OpenDecoder implements MessageDecoder" in text
    assert "public Object[][] readAll(byte[] key, byte[] value)" in text  # a message packs several events


def test_its_java_lives_in_its_own_package_not_the_frameworks():
    paths = list(OpenProtocolCodec.jvm.sources.rglob("*.java"))
    assert len(paths) >= 3
    for path in paths:
        assert path.read_text(encoding="utf-8").startswith("package io.cdcwire.open;"), path


def test_its_sources_are_among_those_the_core_compiles():
    from cdcwire.spark.jvm.jar import source_roots

    assert OpenProtocolCodec.jvm.sources in source_roots()


def test_the_codec_declares_a_java_batch_encoder_its_own_sources_define():
    jvm = OpenProtocolCodec.jvm
    source = jvm.sources.joinpath(*jvm.batch_encoder.split(".")).with_suffix(".java")
    assert "public final class OpenBatchEncoder implements BatchEncoder" in source.read_text(encoding="utf-8")


def test_it_declares_the_plugin_api_that_gave_batch_encoders():
    assert plugin.cdcwire_plugin_api == "1.17"  # BatchEncoder.ddl (1.14: ColumnEntry.sparkColumn; 1.13: BatchEncoder)


def test_compression_and_claim_check_are_encoded_in_python_and_every_other_setting_in_java():
    jvm = OpenProtocolCodec.jvm
    compressed = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=lz4").config
    assert jvm.encoder_refusal(compressed) == "open-protocol's large-message compression is encoded in Python only"
    claim = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-option=claim-check&claim-check-storage-uri=file:///tmp/cc")
    assert jvm.encoder_refusal(claim.config) == "open-protocol's claim-check is encoded in Python only"
    for query in (QUERY, "protocol=default&max-batch-size=1", f"{QUERY}&enable-old-value=false",
                  f"{QUERY}&large-message-handle-option=handle-key-only", f"{QUERY}&only-output-updated-columns=true"):
        assert jvm.encoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_the_writing_table_gives_each_type_the_python_encoders_writer():
    from cdcwire_open import column_values as cv
    from cdcwire_open.jvm_writing import type_table

    table = type_table()
    assert table["VARCHAR"] == {"code": int(ColumnType.VARCHAR), "rules": ["text", "quoted"]}
    assert table["BLOB"]["rules"] == ["base64", "base64"]
    assert table["FLOAT"]["rules"] == ["float32", "float32"] and table["DOUBLE"]["rules"] == ["double", "double"]
    assert table["GEOMETRY"]["rules"] == [None, None]  # the encoder refuses its values: Python says so
    for name, entry in table.items():
        for binary, rule in zip((False, True), entry["rules"]):
            assert (rule is None) == (cv.value_writer(entry["code"], binary) in (cv._write_null_type,)
                                      or cv.value_writer(entry["code"], binary).__name__ == "write"), name


def test_the_escapes_java_writes_in_binary_strings_are_go_quotes_for_every_character():
    from cdcwire_open.go_quote import go_quote
    from cdcwire_open.jvm_writing import escaped_ranges

    ranges = escaped_ranges()
    escaped = lambda code: any(a <= code <= b for a, b in ranges)
    for code in (0x80, 0xA0, 0xAD, 0xE9, 0x378, 0x5CB, 0x870, 0x4E2D, 0xE000, 0xFDD0, 0xFFFD, 0x1F418, 0xD9E06, 0x10FFFF):
        text = chr(code)
        assert escaped(code) == (go_quote(text.encode()) != text), hex(code)


def test_compression_is_refused_in_one_line_and_every_other_setting_is_served():
    jvm = OpenProtocolCodec.jvm
    compressed = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=lz4").config
    assert jvm.decoder_refusal(compressed) == "open-protocol's large-message compression is decoded in Python only"
    for query in (QUERY, "protocol=default&max-batch-size=1", f"{QUERY}&enable-old-value=false",
                  f"{QUERY}&large-message-handle-option=handle-key-only",
                  f"{QUERY}&large-message-handle-option=claim-check&claim-check-storage-uri=file:///tmp/cc"):
        assert jvm.decoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_the_reading_table_reads_every_type_code_the_encoder_writes_with_its_binary_flag():
    uri = f"file:///tmp/t?{QUERY}"
    spec = all_types_table()
    key = cdcwire.Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")
    columns = [cdcwire.Column(f"c_{k.label}", k.type, spec.flags(i), None, k.mysql_type) for i, k in enumerate(spec.kinds)]
    (message,) = cdcwire.encode(uri, [cdcwire.RowChangedEvent(1 << 20, spec.schema, spec.table, (key, *columns), None)])
    value = message.value[8:]
    written = {(c["t"], int(bool(c.get("f", 0) & ColumnFlag.BINARY))) for c in json.loads(value)["u"].values()}
    table = reading_table()
    assert written and all(table[str(t)][binary] is not None for t, binary in written)


def test_the_readers_are_the_python_decoders_own():
    table = reading_table()
    assert table[str(int(ColumnType.VARCHAR))] == [{"rule": "text", "type": "VARCHAR"}, {"rule": "quoted", "type": "VARCHAR"}]
    assert table[str(int(ColumnType.BLOB))] == [{"rule": "base64text", "type": "BLOB"}, {"rule": "base64", "type": "BLOB"}]
    assert table[str(int(ColumnType.FLOAT))][0] == {"rule": "float32", "type": "FLOAT"}
    assert str(int(ColumnType.NULL)) not in table  # a NULL-type column is left to Python
    assert flag_bits() == {"binary": int(ColumnFlag.BINARY), "handle_key": int(ColumnFlag.HANDLE_KEY)}


def test_the_decoders_configuration_is_its_reading_table_and_flag_bits():
    config = decoder_config(open_sink(f"file:///tmp/t?{QUERY}").config)
    assert config == {"readings": reading_table(), "flags": flag_bits()}
