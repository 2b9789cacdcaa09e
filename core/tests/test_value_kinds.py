"""The one classification of column values and their canonical form (cdcwire.values.value_kinds)."""

from __future__ import annotations

import pytest

from cdcwire.values.type_codes import ColumnFlag as F
from cdcwire.values.type_codes import ColumnType as T
from cdcwire.values.value_kinds import ValueKind, canonical_value, holds_bytes, to_float32, value_kind


@pytest.mark.parametrize(
    ("ctype", "flags", "kind"),
    [
        (T.INT, F(0), ValueKind.SIGNED),
        (T.BIGINT, F.UNSIGNED, ValueKind.UNSIGNED),
        (T.YEAR, F.UNSIGNED, ValueKind.SIGNED),
        (T.BIT, F(0), ValueKind.UNSIGNED),
        (T.ENUM, F(0), ValueKind.UNSIGNED),
        (T.FLOAT, F(0), ValueKind.FLOAT32),
        (T.DOUBLE, F(0), ValueKind.FLOAT64),
        (T.VARCHAR, F(0), ValueKind.TEXT),
        (T.VARCHAR, F.BINARY, ValueKind.BYTES),
        (T.BLOB, F.BINARY, ValueKind.BYTES),
        (T.GEOMETRY, F(0), ValueKind.BYTES),
        (T.DATE, F.BINARY, ValueKind.TEXT),
        (T.DECIMAL, F(0), ValueKind.TEXT),
        (T.NULL, F(0), ValueKind.NULL),
    ],
)
def test_every_type_has_one_value_kind(ctype, flags, kind):
    assert value_kind(ctype, flags) is kind
    assert holds_bytes(ctype, flags) == (kind is ValueKind.BYTES)


def test_every_column_type_is_classified():
    assert all(isinstance(value_kind(t, F(0)), ValueKind) for t in T)


def test_an_unknown_type_code_is_refused():
    with pytest.raises(ValueError, match="200"):
        value_kind(200, 0)


def test_canonical_values_are_what_a_lossless_reader_gives_back():
    assert canonical_value(T.FLOAT, F(0), 0.1) == to_float32(0.1) != 0.1
    assert canonical_value(T.DOUBLE, F(0), 3) == 3.0 and isinstance(canonical_value(T.DOUBLE, F(0), 3), float)
    assert canonical_value(T.VARCHAR, F.BINARY, "é") == "é".encode()
    assert canonical_value(T.BLOB, F(0), "é".encode()) == "é"
    assert canonical_value(T.NULL, F(0), None) is None
    assert canonical_value(T.INT, F(0), None) is None
