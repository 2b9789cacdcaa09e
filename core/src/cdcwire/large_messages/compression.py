"""``large-message-handle-compression``: every message value compressed, as the reference does.

The reference compresses each value (not only large ones) before it checks
``max-message-bytes``, with Go's ``snappy.Encode`` (the block format, no framing) or
``lz4.NewWriter`` (the frame format). Its decoders decompress every value with the codec
the consumer is configured with: nothing in a message says which was used. cramjam has
both codecs in one wheel.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..extras import extra_required

#: The parameter's choices.
NAMES = ("none", "snappy", "lz4")


class DecompressionFailed(ValueError):
    """A value that the configured codec cannot decompress (the codec's own words in it)."""


@dataclass(frozen=True, slots=True)
class Compression:
    """One codec by name; ``none`` passes values through untouched."""

    name: str = "none"

    def __post_init__(self) -> None:
        if self.name not in NAMES:
            raise ValueError(f"unknown large-message-handle-compression {self.name!r}: one of {', '.join(NAMES)}")

    @property
    def enabled(self) -> bool:
        return self.name != "none"

    def compress(self, data: bytes) -> bytes:
        if self.name == "none":
            return data
        cramjam = _cramjam()
        if self.name == "snappy":
            return bytes(cramjam.snappy.compress_raw(data))
        return bytes(cramjam.lz4.compress(data))

    def decompress(self, data: bytes) -> bytes:
        """The original bytes, or DecompressionFailed saying what the codec found wrong."""
        if self.name == "none":
            return data
        cramjam = _cramjam()
        try:
            if self.name == "snappy":
                return bytes(cramjam.snappy.decompress_raw(data))
            return bytes(cramjam.lz4.decompress(data))
        except cramjam.DecompressionError as exc:
            raise DecompressionFailed(f"not {self.name}-compressed data as the sink's"
                                      f" large-message-handle-compression={self.name} says: {exc}") from None


def _cramjam():
    with extra_required("compression", f"large-message-handle-compression"):
        import cramjam
    return cramjam
