"""canal-json's JVM tier (plugin API 1.10): its Java classes (``jvm/``, compiled by the core
with its JVM framework) and the glue that configures them (:mod:`.jvm_reading`, :mod:`.jvm_writing`)."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading, jvm_writing

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.canaljson.CanalJsonDecoder",
    encoder="io.cdcwire.canaljson.CanalJsonEncoder",
    decoder_config=jvm_reading.decoder_config,
    encoder_config=jvm_writing.encoder_config,
    decoder_refusal=jvm_reading.refusal,
    encoder_refusal=jvm_writing.refusal,
)
