"""Craft's primitive encodings and the bounds-checked Reader."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdcwire.foundation.errors import DecodeError, EncodeError
from cdcwire_craft.primitives import (
    Reader,
    delta_uvarint_chunk,
    delta_varint_chunk,
    nullable_bytes_chunk,
    read_reversed_uvarint,
    reversed_uvarint,
    string_chunk,
    unzigzag,
    uvarint,
    uvarint_chunk,
    uvarint_run,
    varint,
    varint_chunk,
    zigzag,
)

U64_MAX = (1 << 64) - 1
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1

u64s = st.integers(0, U64_MAX)
i64s = st.integers(I64_MIN, I64_MAX)


@pytest.mark.parametrize(
    "n, encoded",
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (300, b"\xac\x02"),
        (I64_MAX, b"\xff" * 8 + b"\x7f"),
        (U64_MAX, b"\xff" * 9 + b"\x01"),
    ],
)
def test_uvarint_is_least_significant_group_first(n: int, encoded: bytes) -> None:
    assert uvarint(n) == encoded
    assert Reader(encoded).uvarint() == n


def leb128(n: int) -> bytes:
    """The textbook unsigned LEB128, to check uvarint's width-specific paths against."""
    out = bytearray()
    while True:
        low = n & 0x7F
        n >>= 7
        if not n:
            out.append(low)
            return bytes(out)
        out.append(low | 0x80)


@pytest.mark.parametrize("width", range(1, 11))
def test_uvarint_at_each_width_edge_is_leb128(width: int) -> None:
    first = 0 if width == 1 else 1 << (7 * (width - 1))
    last = min((1 << (7 * width)) - 1, U64_MAX)
    for n in (first, first + 1, first + 0x55, last - 1, last):
        assert uvarint(n) == leb128(n)
        assert len(uvarint(n)) == width


@given(u64s)
def test_uvarint_is_leb128(n: int) -> None:
    assert uvarint(n) == leb128(n)


@pytest.mark.parametrize(
    "n, zz",
    [(0, 0), (-1, 1), (1, 2), (-2, 3), (I64_MAX, U64_MAX - 1), (I64_MIN, U64_MAX)],
)
def test_zigzag_maps_small_magnitudes_to_small_numbers(n: int, zz: int) -> None:
    assert zigzag(n) == zz
    assert unzigzag(zz) == n
    assert Reader(varint(n)).varint() == n


def test_varint_edges_take_ten_bytes() -> None:
    assert varint(I64_MIN) == b"\xff" * 9 + b"\x01"
    assert varint(I64_MAX) == b"\xfe" + b"\xff" * 8 + b"\x01"


@pytest.mark.parametrize("bad", [-1, U64_MAX + 1])
def test_uvarint_refuses_values_outside_uint64(bad: int) -> None:
    with pytest.raises(EncodeError):
        uvarint(bad)


@pytest.mark.parametrize("bad", [I64_MIN - 1, I64_MAX + 1])
def test_varint_refuses_values_outside_int64(bad: int) -> None:
    with pytest.raises(EncodeError):
        varint(bad)


@given(u64s)
def test_uvarint_round_trips_every_uint64(n: int) -> None:
    r = Reader(uvarint(n))
    assert r.uvarint() == n
    assert r.at_end()


@given(i64s)
def test_varint_round_trips_every_int64(n: int) -> None:
    assert Reader(varint(n)).varint() == n


@pytest.mark.parametrize("n", [0, 1, 127, 128, 300, 16384, I64_MAX, U64_MAX])
def test_reversed_uvarint_puts_the_most_significant_group_first(n: int) -> None:
    encoded = reversed_uvarint(n)
    assert encoded == uvarint(n)[::-1]
    assert read_reversed_uvarint(b"junk" + encoded, 4) == (n, len(encoded))


def test_reversed_uvarint_of_300_reads_from_the_end() -> None:
    # uvarint(300) = ac 02; reversed: 02 ac. The last byte has the high bit set: more groups before it.
    assert reversed_uvarint(300) == b"\x02\xac"


def test_reversed_uvarint_that_runs_past_its_floor_is_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        read_reversed_uvarint(b"\x01\x80\x80", 1)  # both bytes say "more", then the floor
    assert info.value.offset == 1


def test_uvarint_longer_than_64_bits_is_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        Reader(b"\xff" * 9 + b"\x02").uvarint()
    assert "overflows" in info.value.reason
    assert info.value.offset == 0


def test_truncated_uvarint_reports_where_the_bytes_ran_out() -> None:
    with pytest.raises(DecodeError) as info:
        Reader(b"\x80\x80").uvarint()
    assert info.value.offset == 2


def test_reader_stays_inside_its_region() -> None:
    r = Reader(b"\x05\x06\x07", 0, 1)
    assert r.uvarint() == 5
    with pytest.raises(DecodeError) as info:
        r.uvarint()
    assert info.value.offset == 1


def test_delta_uvarint_chunk_stores_first_value_then_differences() -> None:
    # 10 whole, then +5, then +0
    assert delta_uvarint_chunk([10, 15, 15]) == b"\x0a\x05\x00"
    assert Reader(b"\x0a\x05\x00").delta_uvarint_chunk(3) == [10, 15, 15]


