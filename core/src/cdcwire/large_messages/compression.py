"""``large-message-handle-compression``: every message value compressed, as the reference does.

The reference compresses each value (not only large ones) before it checks
``max-message-bytes``, with Go's ``snappy.Encode`` (the block format, no framing) or
``lz4.NewWriter`` (the frame format). Its decoders decompress every value with the codec
the consumer is configured with: nothing in a message says which was used. cramjam has
both codecs in one wheel.

A reader bounds what one value may decompress to (``max-decompressed-bytes``, 64 MiB by
default): a few megabytes of compressed zeros would otherwise become gigabytes in memory
before anything looks at them. A snappy block starts with its uncompressed length: a value
saying more than the bound is refused before it is decompressed. An lz4 frame is a series
of blocks, each of at most the frame's block size: a value whose blocks cannot hold more
than the bound is decompressed as is; any other is decompressed into a buffer of the
bound's size, and refused when it does not fit.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..foundation.extras import extra_required
from ..foundation.params import MAX_DECOMPRESSED_BYTES

#: The parameter's choices.
NAMES = ("none", "snappy", "lz4")
#: ``max-decompressed-bytes``' default (64 MiB): the most one value may decompress to.
DEFAULT_DECOMPRESSED_LIMIT: int = MAX_DECOMPRESSED_BYTES.default

_LZ4_MAGIC = 0x184D2204
_LZ4_BLOCK_SIZES = {4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20}


class DecompressionFailed(ValueError):
    """A value that the configured codec cannot decompress (the codec's own words in it)."""


@dataclass(frozen=True, slots=True)
class Compression:
    """One codec by name; ``none`` passes values through untouched. ``limit``: the most bytes
    one value may decompress to (``max-decompressed-bytes``)."""

    name: str = "none"
    limit: int = DEFAULT_DECOMPRESSED_LIMIT

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
        """The original bytes, or DecompressionFailed saying what the codec found wrong or that
        they would be more than ``limit`` (refused before any of it is decompressed)."""
        if self.name == "none":
            return data
        cramjam = _cramjam()
        try:
            if self.name == "snappy":
                declared = cramjam.snappy.decompress_raw_len(data)
                if declared > self.limit:
                    raise self._too_large(f"its header says it holds {declared} bytes")
                return bytes(cramjam.snappy.decompress_raw(data))
            if _lz4_frame_bound(data, self.limit) <= self.limit:
                return bytes(cramjam.lz4.decompress(data))
            return self._lz4_capped(cramjam, data)
        except cramjam.DecompressionError as exc:
            raise DecompressionFailed(f"not {self.name}-compressed data as the sink's"
                                      f" large-message-handle-compression={self.name} says: {exc}") from None

    def _lz4_capped(self, cramjam, data: bytes) -> bytes:
        """An lz4 value whose blocks could hold more than the limit: decompressed into a buffer
        of the limit's size, and refused when it does not fit (the codec stops there)."""
        out = bytearray(self.limit)
        try:
            size = cramjam.lz4.decompress_into(data, out)
        except cramjam.DecompressionError as exc:
            if "failed to write whole buffer" in str(exc):
                raise self._too_large("it holds more") from None
            raise
        del out[size:]
        return bytes(out)

    def _too_large(self, why: str) -> DecompressionFailed:
        return DecompressionFailed(
            f"the {self.name}-compressed value is larger than max-decompressed-bytes={self.limit}"
            f" decompressed ({why}): refused, with no more than that decompressed (raise"
            " max-decompressed-bytes if such values are expected)"
        )


def _lz4_frame_bound(data: bytes, limit: int) -> int:
    """The most the lz4 frames in ``data`` can decompress to, from their headers and block
    sizes alone (an uncompressed block counts its own size); the scan stops once it is past
    ``limit``. Bytes that are not a frame count 0: the codec then says what is wrong."""
    view = memoryview(data)
    end, at, bound = len(view), 0, 0
    while at + 7 <= end and bound <= limit:
        magic = int.from_bytes(view[at:at + 4], "little")
        if 0x184D2A50 <= magic <= 0x184D2A5F:  # a skippable frame: its length, then that many bytes
            at += 8 + int.from_bytes(view[at + 4:at + 8], "little")
            continue
        if magic != _LZ4_MAGIC:
            break
        flags, block_code = view[at + 4], (view[at + 5] >> 4) & 7
        block_size = _LZ4_BLOCK_SIZES.get(block_code)
        if block_size is None:
            break
        at += 7 + (8 if flags & 0x08 else 0) + (4 if flags & 0x01 else 0)  # content size, dictionary id
        checksum = 4 if flags & 0x10 else 0
        while at + 4 <= end and bound <= limit:
            word = int.from_bytes(view[at:at + 4], "little")
            at += 4
            if word == 0:  # the end mark, then the content checksum if any
                at += 4 if flags & 0x04 else 0
                break
            size = word & 0x7FFFFFFF
            bound += size if word & 0x80000000 else block_size
            at += size + checksum
    return bound


def _cramjam():
    with extra_required("compression", f"large-message-handle-compression"):
        import cramjam
    return cramjam
