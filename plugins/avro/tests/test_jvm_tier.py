"""avro's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.10): a Java
decoder in a package of its own, using only the framework's public classes and Apache Avro's
Java library."""

from __future__ import annotations

from cdcwire.plugin_api import JvmCodec
from cdcwire_avro.codec import AvroCodec
from cdcwire_avro.plugin import cdcwire_plugin_api


def test_the_codec_declares_a_java_decoder_its_own_sources_define():
    jvm = AvroCodec.jvm
    assert isinstance(jvm, JvmCodec)
    assert jvm.encoder is None  # messages are encoded in Python: schemas are registered as they go
    source = jvm.sources.joinpath(*jvm.decoder.split(".")).with_suffix(".java")
    assert "public final class AvroDecoder implements MessageDecoder" in source.read_text(encoding="utf-8")


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
    assert (major, minor) >= (1, 10)
