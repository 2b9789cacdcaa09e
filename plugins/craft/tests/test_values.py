"""The bytes of each column type's value (REFERENCE.md "Value bytes"), what comes back, and bad values."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire.foundation.errors import EncodeError
from cdcwire_craft.column_values import BadValue, _explain_uvarint, _read_uvarint_exactly
from cdcwire_craft.encoder import CraftEncoder
from cdcwire_craft.primitives import Reader, uvarint
from cdcwire.sinks.sink import open_sink

T = ColumnType
U = ColumnFlag.UNSIGNED
B = ColumnFlag.BINARY
NONE = ColumnFlag(0)


def value_bytes(ctype: ColumnType, flags: ColumnFlag, value: object) -> bytes | None:
    """The bytes craft writes for one value: the one-column group's nullable bytes chunk, read back."""
    prepared = CraftEncoder().prepare(RowChangedEvent(1, "s", "t", (Column("c", ctype, flags, value),), None))
    (chunk,) = prepared.values
    (raw,) = Reader(chunk).nullable_bytes_chunk(1)
    return raw


@pytest.mark.parametrize(
    "ctype, flags, value, expected",
    [
        (T.TINYINT, NONE, -1, b"\x01"),  # varint: zigzag(-1) = 1
        (T.SMALLINT, NONE, 300, b"\xd8\x04"),  # zigzag(300) = 600 = 0x258 -> d8 04
        (T.INT, U, 300, b"\xac\x02"),  # unsigned: plain uvarint
        (T.MEDIUMINT, NONE, 1, b"\x02"),
        (T.BIGINT, NONE, -(1 << 63), b"\xff" * 9 + b"\x01"),
        (T.BIGINT, U, (1 << 64) - 1, b"\xff" * 9 + b"\x01"),
        (T.YEAR, U, 2021, b"\xca\x1f"),  # YEAR is always a varint: zigzag(2021) = 4042
        (T.ENUM, NONE, 2, b"\x02"),  # ENUM, SET, BIT: uvarint
        (T.SET, NONE, 5, b"\x05"),
        (T.BIT, U, 4095, b"\xff\x1f"),
        (T.FLOAT, NONE, 2.0, struct.pack("<d", 2.0)),  # FLOAT and DOUBLE: float64 little-endian
        (T.DOUBLE, NONE, 0.1, struct.pack("<d", 0.1)),
        (T.DECIMAL, NONE, "129012.1230000", b"129012.1230000"),  # textual types: their text
        (T.DATE, B, "2000-01-01", b"2000-01-01"),
        (T.TIME, B, "23:59:59", b"23:59:59"),
        (T.DATETIME, B, "2015-12-20 23:58:58", b"2015-12-20 23:58:58"),
        (T.TIMESTAMP, B, "1973-12-30 15:30:00", b"1973-12-30 15:30:00"),
        (T.JSON, B, '{"key1": "value1"}', b'{"key1": "value1"}'),
        (T.VARCHAR, NONE, "héllo", "héllo".encode()),  # strings: UTF-8
        (T.CHAR, B, b"\x00\xff", b"\x00\xff"),  # binary strings and blobs: raw bytes
        (T.BLOB, B, b"\x89PNG", b"\x89PNG"),
        (T.MEDIUMBLOB, NONE, "text", b"text"),
        (T.INT, NONE, None, None),  # NULL: length -1
        (T.GEOMETRY, B, b"\x01\x02", None),  # not carried by the reference: NULL
        (T.NULL, NONE, None, None),
    ],
)
def test_value_bytes_per_type(ctype: ColumnType, flags: ColumnFlag, value: object, expected: bytes | None) -> None:
    assert value_bytes(ctype, flags, value) == expected


def test_carried_drops_mysql_type_and_rounds_float_to_float32(craft) -> None:
    config = craft.config()
    event = RowChangedEvent(
        1, "s", "t",
        (
            Column("f", T.FLOAT, NONE, 0.1, "float"),
            Column("g", T.GEOMETRY, B, b"\x01", "geometry"),
            Column("b", T.BLOB, B, "as text", "blob"),
        ),
        None,
        table_id=-1,
    )
    carried = open_sink(config).codec.carrier(config)(event)
    assert [c.mysql_type for c in carried.columns] == [None, None, None]
    assert [c.value for c in carried.columns] == [struct.unpack("<f", struct.pack("<f", 0.1))[0], None, b"as text"]
    assert carried.table_id is None
    assert craft.decode(config, craft.encode(config, [event])) == [carried]


@pytest.mark.parametrize(
    "ctype, flags, value, says",
    [
        (T.INT, NONE, "12", "expected an integer"),
        (T.BIGINT, NONE, 1 << 63, "outside"),
        (T.BIGINT, U, -1, "outside"),
        (T.DOUBLE, NONE, "1.5", "expected a number"),
        (T.FLOAT, NONE, 1e300, "float32"),
        (T.VARCHAR, NONE, 12, "expected str or bytes"),
    ],
)
def test_a_bad_value_is_an_encode_error_naming_the_column(
    ctype: ColumnType, flags: ColumnFlag, value: object, says: str
) -> None:
    event = RowChangedEvent(9, "s", "t", (Column("ok", T.INT, NONE, 1), Column("bad", ctype, flags, value)), None)
    with pytest.raises(EncodeError) as info:
        list(CraftEncoder().encode([event]))
    assert "'bad'" in str(info.value)
    assert "s.t" in str(info.value)
    assert says in str(info.value)


def test_an_unknown_column_type_code_is_an_encode_error() -> None:
    event = RowChangedEvent(9, "s", "t", (Column("c", 200, NONE, 1),), None)  # type: ignore[arg-type]
    with pytest.raises(EncodeError):
        list(CraftEncoder().encode([event]))


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=12) | st.integers(0, (1 << 64) - 1).map(uvarint))
def test_integer_bytes_read_as_the_byte_by_byte_reader_reads_them(raw: bytes) -> None:
    """The shortcuts for short and long integers agree with the plain reader, faults included."""

    def outcome(read):
        try:
            return read(raw)
        except BadValue as exc:
            return str(exc)

    assert outcome(_read_uvarint_exactly) == outcome(_explain_uvarint)
