"""The decoder's caches and generated code (group_shapes.py, group_decode.py): a warm decoder
must decode exactly what a fresh one does, and refuse exactly what a fresh one refuses."""

from __future__ import annotations

import random
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.foundation.errors import DecodeError
from cdcwire.testing.strategies import all_types_table, row_events, row_images
from cdcwire_craft import group_shapes
from cdcwire_craft.decoder import CraftDecoder
from cdcwire_craft.encoder import CraftEncoder
from cdcwire_craft.group_decode import compiled_decoder, values_source

T = ColumnType
F = ColumnFlag

BASE = (
    Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1),
    Column("name", T.VARCHAR, F.NULLABLE, "x"),
    Column("price", T.DOUBLE, F.NULLABLE, 1.5),
    Column("n", T.BIGINT, F.NULLABLE | F.UNSIGNED, 300),
    Column("f", T.FLOAT, F.NULLABLE, 0.5),
    Column("b", T.BLOB, F.NULLABLE | F.BINARY, b"\x00\xff"),
    Column("g", T.GEOMETRY, F.NULLABLE, None),
)


@pytest.fixture
def hot(monkeypatch) -> None:
    """Shapes get their generated decoder after their first group."""
    monkeypatch.setattr(group_shapes, "HOT_AFTER", 0)


def message(*rows: RowChangedEvent) -> bytes:
    (payload,) = CraftEncoder(max_batch_size=len(rows)).encode(list(rows))
    return payload.value


def row(ts: int, columns: tuple[Column, ...], old: Optional[tuple[Column, ...]] = None) -> RowChangedEvent:
    return RowChangedEvent(ts, "s", "t", columns, old)


def warm_decoder(value: bytes) -> CraftDecoder:
    """A decoder that has decoded ``value`` twice: its shapes are compiled (with the hot fixture)."""
    decoder = CraftDecoder()
    first = decoder.decode_value(value)
    assert decoder.decode_value(value) == first
    return decoder


def outcome(decoder: CraftDecoder, value: bytes) -> object:
    """The events, or the DecodeError's reason and offset; any other exception fails the test."""
    try:
        return decoder.decode_value(value)
    except DecodeError as exc:
        return ("DecodeError", exc.reason, exc.offset)


def same_outcome(warm: CraftDecoder, value: bytes) -> bool:
    """``warm`` decodes or refuses ``value`` as a fresh decoder does. Compared as text: a flipped
    DOUBLE may decode to NaN, and NaN equals nothing, itself included."""
    return repr(outcome(warm, value)) == repr(outcome(CraftDecoder(), value))


def test_a_hot_shape_decodes_with_generated_code(hot) -> None:
    value = message(row(1, BASE, BASE))
    decoder = warm_decoder(value)
    (dictionary,) = decoder._dictionaries.values()
    (shape,) = {s for entries in dictionary.shapes.values() for _, s in entries}
    assert shape.fast is not None
    assert shape.fast.__code__.co_filename.startswith("<craft group decoder")
    assert decoder.decode_value(value) == CraftDecoder().decode_value(value)


def test_a_shape_is_compiled_after_hot_after_groups(monkeypatch) -> None:
    monkeypatch.setattr(group_shapes, "HOT_AFTER", 3)
    value = message(row(1, BASE))
    decoder = CraftDecoder()
    results = [decoder.decode_value(value) for _ in range(5)]
    shapes = list(decoder._registry._shapes.values())
    assert [s.fast is not None for s in shapes] == [True]
    assert results == [results[0]] * 5


def test_a_shape_is_shared_by_messages_with_other_dictionaries(hot) -> None:
    other = RowChangedEvent(1, "s", "u", (Column("k", T.INT, F(0), 1),), None)
    first = message(row(1, BASE), other)  # terms: s, t, u, ...
    second = message(other, row(2, BASE))  # terms: s, u, t, ...: other ids for the same names
    decoder = CraftDecoder()
    assert decoder.decode_value(first) == CraftDecoder().decode_value(first)
    assert decoder.decode_value(second) == CraftDecoder().decode_value(second)
    assert len(decoder._dictionaries) == 2
    assert len(decoder._registry._shapes) == 2  # BASE's and other's, once each


