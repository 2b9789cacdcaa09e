"""simple's JVM tier: its Java decoder (plugin API 1.10) and batch encoder (1.17: a BOOTSTRAP is a
message of no event), in ``jvm/`` (package ``io.cdcwire.simple``, compiled by the core with its JVM
framework, whose public classes they use), and the glue that configures them
(:mod:`.jvm_reading`, :mod:`.jvm_writing`).

simple decodes with state (``stateful_decoding``): the core runs one Java decoder per
partition over its messages in order, and one Python decoder over the pending ones. Java
learns a table schema only from a BOOTSTRAP it reads whole as the Python decoder does, and
forgets every schema at any other message that may change the Python decoder's (a DDL, or
one it cannot read), so it never types a row the Python decoder would hold or refuse.

It encodes with state too (each table's schema version and BOOTSTRAP schedule): Java encodes a
topic-partition whole or leaves it whole to the Python encoder (see :mod:`.jvm_writing`)."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading, jvm_writing

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.simple.SimpleDecoder",
    batch_encoder="io.cdcwire.simple.SimpleBatchEncoder",
    decoder_config=jvm_reading.decoder_config,
    encoder_config=jvm_writing.encoder_config,
    decoder_refusal=jvm_reading.refusal,
    encoder_refusal=jvm_writing.refusal,
)
