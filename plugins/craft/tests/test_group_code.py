"""The group encoders (group_code.py: unrolled and looping) against the generic per-kind
encoders, the promotion of hot shapes, and the encoder's shape cache: a row of another
shape must never be encoded with a cached one."""

from __future__ import annotations

from typing import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire.foundation.errors import EncodeError
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire_craft import table_shape
from cdcwire_craft.column_values import ENCODERS, ValueKind, value_kind
from cdcwire_craft.decoder import CraftDecoder
from cdcwire_craft.encoder import CraftEncoder
from cdcwire_craft.group_code import MAX_UNROLLED_COLUMNS, compiled_encoder, group_source, looping_encoder
from cdcwire_craft.primitives import nullable_bytes_chunk
from cdcwire_craft.table_shape import TableShape, build_shape

T = ColumnType
F = ColumnFlag

#: One column of each value kind, with values on and off the generated fast paths.
KIND_COLUMNS = {
    ValueKind.SIGNED: (T.BIGINT, F(0), st.integers(-(1 << 63), (1 << 63) - 1) | st.sampled_from([-8193, -8192, 8191, 8192, True])),
    ValueKind.UNSIGNED: (T.BIGINT, F.UNSIGNED, st.integers(0, (1 << 64) - 1) | st.sampled_from([127, 128, False])),
    ValueKind.FLOAT: (T.FLOAT, F(0), st.floats(width=32) | st.integers(-(1 << 20), 1 << 20)),
    ValueKind.DOUBLE: (T.DOUBLE, F(0), st.floats() | st.integers(-(1 << 40), 1 << 40)),
    ValueKind.TEXT: (T.DATETIME, F.BINARY, st.text(max_size=80) | st.binary(max_size=80)),
    ValueKind.STRING: (T.VARCHAR, F(0), st.text(max_size=80) | st.binary(max_size=80)),
    ValueKind.BINARY: (T.BLOB, F.BINARY, st.binary(max_size=80) | st.text(max_size=80)),
    ValueKind.ALWAYS_NULL: (T.GEOMETRY, F(0), st.binary(max_size=4)),
}

#: Both ways a shape encodes a group: they must agree byte for byte.
GROUP_ENCODERS = {"compiled": compiled_encoder, "looping": looping_encoder}


@pytest.fixture(params=sorted(GROUP_ENCODERS))
def make_encoder(request) -> Callable:
    return GROUP_ENCODERS[request.param]


@pytest.fixture(params=["cold", "hot"])
def tier(request, monkeypatch) -> str:
    """Run an encoder-level test with shapes kept looping, or compiled from their first group."""
    if request.param == "hot":
        monkeypatch.setattr(table_shape, "HOT_AFTER", 0)
    return request.param


@st.composite
def groups(draw) -> list[Column]:
    """A group of 1-12 columns of any kinds, each value maybe NULL."""
    kinds = draw(st.lists(st.sampled_from(list(KIND_COLUMNS)), min_size=1, max_size=12))
    columns = []
    for i, kind in enumerate(kinds):
        ctype, flags, values = KIND_COLUMNS[kind]
        value = draw(st.none() | values)
        columns.append(Column(f"c{i}", ctype, flags | F.NULLABLE, value))
    return columns


def generic_chunk(columns: list[Column]) -> bytes:
    """The nullable bytes chunk by the generic per-kind encoders: what the group encoders must write."""
    items = []
    for c in columns:
        items.append(None if c.value is None else ENCODERS[value_kind(c.type, c.flags)](c.value))
    return nullable_bytes_chunk(items)


def shape_of(columns: list[Column] | tuple[Column, ...]) -> TableShape:
    return build_shape([(c.name, c.type, c.flags) for c in columns])


def encoder_for(make_encoder: Callable, columns) -> Callable:
    shape = shape_of(columns)
    return make_encoder(shape.signature, shape.kinds, shape.estimate)


@settings(max_examples=300, deadline=None)
@given(groups())
def test_both_group_encoders_write_what_the_generic_encoders_write(columns: list[Column]) -> None:
    chunk = generic_chunk(columns)
    shape = shape_of(columns)
    value_bytes = sum(len(e(c.value)) for c, e in zip(columns, shape.encoders) if c.value is not None and e(c.value))
    for make_encoder in GROUP_ENCODERS.values():
        assert encoder_for(make_encoder, columns)(tuple(columns)) == (chunk, shape.estimate + value_bytes)


