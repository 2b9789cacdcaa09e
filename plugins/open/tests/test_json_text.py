"""Numbers as Go's encoding/json writes them."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cdcwire_open.json_text import float32_json, float64_json, go_html_escape


@pytest.mark.parametrize(
    "x,text",
    [(1.0, "1"), (0.5, "0.5"), (1e16, "10000000000000000"), (1e20, "100000000000000000000"), (1e21, "1e+21"),
     (1.5e-7, "1.5e-7"), (0.000001, "0.000001"), (-2.25, "-2.25"), (5e-324, "5e-324")],
)
def test_float64_layout_matches_go(x: float, text: str) -> None:
    assert float64_json(x) == text


@pytest.mark.parametrize(
    "x,text",
    [(struct.unpack("<f", struct.pack("<f", 0.1))[0], "0.1"), (3.4028234663852886e38, "3.4028235e+38"),
     (1.401298464324817e-45, "1e-45"), (16777216.0, "16777216")],
)
def test_float32_layout_matches_go(x: float, text: str) -> None:
    assert float32_json(x) == text


def test_negative_zero_keeps_its_sign_with_a_fraction_point() -> None:
    assert (float64_json(-0.0), float32_json(-0.0), float32_json(0.0)) == ("-0.0", "-0.0", "0")


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_text_reads_back_to_the_same_float32(x: float) -> None:
    assert struct.pack("<f", float(float32_json(x))) == struct.pack("<f", x)


@pytest.mark.parametrize("x", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_numbers_are_refused(x: float) -> None:
    with pytest.raises(ValueError):
        float64_json(x)


def test_html_escape_covers_go_set() -> None:
    assert go_html_escape('"<>&\u2028\u2029"') == '"\\u003c\\u003e\\u0026\\u2028\\u2029"'