def test_delta_uvarint_chunk_wraps_a_decrease_like_go() -> None:
    encoded = delta_uvarint_chunk([5, 4])
    assert encoded == b"\x05" + uvarint(U64_MAX)  # 4 - 5 mod 2^64
    assert Reader(encoded).delta_uvarint_chunk(2) == [5, 4]


def test_delta_varint_chunk_zigzags_each_difference() -> None:
    # -1 whole (zigzag 1), then +3 (6), then -5 (9)
    assert delta_varint_chunk([-1, 2, -3]) == b"\x01\x06\x09"
    assert Reader(b"\x01\x06\x09").delta_varint_chunk(3) == [-1, 2, -3]


@given(st.lists(u64s, max_size=8))
def test_delta_uvarint_chunk_round_trips(values: list[int]) -> None:
    encoded = delta_uvarint_chunk(values)
    r = Reader(encoded)
    assert r.delta_uvarint_chunk(len(values)) == values
    assert r.at_end()


@given(st.lists(i64s, max_size=8))
def test_delta_varint_chunk_round_trips_even_across_the_int64_edges(values: list[int]) -> None:
    encoded = delta_varint_chunk(values)
    r = Reader(encoded)
    assert r.delta_varint_chunk(len(values)) == values
    assert r.at_end()


@given(st.lists(u64s, max_size=8), st.lists(i64s, max_size=8))
def test_plain_chunks_round_trip(unsigned: list[int], signed: list[int]) -> None:
    r = Reader(uvarint_chunk(unsigned) + varint_chunk(signed))
    assert r.uvarint_chunk(len(unsigned)) == unsigned
    assert r.varint_chunk(len(signed)) == signed
    assert r.at_end()


def test_string_chunk_puts_all_lengths_before_all_bytes() -> None:
    assert string_chunk([b"ab", b"", b"c"]) == b"\x02\x00\x01abc"
    assert Reader(b"\x02\x00\x01abc").string_chunk(3) == [b"ab", b"", b"c"]


def test_nullable_bytes_chunk_marks_null_with_length_minus_one() -> None:
    # lengths as varints: 2 -> 04, NULL (-1) -> 01, 0 -> 00; then the bytes
    assert nullable_bytes_chunk([b"ab", None, b""]) == b"\x04\x01\x00ab"
    assert Reader(b"\x04\x01\x00ab").nullable_bytes_chunk(3) == [b"ab", None, b""]


@given(st.lists(st.one_of(st.none(), st.binary(max_size=200)), max_size=6))
def test_nullable_bytes_chunk_round_trips(items: list) -> None:
    r = Reader(nullable_bytes_chunk(items))
    assert r.nullable_bytes_chunk(len(items)) == items
    assert r.at_end()


def test_length_below_minus_one_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        Reader(varint(-2)).nullable_bytes_chunk(1)


def test_a_length_past_the_end_is_a_decode_error_not_a_short_read() -> None:
    with pytest.raises(DecodeError) as info:
        Reader(b"\x0aab").string_chunk(1)  # claims 10 bytes, has 2
    assert info.value.offset == 1


def test_a_huge_count_is_refused_before_anything_is_allocated() -> None:
    data = uvarint(1 << 62) + b"\x00"
    r = Reader(data)
    with pytest.raises(DecodeError) as info:
        r.count("column")
    assert info.value.offset == 0
    with pytest.raises(DecodeError):
        Reader(b"\x00").uvarint_chunk(1 << 62)


@settings(max_examples=100)
@given(st.binary(max_size=30), st.integers(0, 40))
def test_reader_raises_only_decode_error_on_arbitrary_bytes(data: bytes, n: int) -> None:
    for read in ("uvarint_chunk", "varint_chunk", "delta_uvarint_chunk", "delta_varint_chunk",
                 "string_chunk", "nullable_bytes_chunk"):
        try:
            getattr(Reader(data), read)(n)
        except DecodeError:
            pass


@given(st.binary(max_size=40), st.integers(1, 12), st.integers(0, 4))
def test_uvarint_run_reads_what_the_reader_reads_or_gives_up(data: bytes, n: int, start: int) -> None:
    reader = Reader(data, min(start, len(data)))
    try:
        expected = (reader.uvarint_chunk(n), reader.pos)
    except DecodeError:
        expected = None
    assert uvarint_run(data, min(start, len(data)), len(data), n) == expected


def test_uvarint_run_stops_at_the_end_and_past_64_bits() -> None:
    data = uvarint(300) + uvarint(U64_MAX) + uvarint(5)
    assert uvarint_run(data, 0, len(data), 3) == ([300, U64_MAX, 5], len(data))
    assert uvarint_run(data, 0, len(data) - 1, 3) is None  # the last varint is outside the region
    assert uvarint_run(b"\xff" * 9 + b"\x02", 0, 10, 1) is None  # 2^64: one bit too many
    assert uvarint_run(b"\x80" * 10 + b"\x00", 0, 11, 1) is None  # eleven bytes
