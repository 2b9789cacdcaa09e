"""Go's ``strconv.Quote`` / ``strconv.Unquote`` for byte strings, without the outer quotes.

The reference writes a BINARY / VARBINARY value as the Go-quoted text of its
bytes (``\\x89PNG\\r\\n\\x1a\\n``): printable UTF-8 stays as it is, invalid
bytes become ``\\xNN``, other runes ``\\a``-style, ``\\xNN``, ``\\uXXXX`` or
``\\UXXXXXXXX``. Go's ``unicode.IsPrint`` and Python's ``str.isprintable``
agree on the categories (letters, marks, numbers, punctuation, symbols and
U+0020); they can differ only on code points one Unicode version assigns and
the other does not, which changes the spelling, never the bytes read back.
"""

from __future__ import annotations

import codecs
import re

_SHORT_ESCAPES = {
    "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v",
    '"': '\\"', "\\": "\\\\",
}
#: Characters that might need an escape: quote, backslash, controls, DEL, anything not ASCII.
_MAYBE_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f-\U0010ffff]')


def _escape_char(ch: str) -> str:
    """How Go's strconv.Quote spells one character of the surrogate-escaped text."""
    short = _SHORT_ESCAPES.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not valid UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x20 or code == 0x7F:
        return f"\\x{code:02x}"
    if ch.isprintable():
        return ch
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _escape(match: re.Match[str]) -> str:
    return _escape_char(match.group())


#: Escapes of the characters binary values hold most: ASCII controls, quote, backslash, DEL,
#: C1 controls and the 128 invalid-UTF-8 bytes. ``str.translate`` applies them in C.
_COMMON_ESCAPES = {
    code: _escape_char(chr(code))
    for code in (*range(0x00, 0xA0), *range(0xDC80, 0xDD00))
    if _escape_char(chr(code)) != chr(code)
}


def go_quote(data: bytes) -> str:
    """``strconv.Quote(string(data))`` without the surrounding double quotes.

    Random binary bytes are mostly escapes: one ``str.translate`` over the common ones
    is exact whenever every character it leaves is printable (Go keeps printable runes
    as they are); rarer non-printable runes take the per-character path.
    """
    text = data.decode("utf-8", "surrogateescape")
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return text
    quoted = text.translate(_COMMON_ESCAPES)
    if quoted.isprintable():
        return quoted
    return _MAYBE_ESCAPED.sub(_escape, text)


class GoQuoteError(ValueError):
    """The text is not the inside of a Go double-quoted string literal."""

    def __init__(self, reason: str, index: int):
        super().__init__(f"{reason} at character {index}")
        self.reason = reason
        self.index = index


_TOKEN = re.compile(
    r"""[^\\"\n]+"""                          # a run of literal characters
    r"""|\\x[0-9A-Fa-f]{2}"""                  # one byte
    r"""|\\[0-7]{3}"""                         # one byte, octal
    r"""|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8}"""  # one rune
    r"""|\\[abfnrtv\\"]"""                     # short escapes
)
_UNESCAPE_SHORT = {
    "a": b"\a", "b": b"\b", "f": b"\f", "n": b"\n", "r": b"\r", "t": b"\t", "v": b"\v",
    "\\": b"\\", '"': b'"',
}


#: Text whose escapes are all byte escapes Python's own ``escape_decode`` reads the way Go does
#: (octal exactly three digits up to \\377, no \\u runes). Possessive, so a near miss costs
#: one pass, never backtracking.
_BYTE_ESCAPES_ONLY = re.compile(r"""(?:[^\\"\n]++|\\(?:x[0-9A-Fa-f]{2}|[0-3][0-7]{2}|[abfnrtv\\"]))*+""")


def go_unquote(text: str) -> bytes:
    """The bytes of ``strconv.Unquote('"' + text + '"')``; GoQuoteError if Go would reject it."""
    if "\\" not in text and '"' not in text and "\n" not in text:
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise GoQuoteError("lone surrogate code point", exc.start) from None
    if _BYTE_ESCAPES_ONLY.fullmatch(text) is not None:
        try:
            return codecs.escape_decode(text.encode("utf-8"))[0]
        except UnicodeEncodeError:
            pass  # a lone surrogate: the token loop names its position
    return _unquote_tokens(text)


def _unquote_tokens(text: str) -> bytes:
    """go_unquote one token at a time: every escape Go reads, and the exact reason it rejects one."""
    out = bytearray()
    pos = 0
    end = len(text)
    match = _TOKEN.match
    while pos < end:
        m = match(text, pos)
        if m is None:
            ch = text[pos]
            what = {"\n": "unescaped newline", '"': "unescaped double quote"}.get(ch, "invalid escape sequence")
            raise GoQuoteError(what, pos)
        token = m.group()
        if token[0] != "\\":
            try:
                out += token.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise GoQuoteError("lone surrogate code point", pos + exc.start) from None
        else:
            kind = token[1]
            if kind == "x":
                out.append(int(token[2:], 16))
            elif kind in "01234567":
                value = int(token[1:], 8)
                if value > 255:
                    raise GoQuoteError("octal escape above \\377", pos)
                out.append(value)
            elif kind in "uU":
                code = int(token[2:], 16)
                if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                    raise GoQuoteError("escape is not a valid Unicode code point", pos)
                out += chr(code).encode("utf-8")
            else:
                out += _UNESCAPE_SHORT[kind]
        pos = m.end()
    return bytes(out)
