"""Craft's primitive encodings: varints, chunks, and a bounds-checked reader.

Encoders return ``bytes`` so callers can cache and concatenate them; the
:class:`Reader` never reads past the end of its region and reports every
problem as :class:`cdcwire.DecodeError` with the absolute byte offset.

Layouts (spec "Primitive types" and "Chunk of primitive types"):

* uvarint: 7 bits a byte, least significant group first, high bit = more follows.
* varint: zigzag (``(n << 1) ^ (n >> 63)``) then uvarint.
* reversed uvarint: the uvarint's bytes in reverse order (most significant group
  first), so a reader walking backwards from the end of a message finds it.
* delta chunks: the first value whole, then each difference to the previous one
  (uint64 / int64 wrap-around arithmetic, as the reference's Go code does).
* string chunk: all lengths (uvarint), then all bytes.
* nullable bytes chunk: all lengths (varint, -1 = NULL), then all bytes.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Iterable, Optional, Sequence

from cdcwire.plugin_api import DecodeError, EncodeError

U64_MAX = (1 << 64) - 1
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
_SIGN_BIT = 1 << 63

#: uvarint bytes of 0..127: one byte each, the common case.
SMALL_UVARINT: tuple[bytes, ...] = tuple(bytes((i,)) for i in range(128))

#: A uvarint byte with more to follow, by its low 7 bits: the continuation bit set.
CONTINUED_GROUP: tuple[bytes, ...] = tuple(bytes((i | 0x80,)) for i in range(128))


# --- encoding ------------------------------------------------------------------------------


def uvarint(n: int) -> bytes:
    """Unsigned LEB128 of 0 <= n <= 2^64-1.

    Built from the cached one-byte groups: joining those takes half the time of
    appending to a bytearray (a commit ts takes 9 bytes, and the encoder writes many)."""
    if 0 <= n < 0x80:
        return SMALL_UVARINT[n]
    if n < 0 or n > U64_MAX:
        raise EncodeError(f"uvarint value {n} is outside 0..2^64-1")
    if n < 0x4000:
        return CONTINUED_GROUP[n & 0x7F] + SMALL_UVARINT[n >> 7]
    if n < 0x200000:
        return CONTINUED_GROUP[n & 0x7F] + CONTINUED_GROUP[(n >> 7) & 0x7F] + SMALL_UVARINT[n >> 14]
    groups = []
    while n >= 0x80:
        groups.append(CONTINUED_GROUP[n & 0x7F])
        n >>= 7
    groups.append(SMALL_UVARINT[n])
    return b"".join(groups)


def zigzag(n: int) -> int:
    """Map int64 to uint64 so that small magnitudes stay small: 0,-1,1,-2 -> 0,1,2,3."""
    if n < I64_MIN or n > I64_MAX:
        raise EncodeError(f"varint value {n} is outside the signed 64-bit range")
    return (n << 1) ^ (n >> 63)


def unzigzag(u: int) -> int:
    return (u >> 1) ^ -(u & 1)


def varint(n: int) -> bytes:
    """Zigzag varint of a signed 64-bit integer."""
    if -64 <= n < 64:
        return SMALL_UVARINT[(n << 1) ^ (n >> 63)]
    return uvarint(zigzag(n))


def reversed_uvarint(n: int) -> bytes:
    """The trailer of a message: uvarint bytes, most significant group first."""
    return uvarint(n)[::-1]


def _wrap_i64(n: int) -> int:
    return ((n + _SIGN_BIT) & U64_MAX) - _SIGN_BIT


def uvarint_chunk(values: Iterable[int]) -> bytes:
    return b"".join(map(uvarint, values))


def varint_chunk(values: Iterable[int]) -> bytes:
    return b"".join(map(varint, values))


def delta_uvarint_chunk(values: Iterable[int]) -> bytes:
    """First value, then differences modulo 2^64 (a decrease wraps, as in Go)."""
    out = bytearray()
    last = 0
    for v in values:
        if v < 0 or v > U64_MAX:
            raise EncodeError(f"uvarint value {v} is outside 0..2^64-1")
        d = (v - last) & U64_MAX
        last = v
        if d < 0x80:
            out.append(d)
        else:
            out += uvarint(d)
    return bytes(out)


def delta_varint_chunk(values: Iterable[int]) -> bytes:
    """First value, then differences wrapped to int64, each as a zigzag varint."""
    out = bytearray()
    last = 0
    for v in values:
        if v < I64_MIN or v > I64_MAX:
            raise EncodeError(f"varint value {v} is outside the signed 64-bit range")
        d = v - last
        last = v
        if -64 <= d < 64:
            out.append((d << 1) ^ (d >> 63))
        else:
            out += uvarint(zigzag(_wrap_i64(d)))
    return bytes(out)


def string_chunk(items: Sequence[bytes]) -> bytes:
    """All lengths as uvarints, then all the bytes."""
    return b"".join([*(uvarint(len(b)) for b in items), *items])


def nullable_bytes_chunk(items: Sequence[Optional[bytes]]) -> bytes:
    """All lengths as varints (-1 for None), then the bytes of the non-null items."""
    lengths = b"".join(SMALL_UVARINT[1] if b is None else varint(len(b)) for b in items)
    return lengths + b"".join(b for b in items if b is not None)


# --- decoding ------------------------------------------------------------------------------


def read_reversed_uvarint(data: bytes, floor: int = 0, part: str = "value") -> tuple[int, int]:
    """Read the reversed uvarint that ends ``data``; returns (value, bytes it took).

    ``floor`` is the first byte the trailer may occupy (it cannot run into the version).
    """
    pos = len(data) - 1
    result = 0
    shift = 0
    while True:
        if pos < floor:
            raise DecodeError("message too short for its size-table trailer", max(pos + 1, 0), part)
        b = data[pos]
        if shift == 63 and b > 1:
            raise DecodeError("size-table trailer overflows 64 bits", pos, part)
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, len(data) - pos
        shift += 7
        pos -= 1


def all_uvarints(data: bytes, start: int, end: int, part: str = "value") -> list[int]:
    """Every uvarint in ``data[start:end]``, in one pass (headers and size tables are only varints)."""
    out: list[int] = []
    add = out.append
    value = 0
    shift = 0
    pos = start
    for b in data[start:end]:
        if b < 0x80:
            if shift == 63 and b > 1:
                raise DecodeError("uvarint overflows 64 bits", pos, part)
            add(value | (b << shift))
            value = 0
            shift = 0
        else:
            if shift == 63:
                raise DecodeError("uvarint overflows 64 bits", pos, part)
            value |= (b & 0x7F) << shift
            shift += 7
        pos += 1
    if shift:
        raise DecodeError("truncated uvarint", end, part)
    return out


def uvarint_run(data: bytes, pos: int, end: int, n: int) -> Optional[tuple[list[int], int]]:
    """The next ``n`` uvarints of ``data[pos:end]`` and where they end, in one pass over the
    bytes (a Reader call per varint costs three times as much); None when they are not all
    there or one passes 64 bits: a Reader then says what is wrong and where."""
    out: list[int] = []
    add = out.append
    value = shift = 0
    left = n
    for b in data[pos : min(end, pos + 10 * n)]:
        pos += 1
        if b < 0x80:
            add(value | (b << shift))
            left -= 1
            if not left:
                return (out, pos) if max(out) <= U64_MAX else None
            value = shift = 0
        else:
            value |= (b & 0x7F) << shift
            shift += 7
            if shift > 63:
                return None
    return None


def unzigzag_sums(values: Sequence[int]) -> list[int]:
    """Running sums of zigzag deltas, wrapped to int64: the values of a delta varint chunk."""
    out = list(accumulate([(u >> 1) ^ -(u & 1) for u in values]))
    if out and (min(out) < I64_MIN or max(out) > I64_MAX):
        out = [_wrap_i64(x) for x in out]  # wrapping each step or the sums gives the same
    return out


def uvarint_sums(values: Sequence[int]) -> list[int]:
    """Running sums modulo 2^64: the values of a delta uvarint chunk."""
    out = list(accumulate(values))
    if out and out[-1] > U64_MAX:
        out = [x & U64_MAX for x in out]
    return out


class Reader:
    """Reads primitives from ``data[pos:end]``; offsets in errors are absolute in ``data``."""

    __slots__ = ("data", "pos", "end", "part")

    def __init__(self, data: bytes, pos: int = 0, end: Optional[int] = None, part: str = "value") -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end
        self.part = part

    def error(self, reason: str, offset: Optional[int] = None) -> DecodeError:
        return DecodeError(reason, self.pos if offset is None else offset, self.part)

    @property
    def remaining(self) -> int:
        return self.end - self.pos

    def at_end(self) -> bool:
        return self.pos >= self.end

    def expect_end(self, what: str) -> None:
        if self.pos != self.end:
            raise self.error(f"{self.end - self.pos} unexpected byte(s) after the {what}")

    def byte(self) -> int:
        pos = self.pos
        if pos >= self.end:
            raise self.error("truncated: expected one more byte")
        self.pos = pos + 1
        return self.data[pos]

    def take(self, n: int) -> bytes:
        pos = self.pos
        if n < 0 or n > self.end - pos:
            raise self.error(f"length {n} runs past the end ({self.end - pos} byte(s) left)")
        self.pos = pos + n
        return self.data[pos : pos + n]

    def uvarint(self) -> int:
        data = self.data
        pos = self.pos
        end = self.end
        if pos >= end:
            raise self.error("truncated: expected a uvarint")
        b = data[pos]
        if b < 0x80:
            self.pos = pos + 1
            return b
        start = pos
        result = b & 0x7F
        shift = 7
        pos += 1
        while True:
            if pos >= end:
                raise self.error("truncated uvarint", pos)
            b = data[pos]
            pos += 1
            if shift == 63 and b > 1:
                raise self.error("uvarint overflows 64 bits", start)
            result |= (b & 0x7F) << shift
            if b < 0x80:
                self.pos = pos
                return result
            shift += 7

    def varint(self) -> int:
        u = self.uvarint()
        return (u >> 1) ^ -(u & 1)

    def count(self, what: str, width: int = 1) -> int:
        """A uvarint element count, checked against the bytes left (each element takes
        at least ``width`` bytes), so a corrupt count cannot make a reader loop or allocate."""
        at = self.pos
        n = self.uvarint()
        if n * width > self.end - self.pos:
            raise self.error(f"{what} count {n} exceeds the {self.end - self.pos} byte(s) left", at)
        return n

    def _check_count(self, n: int) -> None:
        if n < 0 or n > self.end - self.pos:
            raise self.error(f"chunk of {n} element(s) exceeds the {self.end - self.pos} byte(s) left")

    def _one_byte_run(self, n: int) -> Optional[bytes]:
        """The next ``n`` bytes when each is a whole one-byte varint (the common case)."""
        pos = self.pos
        run = self.data[pos : pos + n]
        if n and max(run) < 0x80:
            self.pos = pos + n
            return run
        return None

    def uvarint_chunk(self, n: int) -> list[int]:
        self._check_count(n)
        run = self._one_byte_run(n)
        if run is not None:
            return list(run)
        read = self.uvarint
        return [read() for _ in range(n)]

    def varint_chunk(self, n: int) -> list[int]:
        self._check_count(n)
        run = self._one_byte_run(n)
        if run is not None:
            return [(b >> 1) ^ -(b & 1) for b in run]
        read = self.uvarint
        out = []
        for _ in range(n):
            u = read()
            out.append((u >> 1) ^ -(u & 1))
        return out

    def delta_uvarint_chunk(self, n: int) -> list[int]:
        self._check_count(n)
        if n == 0:
            return []
        run = self._one_byte_run(n)
        if run is not None:
            return list(accumulate(run))  # n * 127 cannot wrap 64 bits
        read = self.uvarint
        last = read()
        out = [last]
        for _ in range(n - 1):
            last = (last + read()) & U64_MAX
            out.append(last)
        return out

    def delta_varint_chunk(self, n: int) -> list[int]:
        self._check_count(n)
        if n == 0:
            return []
        run = self._one_byte_run(n)
        if run is not None:
            return list(accumulate([(b >> 1) ^ -(b & 1) for b in run]))
        read = self.uvarint
        u = read()
        last = (u >> 1) ^ -(u & 1)
        out = [last]
        for _ in range(n - 1):
            u = read()
            last += (u >> 1) ^ -(u & 1)
            if last < I64_MIN or last > I64_MAX:
                last = _wrap_i64(last)
            out.append(last)
        return out

    def string_chunk(self, n: int) -> list[bytes]:
        lengths = self.uvarint_chunk(n)
        return [self.take(length) for length in lengths]

    def nullable_bytes_chunk(self, n: int) -> list[Optional[bytes]]:
        at = self.pos
        lengths = self.varint_chunk(n)
        out: list[Optional[bytes]] = []
        for length in lengths:
            if length == -1:
                out.append(None)
            elif length < -1:
                raise self.error(f"nullable length {length} is below -1", at)
            else:
                out.append(self.take(length))
        return out
