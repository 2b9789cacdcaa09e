"""The one place the core asks a codec for an encoder or a decoder.

Every path that encodes or decodes (``cdcwire.encode``/``decode``, the CLI, the Spark
stages, the data source) goes through these two functions, so what the core promises
about every codec, built-in or third-party, is kept here once: an encoder is only
given valid events, and a decoder only gives valid events (or a ``DecodeError``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .codec import Decoder, Encoder

if TYPE_CHECKING:
    from .sink_uri import SinkConfig


def encoder_for(config: SinkConfig, topic: str, partition: int) -> Encoder:
    """The codec's encoder for one topic-partition of this sink."""
    return config.codec.encoder(config, topic, partition)


def decoder_for(config: SinkConfig) -> Decoder:
    """The codec's decoder for this sink's messages."""
    return config.codec.decoder(config)
