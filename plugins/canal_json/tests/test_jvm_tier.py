"""canal-json's JVM tier, declared through the plugin API (``Codec.jvm``, plugin API 1.10)."""

from __future__ import annotations

from cdcwire.plugin_api import JvmCodec
from cdcwire.sinks.sink import open_sink
from cdcwire_canal_json.codec import CanalJSONCodec


def test_the_codec_declares_java_classes_its_own_sources_define():
    jvm = CanalJSONCodec.jvm
    assert isinstance(jvm, JvmCodec)
    for name in (jvm.decoder, jvm.encoder):
        source = jvm.sources.joinpath(*name.split(".")).with_suffix(".java")
        assert f"class {name.rsplit('.', 1)[1]} implements Message" in source.read_text(encoding="utf-8")


def test_its_sources_are_among_those_the_core_compiles():
    from cdcwire.spark.jvm.jar import source_roots

    assert CanalJSONCodec.jvm.sources in source_roots()


def test_settings_the_java_tier_leaves_to_python_are_refused_in_one_line():
    jvm = CanalJSONCodec.jvm
    config = open_sink("file:///tmp/t?protocol=canal-json&content-compatible=true").config
    assert jvm.decoder_refusal(config) == "canal-json's content-compatible is decoded in Python only"
    assert jvm.encoder_refusal(config) == "canal-json's content-compatible is encoded in Python only"
    assert jvm.encoder_refusal(open_sink("file:///tmp/t?protocol=canal-json").config) is None
