"""Go strconv.Quote / Unquote for binary string values."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cdcwire_open.go_quote import GoQuoteError, go_quote, go_unquote


def test_png_header_quotes_like_the_spec_example() -> None:
    assert go_quote(b"\x89PNG\r\n\x1a\n") == "\\x89PNG\\r\\n\\x1a\\n"


def test_quote_and_backslash_are_escaped() -> None:
    assert go_quote(b'a"b\\c') == 'a\\"b\\\\c'


def test_short_escapes_for_bell_backspace_formfeed_and_vertical_tab() -> None:
    assert go_quote(b"\a\b\f\v\t") == "\\a\\b\\f\\v\\t"


def test_control_and_delete_bytes_use_hex() -> None:
    assert go_quote(b"\x00\x1f\x7f") == "\\x00\\x1f\\x7f"


def test_non_printable_runes_use_u_and_big_u_escapes() -> None:
    assert go_quote("\u00a0\U000e0001".encode()) == "\\u00a0\\U000e0001"


def test_encoded_surrogates_are_invalid_utf8_bytes() -> None:
    assert go_quote(b"\xed\xa0\x80") == "\\xed\\xa0\\x80"


@given(st.binary(max_size=200))
def test_unquote_inverts_quote_for_any_bytes(data: bytes) -> None:
    assert go_unquote(go_quote(data)) == data


def test_unquote_reads_octal_and_rune_escapes_go_also_accepts() -> None:
    assert go_unquote("\\101\\u00e9\\U0001F600") == b"A" + "é😀".encode()


@pytest.mark.parametrize(
    "text", ['a"b', "a\nb", "\\q", "\\x4", "\\400", "\\ud800", "\\U00110000", "trailing\\", "\ud800"]
)
def test_unquote_rejects_what_go_rejects(text: str) -> None:
    with pytest.raises(GoQuoteError):
        go_unquote(text)


def _per_character(data: bytes) -> str:
    from cdcwire_open.go_quote import _MAYBE_ESCAPED, _escape

    return _MAYBE_ESCAPED.sub(_escape, data.decode("utf-8", "surrogateescape"))


@given(st.one_of(st.binary(max_size=200), st.text(max_size=100).map(lambda t: t.encode("utf-8", "surrogatepass"))))
def test_the_translate_fast_path_spells_every_value_like_the_per_character_escapes(data: bytes) -> None:
    assert go_quote(data) == _per_character(data)


def test_a_rare_non_printable_rune_beside_invalid_bytes_takes_the_per_character_path() -> None:
    assert go_quote(b"\xff" + "\u2028".encode()) == "\\xff\\u2028"


@given(st.text(alphabet=st.sampled_from(["a", "é", "\\", "x", "4", "0", "3", "7", "u", "n", '"', "\n", "\ud800"]), max_size=30))
def test_unquote_fast_paths_agree_with_the_token_loop_on_any_text(text: str) -> None:
    from cdcwire_open.go_quote import _unquote_tokens

    def outcome(unquote):
        try:
            return unquote(text)
        except GoQuoteError as exc:
            return ("rejected", exc.reason)

    assert outcome(go_unquote) == outcome(_unquote_tokens)
