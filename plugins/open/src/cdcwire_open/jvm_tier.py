"""open-protocol's JVM tier (plugin API 1.13): its Java decoder and batch encoder (``jvm/``,
package ``io.cdcwire.open``, compiled by the core with its JVM framework, whose public classes
they use; ``MessageDecoder.readAll`` gives the several events a message packs, ``BatchEncoder``
makes them) and the glue that configures them (:mod:`.jvm_reading`, :mod:`.jvm_writing`)."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading, jvm_writing

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.open.OpenDecoder",
    batch_encoder="io.cdcwire.open.OpenBatchEncoder",
    decoder_config=jvm_reading.decoder_config,
    encoder_config=jvm_writing.encoder_config,
    decoder_refusal=jvm_reading.refusal,
    encoder_refusal=jvm_writing.refusal,
)
