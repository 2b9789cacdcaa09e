"""open-protocol's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.12): a
Java decoder in a package of its own, using only the framework's public classes, configured
with the value readers its glue probes from the installed Python decoder."""

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
    assert jvm.encoder is None  # messages are encoded in Python
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


def test_it_declares_the_plugin_api_that_gave_message_decoders_read_all():
    from cdcwire.contract.api_version import PLUGIN_API_VERSION

    assert plugin.cdcwire_plugin_api == "1.12" == PLUGIN_API_VERSION


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
