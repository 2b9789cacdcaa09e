"""debezium's JVM tier (plugin API 1.10): its Java decoder (``jvm/``, package
``io.cdcwire.debezium``, compiled by the core with its JVM framework, whose public classes it
uses) and the glue that configures it (:mod:`.jvm_reading`). Messages are encoded in Python."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.debezium.DebeziumDecoder",
    decoder_config=jvm_reading.decoder_config,
    decoder_refusal=jvm_reading.refusal,
)
