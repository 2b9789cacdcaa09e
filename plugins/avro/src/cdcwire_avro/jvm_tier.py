"""avro's JVM tier (plugin API 1.10): its Java decoder (``jvm/``, package ``io.cdcwire.avro``,
compiled by the core with its JVM framework, whose public classes it uses, and Apache Avro's
Java library from PySpark's jars) and the glue that configures it (:mod:`.jvm_reading`: the
registry's schemas and a field table per schema id, fetched and derived once on the driver).
Messages are encoded in Python: the encoder registers schemas as it goes."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.avro.AvroDecoder",
    decoder_config=jvm_reading.decoder_config,
)
