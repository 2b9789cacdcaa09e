"""A strict decoder: broken input raises DecodeError with an offset, and nothing else."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, Message, ResolvedEvent, RowChangedEvent
from cdcwire.foundation.errors import DecodeError
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire_craft.decoder import CraftDecoder
from cdcwire_craft.primitives import reversed_uvarint, uvarint, varint


def decode(value: bytes):
    return CraftDecoder().decode(Message("t", 0, None, value, 0))


def messages_of(craft, row: RowChangedEvent) -> list[bytes]:
    """The row (every column type), a DDL and a resolved event, as craft values."""
    events = [row, DDLEvent(9, "test", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN), ResolvedEvent(10)]
    config = craft.config()
    return [m.value for m in craft.encode(config, events)]


ROBUSTNESS = settings(
    max_examples=5, deadline=None,
    suppress_health_check=list(HealthCheck),  # rows of every column type are large on purpose
)


@ROBUSTNESS
@given(row_events(all_types_table()))
def test_every_truncation_raises_decode_error(craft, row: RowChangedEvent) -> None:
    for value in messages_of(craft, row):
        for cut in range(len(value)):
            with pytest.raises(DecodeError) as info:
                decode(value[:cut])
            assert info.value.offset is not None
            assert 0 <= info.value.offset <= len(value)


@ROBUSTNESS
@given(row_events(all_types_table()), st.integers(0, 2**32))
def test_random_byte_flips_raise_only_decode_error(craft, row: RowChangedEvent, seed: int) -> None:
    rng = random.Random(seed)
    messages = messages_of(craft, row)
    for _ in range(2000):
        value = bytearray(rng.choice(messages))
        for _ in range(rng.randint(1, 3)):
            value[rng.randrange(len(value))] = rng.randrange(256)
        try:
            decode(bytes(value))  # may decode to something else: only the exception type matters
        except DecodeError as exc:
            assert exc.offset is not None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=64))
def test_arbitrary_bytes_raise_only_decode_error(data: bytes) -> None:
    try:
        decode(b"\x01" + data)
    except DecodeError:
        pass


def test_empty_value_is_truncated_at_byte_zero() -> None:
    with pytest.raises(DecodeError) as info:
        decode(b"")
    assert info.value.offset == 0


def test_missing_value_is_a_decode_error() -> None:
    with pytest.raises(DecodeError):
        CraftDecoder().decode(Message("t", 0, None, None))


def test_bad_version_is_reported_at_byte_zero() -> None:
    resolved = bytes.fromhex("01 ac 02 03 01 01 01 02 0c 0b 01 00 05")
    with pytest.raises(DecodeError) as info:
        decode(b"\x02" + resolved[1:])
    assert "version 2" in info.value.reason
    assert info.value.offset == 0


def test_unknown_event_type_is_reported_at_the_type_chunk() -> None:
    resolved = bytearray.fromhex("01 ac 02 03 01 01 01 02 0c 0b 01 00 05")
    resolved[3] = 9  # the type chunk starts after version (1 byte) and ts (2 bytes)
    with pytest.raises(DecodeError) as info:
        decode(bytes(resolved))
    assert "unknown event type 9" in info.value.reason
    assert info.value.offset == 3


def _one_column_insert(name_term: int) -> bytes:
    """The hand-checked one-column insert (see test_layout_bytes) with its name term id replaced."""
    headers = bytes([7, 1, 1, 0, 2])
    group = bytes([1, 1]) + varint(name_term) + bytes([3, 10, 2, 2])
    dictionary = bytes([3, 1, 1, 2]) + b"stid"
    tables = bytes([2, 10, 6, 1]) + varint(len(group)) + bytes([1]) + varint(len(group))
    return b"\x01" + headers + group + dictionary + tables + reversed_uvarint(len(tables))


def test_the_reference_bytes_decode() -> None:
    (event,) = decode(_one_column_insert(2))
    assert event.columns[0].name == "id"
    assert event.columns[0].value == 1


def test_a_name_term_outside_the_dictionary_is_a_decode_error() -> None:
    with pytest.raises(DecodeError) as info:
        decode(_one_column_insert(3))
    assert "outside the dictionary" in info.value.reason
    assert info.value.offset == 8  # version 1 + headers 5 + kind 1 + count 1


def test_a_schema_term_outside_the_dictionary_is_a_decode_error() -> None:
    value = bytearray(_one_column_insert(2))
    value[4] = 8  # schema term id 4 (zigzag 8) in a dictionary of 3
    with pytest.raises(DecodeError) as info:
        decode(bytes(value))
    assert "schema term id 4" in info.value.reason


def test_sections_that_do_not_add_up_are_a_decode_error() -> None:
    value = bytearray(_one_column_insert(2))
    tables_at = len(value) - 1 - 7  # seven bytes of size tables, then the one-byte trailer
    assert value[tables_at : tables_at + 2] == bytes([2, 10])  # meta table: 2 entries, header size 5
    value[tables_at + 1] = 12  # header size 6 instead of 5
    with pytest.raises(DecodeError) as info:
        decode(bytes(value))
    assert "do not end where the size tables start" in info.value.reason


def test_a_huge_declared_length_is_refused_without_allocating() -> None:
    tables = bytes([2]) + varint(1 << 40) + varint(0) + bytes([1, 0])
    value = b"\x01" + tables + reversed_uvarint(len(tables))
    with pytest.raises(DecodeError):
        decode(value)
    huge_count = uvarint(1 << 60) + b"\x00"
    value = b"\x01" + huge_count + reversed_uvarint(len(huge_count))
    with pytest.raises(DecodeError) as info:
        decode(value)
    assert "claims" in info.value.reason


def test_a_value_that_does_not_fit_its_type_is_reported_at_the_value() -> None:
    # an INT value of two bytes whose varint ends after the first: trailing garbage
    headers = bytes([7, 1, 1, 0, 2])
    group = bytes([1, 1, 4, 3, 0, 4, 2, 0])
    dictionary = bytes([3, 1, 1, 2]) + b"stid"
    tables = bytes([2, 10, 6, 1]) + varint(len(group)) + bytes([1]) + varint(len(group))
    value = b"\x01" + headers + group + dictionary + tables + reversed_uvarint(len(tables))
    with pytest.raises(DecodeError) as info:
        decode(value)
    assert "column 'id'" in info.value.reason
    assert info.value.offset == 1 + len(headers) + 6


def test_invalid_utf8_in_a_text_column_is_a_decode_error() -> None:
    event = RowChangedEvent(1, "s", "t", (Column("v", ColumnType.VARCHAR, ColumnFlag.BINARY, b"\xff\xfe"),), None)
    from cdcwire_craft.encoder import CraftEncoder

    (payload,) = CraftEncoder().encode([event])
    flipped = payload.value.replace(bytes([15, 1]), bytes([15, 0]), 1)  # clear the BINARY flag: now text
    with pytest.raises(DecodeError) as info:
        decode(flipped)
    assert "UTF-8" in info.value.reason
