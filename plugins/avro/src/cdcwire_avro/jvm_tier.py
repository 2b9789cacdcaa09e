"""avro's JVM tier: its Java decoder (plugin API 1.10) and batch encoder (1.13) (``jvm/``, package
``io.cdcwire.avro``, compiled by the core with its JVM framework, whose public classes they use,
and Apache Avro's Java library from PySpark's jars), and the glue that configures them
(:mod:`.jvm_reading`: the registry's schemas and a field table per schema id, fetched and derived
once on the driver; :mod:`.jvm_writing`: the field texts and value rules probed from the encoder).
Java registers the schemas it writes with the registry itself, as the Python encoder does."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading, jvm_writing

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.avro.AvroDecoder",
    batch_encoder="io.cdcwire.avro.AvroBatchEncoder",
    decoder_config=jvm_reading.decoder_config,
    encoder_config=jvm_writing.encoder_config,
    encoder_refusal=jvm_writing.refusal,
)