@pytest.mark.parametrize(
    "changed",
    [
        Column("name", T.BLOB, F.NULLABLE, "x"),  # only the type code: one byte of the types chunk
        Column("name", T.VARCHAR, F.NULLABLE | F.BINARY, b"x"),  # only the flags
        Column("nam", T.VARCHAR, F.NULLABLE, "x"),  # only the name (another term)
    ],
)
def test_a_cached_shape_is_not_used_for_a_group_whose_shape_bytes_differ(hot, changed: Column) -> None:
    decoder = warm_decoder(message(row(1, BASE)))
    other = (BASE[0], changed, *BASE[2:])
    value = message(row(2, other))
    assert decoder.decode_value(value) == CraftDecoder().decode_value(value)
    (event,) = decoder.decode_value(value)
    assert event.columns[1] == Column(changed.name, changed.type, changed.flags, changed.value)


def test_a_types_chunk_that_differs_in_one_byte_is_read_afresh(hot) -> None:
    good = message(row(1, BASE))
    decoder = warm_decoder(good)
    at = good.index(bytes([T.INT, T.VARCHAR, T.DOUBLE]))  # the types chunk: one byte each here
    for code, expected in ((T.DATE, T.DATE), (100, None)):  # another type; an unknown type code
        value = bytearray(good)
        value[at + 1] = code
        result = outcome(decoder, bytes(value))
        assert result == outcome(CraftDecoder(), bytes(value))
        if expected is None:
            assert result[0] == "DecodeError" and "unknown column type code 100" in result[1]
        else:
            assert result[0].columns[1].type == expected


@pytest.mark.parametrize(
    "corrupt, says",
    [
        (lambda v, at: v[:at] + bytes([5]) + v[at + 1 :], "below -1"),  # id's length: zigzag 5 is -3
        (lambda v, at: v[:at] + bytes([0x7E]) + v[at + 1 :], "runs past the end"),  # id's length: 63 bytes
        (lambda v, at: v[:at] + bytes([4]) + v[at + 1 :], "after the integer"),  # id's value: 2 bytes, 02 78
        (lambda v, at: v[: at + 3] + b"\xff" + v[at + 4 :], "not valid UTF-8"),  # the name's text
        (lambda v, at: v[: at + 3] + v[at + 4 :], None),  # a byte of the name less: the sizes do not add up
    ],
)
def test_a_corrupt_group_after_a_good_one_of_its_shape_is_a_decode_error(hot, corrupt, says) -> None:
    columns = (Column("id", T.INT, F.HANDLE_KEY, 1), Column("name", T.VARCHAR, F(0), "xy"))
    good = message(row(1, columns))
    decoder = warm_decoder(good)
    at = good.index(bytes([T.INT, T.VARCHAR, F.HANDLE_KEY, 0])) + 4  # after the types and flags: the lengths
    assert good[at : at + 5] == bytes([2, 4, 2]) + b"xy"  # zigzag lengths 1 and 2, then 1 (zigzag 2) and "xy"
    value = corrupt(good, at)
    result = outcome(decoder, value)
    assert result == outcome(CraftDecoder(), value)
    assert result[0] == "DecodeError"
    if says:
        assert says in result[1]


def test_values_of_64_bytes_or_more_take_the_generated_code(hot) -> None:
    columns = (
        Column("id", T.BIGINT, F(0), 1 << 40),
        Column("text", T.VARCHAR, F(0), "é" * 100),
        Column("b", T.BLOB, F.BINARY, b"\x01" * 5000),
    )
    value = message(row(1, columns, columns))
    decoder = warm_decoder(value)
    assert decoder.decode_value(value) == CraftDecoder().decode_value(value)
    assert decoder.decode_value(value)[0].columns == columns


def test_names_reach_the_generated_code_as_data_not_source() -> None:
    names = ("a'); raise SystemExit('", '"""')
    assert "SystemExit" not in values_source([1, 5])
    decode, _ = compiled_decoder(names, (T.INT, T.VARCHAR), (F(0), F(0)), (1, 6))
    data = b"\x02\x04" + b"\x02vw"  # lengths 1 and 2, then 1 (zigzag 2) and "vw"
    (a, b) = decode(data, data[:2], 2, len(data))
    assert (a.name, a.value, b.name, b.value) == (names[0], 1, names[1], "vw")


def test_shapes_of_the_same_kinds_share_compiled_code() -> None:
    first, _ = compiled_decoder(("a",), (T.INT,), (F(0),), (1,))
    second, _ = compiled_decoder(("b",), (T.BIGINT,), (F(0),), (1,))
    assert first.__code__ is second.__code__
    data = b"\x02\x02"  # length 1, then 1 (zigzag 2)
    assert first(data, data[:1], 1, 2)[0] == Column("a", T.INT, F(0), 1)
    assert second(data, data[:1], 1, 2)[0] == Column("b", T.BIGINT, F(0), 1)


