"""A codec's JVM tier (plugin API 1.10): the Java a plugin ships so Spark reads and writes its
messages in the JVM, and the Python glue that configures it.

The core's Java is the framework (routing, the decode pass that is sure of a message or leaves
it pending, the hand-over of pending messages to the plugin's Python decoder, the last pass
that places each message's events, the record checks); a plugin's Java is only its format:
classes implementing ``io.cdcwire.spark.MessageDecoder`` and/or ``MessageEncoder``, each with
a public constructor taking one configuration text. The core compiles the plugin's sources
with its own, caches the jar by their combined hash, and puts it on the session's classpath.
The plugin's Python codec stays the reference: whatever Java returns null for is done in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from ..uris.sink_uri import SinkConfig


@dataclass(frozen=True)
class JvmCodec:
    """Set as a codec's ``jvm`` class attribute.

    ``sources``: the directory of the plugin's ``.java`` files (shipped in its package).
    ``decoder`` / ``encoder``: the fully qualified names of its ``MessageDecoder`` /
    ``MessageEncoder`` classes (None: no JVM tier that way). ``batch_encoder`` (1.13): instead of
    ``encoder``, the name of a ``BatchEncoder`` class, for a format that packs several events into
    one message (the core places each message on its last event's row). ``decoder_config`` /
    ``encoder_config``: the JSON-able dict its class is made with, for a sink's configuration
    (the core adds the record checks' tables at its root). ``decoder_refusal`` /
    ``encoder_refusal``: why the JVM tier cannot serve a configuration (one line), or None.
    """

    sources: Path
    decoder: Optional[str] = None
    encoder: Optional[str] = None
    batch_encoder: Optional[str] = None
    decoder_config: Callable[[SinkConfig], dict[str, Any]] = lambda config: {}
    encoder_config: Callable[[SinkConfig], dict[str, Any]] = lambda config: {}
    decoder_refusal: Callable[[SinkConfig], Optional[str]] = lambda config: None
    encoder_refusal: Callable[[SinkConfig], Optional[str]] = lambda config: None
