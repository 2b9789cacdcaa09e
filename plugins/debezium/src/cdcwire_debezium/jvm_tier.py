"""debezium's JVM tier (plugin API 1.13): its Java decoder and batch encoder (``jvm/``, package
``io.cdcwire.debezium``, compiled by the core with its JVM framework, whose public classes they
use; the encoder makes DDL messages too, 1.17) and the glue that configures them
(:mod:`.jvm_reading`, :mod:`.jvm_writing`, :mod:`.jvm_ddl`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cdcwire.plugin_api import JvmCodec, SinkConfig

from . import jvm_ddl, jvm_reading, jvm_writing
from .options import DebeziumOptions


def encoder_config(config: SinkConfig) -> dict[str, Any]:
    """The encoder's configuration: its rows' and watermark's texts, and its DDLs' (None: Python's)."""
    return {**jvm_writing.encoder_config(config), "ddl": jvm_ddl.ddl_texts(DebeziumOptions.from_config(config))}


JVM = JvmCodec(
    sources=Path(__file__).parent / "jvm",
    decoder="io.cdcwire.debezium.DebeziumDecoder",
    batch_encoder="io.cdcwire.debezium.DebeziumBatchEncoder",
    decoder_config=jvm_reading.decoder_config,
    decoder_refusal=jvm_reading.refusal,
    encoder_config=encoder_config,
    encoder_refusal=jvm_writing.refusal,
)
