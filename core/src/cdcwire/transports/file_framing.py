"""The file transport's record framing: one file per topic-partition.

A file starts with the 8-byte magic ``CDCWIRE1``; then records, each::

    u32 BE key length   (0xFFFFFFFF = no key)
    u32 BE value length (0xFFFFFFFF = no value)
    u32 BE CRC-32 of the two lengths' 8 bytes + key bytes + value bytes
    key bytes, value bytes

A record's offset is its 0-based index in the file, like a Kafka offset. The CRC
covers the lengths too, so "no key" and "empty key" cannot be confused by a flip.
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO, Iterator, Optional

from ..errors import TransportError

MAGIC = b"CDCWIRE1"
NONE_LEN = 0xFFFFFFFF
_HEAD = struct.Struct(">III")
_LENGTHS = struct.Struct(">II")


def frame(key: Optional[bytes], value: Optional[bytes]) -> bytes:
    k = key or b""
    v = value or b""
    lengths = _LENGTHS.pack(NONE_LEN if key is None else len(k), NONE_LEN if value is None else len(v))
    crc = zlib.crc32(v, zlib.crc32(k, zlib.crc32(lengths)))
    return lengths + crc.to_bytes(4, "big") + k + v


def intact_length(f: BinaryIO, size: int) -> int:
    """Bytes of ``f`` (``size`` long) up to the end of its last whole record.

    Less than ``size`` only when the file ends inside a record: the tail of a write that
    died before it finished, which was never acknowledged. Walks the headers with seeks,
    so a large file costs one read per record header, not a read of every value.
    """
    if size < len(MAGIC):
        return 0
    pos = len(MAGIC)
    while pos + _HEAD.size <= size:
        f.seek(pos)
        klen, vlen, _ = _HEAD.unpack(f.read(_HEAD.size))
        end = pos + _HEAD.size + (0 if klen == NONE_LEN else klen) + (0 if vlen == NONE_LEN else vlen)
        if end > size:
            break
        pos = end
    return pos


def read_frames(f: BinaryIO, name: str) -> Iterator[tuple[int, Optional[bytes], Optional[bytes]]]:
    """Yield (offset, key, value); a torn or corrupt record raises TransportError with its place."""
    head = f.read(len(MAGIC))
    if head != MAGIC:
        raise TransportError(f"{name}: not a cdcwire message file (bad magic {head!r})")
    offset = 0
    pos = len(MAGIC)
    while True:
        h = f.read(_HEAD.size)
        if not h:
            return
        if len(h) < _HEAD.size:
            raise TransportError(f"{name}: record {offset} at byte {pos} is truncated (header)")
        klen, vlen, crc = _HEAD.unpack(h)
        kn = 0 if klen == NONE_LEN else klen
        vn = 0 if vlen == NONE_LEN else vlen
        body = f.read(kn + vn)
        if len(body) < kn + vn:
            raise TransportError(f"{name}: record {offset} at byte {pos} is truncated (body)")
        if zlib.crc32(body, zlib.crc32(h[: _LENGTHS.size])) != crc:
            raise TransportError(f"{name}: record {offset} at byte {pos} fails its CRC check")
        key = None if klen == NONE_LEN else body[:kn]
        value = None if vlen == NONE_LEN else body[kn:]
        yield offset, key, value
        offset += 1
        pos += _HEAD.size + kn + vn
