"""debezium's JVM tier (plugin API 1.13): its Java decoder and batch encoder (``jvm/``, package
``io.cdcwire.debezium``, compiled by the core with its JVM framework, whose public classes they
use) and the glue that configures them (:mod:`.jvm_reading`, :mod:`.jvm_writing`)."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading, jvm_writing

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.debezium.DebeziumDecoder",
    batch_encoder="io.cdcwire.debezium.DebeziumBatchEncoder",
    decoder_config=jvm_reading.decoder_config,
    decoder_refusal=jvm_reading.refusal,
    encoder_config=jvm_writing.encoder_config,
    encoder_refusal=jvm_writing.refusal,
)