def test_an_old_image_reuses_the_new_images_columns_of_equal_bytes_only(hot) -> None:
    new = (
        Column("id", T.INT, F.HANDLE_KEY, 1),
        Column("name", T.VARCHAR, F.NULLABLE, "x"),
        Column("price", T.DOUBLE, F.NULLABLE, 0.0),
        Column("note", T.VARCHAR, F.NULLABLE, ""),
        Column("g", T.GEOMETRY, F.NULLABLE, None),
    )
    old = (new[0], Column("name", T.VARCHAR, F.NULLABLE, "y"), Column("price", T.DOUBLE, F.NULLABLE, -0.0),
           Column("note", T.VARCHAR, F.NULLABLE, None), new[4])
    value = message(row(1, new, old))
    (event,) = warm_decoder(value).decode_value(value)
    assert event == CraftDecoder().decode_value(value)[0]
    assert [a is b for a, b in zip(event.columns, event.pre_columns)] == [True, False, False, False, True]
    assert str(event.pre_columns[2].value) == "-0.0" and event.pre_columns[3].value is None


def test_an_old_image_of_another_shape_reuses_nothing(hot) -> None:
    new = (Column("id", T.INT, F.HANDLE_KEY, 1), Column("name", T.VARCHAR, F.NULLABLE, "x"))
    old = (Column("id", T.INT, F.HANDLE_KEY, 1), Column("name", T.VARCHAR, F.NULLABLE | F.BINARY, b"x"))
    value = message(row(1, new, old))
    (event,) = warm_decoder(value).decode_value(value)
    assert event == CraftDecoder().decode_value(value)[0]
    assert event.pre_columns[1].value == b"x" and event.columns[1].value == "x"


ROBUSTNESS = settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))


@ROBUSTNESS
@given(row_events(all_types_table()))
def test_a_warm_decoder_decodes_what_a_fresh_one_does(hot, event: RowChangedEvent) -> None:
    value = message(event)
    assert warm_decoder(value).decode_value(value) == CraftDecoder().decode_value(value)


@ROBUSTNESS
@given(row_events(all_types_table()), st.integers(0, 2**32))
def test_a_warm_decoder_refuses_what_a_fresh_one_refuses(hot, event: RowChangedEvent, seed: int) -> None:
    """Random byte flips and every truncation of a message whose shapes the decoder knows (and
    has compiled): the same events or the same DecodeError as a decoder that knows nothing."""
    rng = random.Random(seed)
    good = message(event)
    others = [
        message_of(DDLEvent(9, "s", "t", "ALTER TABLE t ADD c INT", DDLType.ADD_COLUMN)),
        message_of(ResolvedEvent(10)),
    ]
    decoder = warm_decoder(good)
    for cut in range(len(good)):
        assert same_outcome(decoder, good[:cut])
    for _ in range(500):
        value = bytearray(rng.choice([good, good, *others]))
        for _ in range(rng.randint(1, 3)):
            value[rng.randrange(len(value))] = rng.randrange(256)
        assert same_outcome(decoder, bytes(value))
        assert decoder.decode_value(good) == CraftDecoder().decode_value(good)  # nothing bad was cached


@st.composite
def updates(draw) -> RowChangedEvent:
    """An update of the all-types table whose old image keeps some of the new image's columns."""
    spec = all_types_table()
    new = draw(row_images(spec))
    other = draw(row_images(spec, key=new[0].value))
    kept = draw(st.lists(st.booleans(), min_size=len(new), max_size=len(new)))
    old = tuple(a if keep else b for a, b, keep in zip(new, other, kept))
    return RowChangedEvent(draw(st.integers(1, 1 << 62)), spec.schema, spec.table, new, old)


@ROBUSTNESS
@given(st.lists(updates(), min_size=1, max_size=4), st.integers(0, 2**32))
def test_updates_decode_as_a_fresh_decoder_decodes_them_and_refuse_alike(hot, events, seed: int) -> None:
    """The old image reuses the new image's Columns (decode_values_like); flips in either image
    must still give what a fresh decoder gives."""
    rng = random.Random(seed)
    good = message(*events)
    decoder = warm_decoder(good)
    for old, new in zip(CraftDecoder().decode_value(good), decoder.decode_value(good)):
        assert old == new
        for a, b in zip(new.columns, new.pre_columns):
            if a.value is not None and b.value is not None and "nan" not in repr(a.value):
                assert (a is b) == (repr(a.value) == repr(b.value))  # shared exactly when the bytes are equal
    for _ in range(300):
        value = bytearray(good)
        value[rng.randrange(len(value))] = rng.randrange(256)
        assert same_outcome(decoder, bytes(value))


def message_of(event) -> bytes:
    (payload,) = CraftEncoder().encode([event])
    return payload.value