def test_the_estimate_is_the_shape_estimate_plus_the_value_bytes(make_encoder) -> None:
    columns = (Column("id", T.INT, F.HANDLE_KEY, 300), Column("v", T.VARCHAR, F(0), "x" * 100), Column("n", T.INT, F(0), None))
    _, estimate = encoder_for(make_encoder, columns)(columns)
    assert estimate == shape_of(columns).estimate + 2 + 100  # varint(300) takes 2 bytes; NULL takes none


BASE = (
    Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1),
    Column("name", T.VARCHAR, F.NULLABLE, "x"),
    Column("price", T.DOUBLE, F.NULLABLE, 1.5),
)


@pytest.mark.parametrize(
    "changed",
    [
        Column("name", T.VARCHAR, F.NULLABLE | F.BINARY, "x"),  # only the flags of one column differ
        Column("name", T.BLOB, F.NULLABLE, "x"),  # only the type
        Column("nam", T.VARCHAR, F.NULLABLE, "x"),  # only the name
    ],
)
def test_a_group_of_another_signature_is_refused(make_encoder, changed: Column) -> None:
    encode = encoder_for(make_encoder, BASE)
    assert encode(BASE) is not None
    assert encode((BASE[0], changed, BASE[2])) is None


def test_the_signature_compares_by_equality_not_identity(make_encoder) -> None:
    encode = encoder_for(make_encoder, BASE)
    twin = tuple(Column("".join(c.name), T(int(c.type)), F(int(c.flags)), c.value) for c in BASE)
    assert encode(twin) == encode(BASE)


def test_names_reach_the_generated_code_as_data_not_source() -> None:
    columns = [Column("a'); raise SystemExit('", T.INT, F(0), 1), Column('"""', T.VARCHAR, F(0), "v")]
    assert "SystemExit" not in group_source(shape_of(columns).kinds)
    assert encoder_for(compiled_encoder, columns)(tuple(columns))[0] == generic_chunk(columns)


def test_shapes_of_the_same_kinds_share_compiled_code_but_not_signatures() -> None:
    first = encoder_for(compiled_encoder, BASE)
    other = tuple(Column(c.name + "_2", c.type, c.flags, c.value) for c in BASE)
    second = encoder_for(compiled_encoder, other)
    assert first.__code__ is second.__code__
    assert second(BASE) is None and first(other) is None


def test_a_shape_is_compiled_after_hot_after_groups_and_writes_the_same(monkeypatch) -> None:
    monkeypatch.setattr(table_shape, "HOT_AFTER", 3)
    shape = shape_of(BASE)
    looping = shape.encode_group
    results = [shape.encode_group(BASE) for _ in range(5)]
    assert shape.encode_group is not looping
    assert shape.encode_group.__code__.co_filename.startswith("<craft group encoder")
    assert results == [results[0]] * 5


def test_a_group_too_wide_to_unroll_keeps_looping(monkeypatch) -> None:
    monkeypatch.setattr(table_shape, "HOT_AFTER", 0)
    columns = tuple(Column(f"c{i}", T.INT, F(0), i) for i in range(MAX_UNROLLED_COLUMNS + 1))
    shape = shape_of(columns)
    assert shape.encode_group(columns)[0] == generic_chunk(list(columns))
    assert shape.encode_group.__code__.co_filename == looping_encoder.__code__.co_filename
    with pytest.raises(ValueError):
        compiled_encoder(shape.signature, shape.kinds, shape.estimate)


def test_a_table_of_4096_columns_encodes(craft, tier: str) -> None:
    image = tuple(Column(f"c{i}", T.INT if i % 2 else T.VARCHAR, F(0), i if i % 2 else "v" * (i % 90)) for i in range(4096))
    events = [RowChangedEvent(ts, "s", "wide", image, image) for ts in (1, 2)]
    config = craft.config()
    assert craft.decode(config, craft.encode(config, events)) == craft.carried(config, events)


def one_by_one(rows: list[RowChangedEvent]) -> list[bytes]:
    """Each row encoded alone by a fresh encoder: no cache can be stale."""
    return [p.value for r in rows for p in CraftEncoder(max_batch_size=1).encode([r])]


