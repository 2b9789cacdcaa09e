"""open-protocol's JVM tier (plugin API 1.12): its Java decoder (``jvm/``, package
``io.cdcwire.open``, compiled by the core with its JVM framework, whose public classes it uses;
``MessageDecoder.readAll`` gives the several events a message packs) and the glue that
configures it (:mod:`.jvm_reading`). Messages are encoded in Python."""

from __future__ import annotations

from pathlib import Path

from cdcwire.plugin_api import JvmCodec

from . import jvm_reading

JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.open.OpenDecoder",
    decoder_config=jvm_reading.decoder_config,
    decoder_refusal=jvm_reading.refusal,
)
