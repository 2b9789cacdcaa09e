"""A codec's JVM tier as the core runs it: the plugin's declaration (``Codec.jvm``, a
:class:`cdcwire.contract.jvm_codec.JvmCodec`), whether it serves a sink, and the one
configuration text its Java class is made with.

The plugin's glue gives what is its format's (a dict); the core adds what is the core's, the
record checks' tables (the caller passes :func:`cdcwire.spark.rows.record_checks.java_check_tables`,
read in Java by ``CheckTables``), so no plugin writes them twice.
"""

from __future__ import annotations

import json
from typing import Optional

from ...contract.jvm_codec import JvmCodec
from ...sinks.sink import Sink


def declared(sink: Sink) -> Optional[JvmCodec]:
    """The sink's codec's JVM tier, or None when its plugin ships none."""
    return getattr(type(sink.codec), "jvm", None)


def decoder_refusal(sink: Sink) -> Optional[str]:
    """Why no Java decoder reads the sink's messages, or None when the plugin's does."""
    jvm = declared(sink)
    if jvm is None or jvm.decoder is None:
        return f"no Java decoder for protocol {sink.codec.name!r}"
    return jvm.decoder_refusal(sink.config)


def encoder_refusal(sink: Sink) -> Optional[str]:
    """Why no Java encoder makes the sink's messages, or None when the plugin's does."""
    jvm = declared(sink)
    if jvm is None or encoder_class(jvm) is None:
        return f"no Java encoder for protocol {sink.codec.name!r}"
    return jvm.encoder_refusal(sink.config)


def encoder_class(jvm: JvmCodec) -> Optional[str]:
    """The Java encoder class a JVM tier declares: its ``MessageEncoder``, else its ``BatchEncoder``."""
    return jvm.encoder or jvm.batch_encoder


def decoder_config(sink: Sink, checks: dict) -> str:
    """The configuration text of the sink's Java decoder: the plugin's part and the checks' tables."""
    return json.dumps({**declared(sink).decoder_config(sink.config), **checks}, sort_keys=True)


def encoder_config(sink: Sink, checks: dict) -> str:
    """The configuration text of the sink's Java encoder: the plugin's part and the checks' tables."""
    return json.dumps({**declared(sink).encoder_config(sink.config), **checks}, sort_keys=True)