def test_a_row_whose_flags_differ_in_one_column_is_not_encoded_with_the_cached_shape(tier: str) -> None:
    flipped = (BASE[0], Column("name", T.VARCHAR, F.NULLABLE | F.UNIQUE_KEY, "y"), BASE[2])
    rows = [RowChangedEvent(ts, "s", "t", cols, None) for ts, cols in enumerate([BASE, flipped, BASE, flipped], 1)]
    encoder = CraftEncoder(max_batch_size=1)
    assert [p.value for p in encoder.encode(rows)] == one_by_one(rows)
    back = [e for p in CraftEncoder(max_batch_size=4).encode(rows) for e in CraftDecoder().decode_value(p.value)]
    assert [r.columns[1].flags for r in back] == [F.NULLABLE, F.NULLABLE | F.UNIQUE_KEY] * 2


def test_rows_of_tables_interleaved_encode_as_each_alone(tier: str) -> None:
    other = (Column("id", T.INT, F.HANDLE_KEY, 7), Column("when", T.DATETIME, F.BINARY, "2021-01-02 00:00:00"))
    rows = []
    for ts in range(1, 9):
        if ts % 2:
            rows.append(RowChangedEvent(ts, "s", "t", (Column("id", T.INT, F.HANDLE_KEY, ts), *BASE[1:]), None))
        else:
            rows.append(RowChangedEvent(ts, "s", "u", other, other))
    assert [p.value for p in CraftEncoder(max_batch_size=1).encode(rows)] == one_by_one(rows)


@pytest.mark.parametrize("hot", [False, True])
@settings(max_examples=40, deadline=None)
@given(rows=st.lists(row_events(all_types_table()) | row_events(), min_size=1, max_size=12))
def test_a_warm_encoder_writes_the_bytes_of_a_fresh_one(hot: bool, rows: list[RowChangedEvent]) -> None:
    saved = table_shape.HOT_AFTER
    table_shape.HOT_AFTER = 0 if hot else saved
    try:
        assert [p.value for p in CraftEncoder(max_batch_size=1).encode(rows)] == one_by_one(rows)
    finally:
        table_shape.HOT_AFTER = saved


def test_a_bad_value_on_a_fast_path_kind_names_its_column(tier: str) -> None:
    encoder = CraftEncoder()
    list(encoder.encode([RowChangedEvent(1, "s", "t", BASE, None)]))  # the shape is cached
    bad = (BASE[0], BASE[1], Column("price", T.DOUBLE, F.NULLABLE, "1.5"))
    with pytest.raises(EncodeError, match="'price'"):
        list(encoder.encode([RowChangedEvent(2, "s", "t", bad, None)]))


@pytest.mark.parametrize(
    "ctype, flags, value, says",
    [
        (T.INT, F(0), float("nan"), "expected an integer, got float nan ('float' object cannot be interpreted as an integer)"),
        (T.INT, F(0), 1.5, "expected an integer, got float 1.5 ('float' object cannot be interpreted as an integer)"),
        (T.INT, F.UNSIGNED, 1.5, "expected an integer, got float 1.5 ('float' object cannot be interpreted as an integer)"),
        (T.BIT, F.UNSIGNED, 2.0, "expected an integer, got float 2.0 ('float' object cannot be interpreted as an integer)"),
        (T.BIGINT, F(0), "12", "expected an integer, got str '12' ('str' object cannot be interpreted as an integer)"),
        (T.BIGINT, F.UNSIGNED, -1, "-1 is outside 0..18446744073709551615 (uvarint value -1 is outside 0..2^64-1)"),
        (T.DOUBLE, F(0), "1.5", "expected a number, got str '1.5'"),
        (T.VARCHAR, F(0), 12, "expected str or bytes, got int 12"),
    ],
)
def test_a_bad_value_error_says_what_is_wrong_with_it(
    tier: str, ctype: ColumnType, flags: ColumnFlag, value: object, says: str
) -> None:
    """Not what the fast path's arithmetic tripped over ("tuple indices must be integers")."""
    encoder = CraftEncoder()
    good = (Column("id", T.INT, F.HANDLE_KEY, 1), Column("v", ctype, flags | F.NULLABLE, None))
    list(encoder.encode([RowChangedEvent(1, "s", "t", good, None)] * 3))  # the shape is cached (and hot)
    bad = (good[0], Column("v", ctype, flags | F.NULLABLE, value))
    with pytest.raises(EncodeError) as info:
        list(encoder.encode([RowChangedEvent(2, "s", "t", bad, None)]))
    assert str(info.value) == f"column 'v' ({ctype.name}) of s.t at commit ts 2: {says}"
    assert "tuple indices" not in str(info.value) and "not supported between" not in str(info.value)
