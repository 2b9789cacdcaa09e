"""The reference's "position-inertia" hash.

Each ``write`` CRC-32s the concatenation of its arguments and XORs the result
into the running value; XOR makes the result independent of column order.
"""

from __future__ import annotations

import zlib


class PositionInertiaHash:
    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0

    def write(self, *parts: bytes) -> "PositionInertiaHash":
        crc = 0
        for part in parts:
            crc = zlib.crc32(part, crc)
        self.value ^= crc
        return self

    def partition(self, partition_num: int) -> int:
        return self.value % partition_num
