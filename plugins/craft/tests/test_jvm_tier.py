"""craft's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.12 and 1.13): a
Java decoder and batch encoder in a package of their own, using only the framework's public
classes, configured with tables probed from the installed Python decoder and encoder."""

from __future__ import annotations

from cdcwire import ColumnFlag, ColumnType
from cdcwire.plugin_api import JvmCodec
from cdcwire.sinks.sink import open_sink
from cdcwire_craft import plugin
from cdcwire_craft.codec import CraftCodec
from cdcwire_craft.column_values import value_kind
from cdcwire_craft.jvm_reading import FLAG_MASK, decoder_config, reading_table


def test_the_codec_declares_a_java_decoder_its_own_sources_define():
    jvm = CraftCodec.jvm
    assert isinstance(jvm, JvmCodec)
    assert jvm.encoder is None  # not one message a row: a BatchEncoder packs several
    source = jvm.sources.joinpath(*jvm.decoder.split(".")).with_suffix(".java")
    assert "public final class CraftDecoder implements MessageDecoder" in source.read_text(encoding="utf-8")


def test_its_java_lives_in_its_own_package_not_the_frameworks():
    paths = list(CraftCodec.jvm.sources.rglob("*.java"))
    assert paths
    for path in paths:
        assert path.read_text(encoding="utf-8").startswith("package io.cdcwire.craft;"), path


def test_its_sources_are_among_those_the_core_compiles():
    from cdcwire.spark.jvm.jar import source_roots

    assert CraftCodec.jvm.sources in source_roots()


def test_the_codec_declares_a_java_batch_encoder_its_own_sources_define():
    jvm = CraftCodec.jvm
    source = jvm.sources.joinpath(*jvm.batch_encoder.split(".")).with_suffix(".java")
    assert "public final class CraftBatchEncoder implements BatchEncoder" in source.read_text(encoding="utf-8")


def test_the_plugin_declares_the_api_of_batch_encoders():
    assert plugin.cdcwire_plugin_api == "1.17"  # BatchEncoder.ddl (1.14: ColumnEntry.sparkColumn; 1.13: BatchEncoder; 1.12: readAll)


def test_the_kind_table_gives_each_type_and_flags_the_python_encoders_value_kind():
    from cdcwire_craft.jvm_writing import kind_table

    table = kind_table()
    binary, unsigned = int(ColumnFlag.BINARY), int(ColumnFlag.UNSIGNED)
    for t in ColumnType:
        for flags in range(1 << 12):  # any other flag bit leaves the kind as it is
            index = (1 if flags & binary else 0) + (2 if flags & unsigned else 0)
            assert table[t.name]["kinds"][index] == value_kind(int(t), flags).name, (t, flags)


def test_every_setting_is_encoded_by_the_java_tier():
    jvm = CraftCodec.jvm
    for query in ("protocol=craft", "protocol=craft&max-batch-size=1",
                  "protocol=craft&delete-only-output-handle-key-columns=true&max-message-bytes=4096"):
        assert jvm.encoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_every_setting_is_served_by_the_java_tier():
    jvm = CraftCodec.jvm
    for query in ("protocol=craft", "protocol=craft&max-batch-size=1",
                  "protocol=craft&delete-only-output-handle-key-columns=true&max-message-bytes=4096"):
        assert jvm.decoder_refusal(open_sink(f"file:///tmp/t?{query}").config) is None


def test_the_reading_table_has_every_type_craft_carries_with_the_decoders_rules():
    table = reading_table()
    carried = set()
    for ctype in ColumnType:
        try:
            value_kind(ctype, 0)
        except Exception:  # a type craft cannot write
            continue
        carried.add(str(int(ctype)))
    assert carried and carried <= set(table)
    assert table[str(int(ColumnType.VARCHAR))] == {"type": "VARCHAR", "rules": ["utf8", "bytes", "utf8", "bytes"]}
    assert table[str(int(ColumnType.BIGINT))]["rules"] == ["zigzag", "zigzag", "uvarint", "uvarint"]
    assert table[str(int(ColumnType.FLOAT))]["rules"] == ["float32"] * 4
    assert table[str(int(ColumnType.GEOMETRY))]["rules"] == ["null"] * 4


def test_a_column_may_carry_every_flag_bit_and_no_other():
    assert FLAG_MASK == sum(int(f) for f in ColumnFlag) == 0xFF


def test_the_decoders_configuration_is_its_reading_table_and_flag_bits():
    config = decoder_config(open_sink("file:///tmp/t?protocol=craft").config)
    assert config == {"readings": reading_table(), "flag_mask": FLAG_MASK}
