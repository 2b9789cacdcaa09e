from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cdcwire.values.value_kinds import to_float32
from cdcwire.model.value_text import float32_text, float64_text


@pytest.mark.parametrize(
    "value, text",
    [(2.0, "2"), (0.5, "0.5"), (1e20, "100000000000000000000"), (1e-7, "0.0000001"), (-0.0, "-0"), (123.456, "123.456")],
)
def test_float64_text_is_shortest_without_exponent(value, text):
    assert float64_text(value) == text


@pytest.mark.parametrize(
    "value, text",
    [(to_float32(153.123), "153.123"), (to_float32(0.1), "0.1"), (2.0, "2"), (to_float32(3.4e38), "340000000000000000000000000000000000000")],
)
def test_float32_text_is_shortest_for_float32(value, text):
    assert float32_text(value) == text


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_text_reads_back_to_the_same_float32(f):
    f = to_float32(f)
    assert struct.pack("<f", float(float32_text(f))) == struct.pack("<f", f)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float64_text_reads_back_to_the_same_float(f):
    assert float(float64_text(f)) == f
