"""simple's JVM tier (plugin API 1.10): its Java decoder (``jvm/``, package
``io.cdcwire.simple``, compiled by the core with its JVM framework, whose public classes it
uses) and the glue that configures it (:mod:`.jvm_reading`). Messages are encoded in Python.

simple decodes with state (``stateful_decoding``): the core runs one Java decoder per
partition over its messages in order, and one Python decoder over the pending ones. Java
learns a table schema only from a BOOTSTRAP it reads whole as the Python decoder does, and
forgets every schema at any other message that may change the Python decoder's (a DDL, or
one it cannot read), so it never types a row the Python decoder would hold or refuse."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.simple.SimpleDecoder",
    decoder_config=jvm_reading.decoder_config,
    decoder_refusal=jvm_reading.refusal,
)
