"""The generated per-shape group encoders (group_code.py) against the generic per-kind encoders,
and the encoder's shape cache: a row of another shape must never be encoded with a cached one."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire.errors import EncodeError
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire_craft.column_values import ENCODERS, ValueKind, value_kind
from cdcwire_craft.decoder import CraftDecoder
from cdcwire_craft.encoder import CraftEncoder
from cdcwire_craft.group_code import group_source
from cdcwire_craft.primitives import nullable_bytes_chunk
from cdcwire_craft.table_shape import build_shape

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
    """The nullable bytes chunk by the generic per-kind encoders: what the generated code must write."""
    items = []
    for c in columns:
        items.append(None if c.value is None else ENCODERS[value_kind(c.type, c.flags)](c.value))
    return nullable_bytes_chunk(items)


def shape_of(columns: list[Column]):
    return build_shape([(c.name, c.type, c.flags) for c in columns])


@settings(max_examples=300, deadline=None)
@given(groups())
def test_the_generated_encoder_writes_what_the_generic_encoders_write(columns: list[Column]) -> None:
    shape = shape_of(columns)
    encoded = shape.encode_group(tuple(columns))
    assert encoded is not None
    assert encoded[0] == generic_chunk(columns)


def test_the_estimate_is_the_shape_estimate_plus_the_value_bytes() -> None:
    columns = (Column("id", T.INT, F.HANDLE_KEY, 300), Column("v", T.VARCHAR, F(0), "x" * 100), Column("n", T.INT, F(0), None))
    shape = shape_of(list(columns))
    _, estimate = shape.encode_group(columns)
    assert estimate == shape.estimate + 2 + 100  # varint(300) takes 2 bytes; NULL takes none


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
def test_a_group_of_another_signature_is_refused(changed: Column) -> None:
    shape = shape_of(list(BASE))
    assert shape.encode_group(BASE) is not None
    assert shape.encode_group((BASE[0], changed, BASE[2])) is None


def test_the_signature_compares_by_equality_not_identity() -> None:
    shape = shape_of(list(BASE))
    twin = tuple(Column("".join(c.name), T(int(c.type)), F(int(c.flags)), c.value) for c in BASE)
    assert shape.encode_group(twin) == shape.encode_group(BASE)


def test_names_reach_the_generated_code_as_data_not_source() -> None:
    columns = [Column("a'); raise SystemExit('", T.INT, F(0), 1), Column('"""', T.VARCHAR, F(0), "v")]
    assert "SystemExit" not in group_source(shape_of(columns).kinds)
    assert shape_of(columns).encode_group(tuple(columns))[0] == generic_chunk(columns)


def one_by_one(rows: list[RowChangedEvent]) -> list[bytes]:
    """Each row encoded alone by a fresh encoder: no cache can be stale."""
    return [p.value for r in rows for p in CraftEncoder(max_batch_size=1).encode([r])]


def test_a_row_whose_flags_differ_in_one_column_is_not_encoded_with_the_cached_shape() -> None:
    flipped = (BASE[0], Column("name", T.VARCHAR, F.NULLABLE | F.UNIQUE_KEY, "y"), BASE[2])
    rows = [RowChangedEvent(ts, "s", "t", cols, None) for ts, cols in enumerate([BASE, flipped, BASE, flipped], 1)]
    encoder = CraftEncoder(max_batch_size=1)
    assert [p.value for p in encoder.encode(rows)] == one_by_one(rows)
    back = [e for p in CraftEncoder(max_batch_size=4).encode(rows) for e in CraftDecoder().decode_value(p.value)]
    assert [r.columns[1].flags for r in back] == [F.NULLABLE, F.NULLABLE | F.UNIQUE_KEY] * 2


def test_rows_of_tables_interleaved_encode_as_each_alone() -> None:
    other = (Column("id", T.INT, F.HANDLE_KEY, 7), Column("when", T.DATETIME, F.BINARY, "2021-01-02 00:00:00"))
    rows = []
    for ts in range(1, 9):
        if ts % 2:
            rows.append(RowChangedEvent(ts, "s", "t", (Column("id", T.INT, F.HANDLE_KEY, ts), *BASE[1:]), None))
        else:
            rows.append(RowChangedEvent(ts, "s", "u", other, other))
    assert [p.value for p in CraftEncoder(max_batch_size=1).encode(rows)] == one_by_one(rows)


@settings(max_examples=60, deadline=None)
@given(st.lists(row_events(all_types_table()) | row_events(), min_size=1, max_size=12))
def test_a_warm_encoder_writes_the_bytes_of_a_fresh_one(rows: list[RowChangedEvent]) -> None:
    assert [p.value for p in CraftEncoder(max_batch_size=1).encode(rows)] == one_by_one(rows)


def test_a_bad_value_on_a_fast_path_kind_names_its_column() -> None:
    encoder = CraftEncoder()
    list(encoder.encode([RowChangedEvent(1, "s", "t", BASE, None)]))  # the shape is cached
    bad = (BASE[0], BASE[1], Column("price", T.DOUBLE, F.NULLABLE, "1.5"))
    with pytest.raises(EncodeError, match="'price'"):
        list(encoder.encode([RowChangedEvent(2, "s", "t", bad, None)]))
