"""The shuffle keys of a write: for each topic-partition an int that Spark's hash partitioner
sends to its own shuffle partition, so that one Spark task encodes exactly one topic-partition.

``repartition(n, key)`` on an int column puts a row in partition ``pmod(hash(key), n)``, where
``hash`` is Spark's ``Murmur3Hash`` with seed 42 (``Murmur3_x86_32.hashInt``). That function is
computed here, in Python, because asking Spark for it (``spark.range(...).select(hash(...))
.collect()``) was a Spark job of its own at the start of every write, before anything of the
write's own ran; the keys depend on ``n`` alone. ``tests/test_spark_shuffle_keys.py`` checks
this hash against Spark's.
"""

from __future__ import annotations

from functools import lru_cache

_MASK = 0xFFFFFFFF
#: The seed of Spark's ``hash`` and of its hash partitioner (``HashPartitioning``).
SPARK_SEED = 42


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def spark_hash_int(value: int, seed: int = SPARK_SEED) -> int:
    """Spark's ``hash(value)`` of an int column (Murmur3 x86 32-bit of the 4-byte int), signed."""
    k1 = (value & _MASK) * 0xCC9E2D51 & _MASK
    k1 = _rotl(k1, 15) * 0x1B873593 & _MASK
    h1 = (seed & _MASK) ^ k1
    h1 = (_rotl(h1, 13) * 5 + 0xE6546B64) & _MASK
    h1 ^= 4  # the input's length in bytes
    h1 ^= h1 >> 16
    h1 = h1 * 0x85EBCA6B & _MASK
    h1 ^= h1 >> 13
    h1 = h1 * 0xC2B2AE35 & _MASK
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 & 0x80000000 else h1


@lru_cache(maxsize=64)
def shuffle_keys(n: int) -> tuple[int, ...]:
    """For each i < n the smallest int >= 0 whose Spark hash is i mod n (``pmod``: Python's ``%``
    of a positive ``n`` is never negative, as Spark's ``pmod``)."""
    found: dict[int, int] = {}
    key = 0
    while len(found) < n:
        found.setdefault(spark_hash_int(key) % n, key)
        key += 1
    return tuple(found[i] for i in range(n))
