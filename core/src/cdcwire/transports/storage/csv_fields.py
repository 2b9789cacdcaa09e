"""csv records as TiCDC writes them and TiDB Lightning's parser reads them: fields split by a
1-3 character delimiter, records by the terminator, NULL as the null text. Every record ends
with the terminator (TiCDC writes it after each, the last included): a file that ends inside a
record was cut short, and is refused rather than read with a shortened last value.

With a quote character a field may be quoted (a quote inside doubled, delimiters and line
breaks inside kept); without one (``quote=``) values are backslash-escaped instead:
``\\r``, ``\\n``, ``\\\\`` and each character of the delimiter (``a\\[\\*\\]b`` for
``a[*]b`` with delimiter ``[*]``). NULL is the null text unquoted and unescaped (``\\N``);
a quoted ``"\\N"`` or an escaped ``\\\\N`` is that text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional

Field = Optional[str]

_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "0": "\0", "b": "\b", "Z": "\x1a"}


class CsvSyntaxError(ValueError):
    """A record that no writer of TiCDC's options writes; ``line`` is where (1-based)."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(reason)
        self.line = line


@dataclass(frozen=True, slots=True)
class CsvDialect:
    delimiter: str = ","
    quote: str = '"'
    terminator: str = "\r\n"
    null: str = "\\N"


def records(text: str, dialect: CsvDialect) -> Iterator[tuple[int, list[Field]]]:
    """``(line, fields)`` per record, ``line`` the 1-based line it starts on."""
    delim, quote, term, null = dialect.delimiter, dialect.quote, dialect.terminator, dialect.null
    escapes = not quote
    stops = re.compile("|".join(re.escape(s) for s in ((delim, term) + (("\\",) if escapes else ()))))
    pos, n = 0, len(text)
    line, counted = 1, 0
    while pos < n:
        line += text.count("\n", counted, pos)
        counted = pos
        start_line = line
        fields: list[Field] = []
        while True:
            if quote and text.startswith(quote, pos):
                value, pos = _quoted(text, pos, quote, start_line)
                fields.append(value)
            else:
                start = pos
                value, pos = _unquoted(text, pos, stops, escapes, start_line)
                fields.append(None if text[start:pos] == null else value)
            if text.startswith(delim, pos):
                pos += len(delim)
                if pos >= n:
                    raise _cut(start_line, term)
                continue
            if text.startswith(term, pos):
                pos += len(term)
                break
            if pos >= n:
                raise _cut(start_line, term)
            raise CsvSyntaxError(start_line, f"text after the closing quote of field {len(fields)}")
        yield start_line, fields


def _cut(line: int, term: str) -> CsvSyntaxError:
    """The file ends inside a record: TiCDC ends every record with the terminator, so the last
    one was cut short (its last field may read as another value: ``19000057`` as ``19000``)."""
    return CsvSyntaxError(line, f"the last record does not end with the terminator {term!r}: the file is cut short")


def _quoted(text: str, pos: int, quote: str, line: int) -> tuple[str, int]:
    parts = []
    p = pos + 1
    while True:
        q = text.find(quote, p)
        if q < 0:
            raise CsvSyntaxError(line, "a quoted field is never closed (the file is cut short?)")
        parts.append(text[p:q])
        if text.startswith(quote, q + 1):
            parts.append(quote)
            p = q + 2
            continue
        return "".join(parts), q + 1


def _unquoted(text: str, pos: int, stops: "re.Pattern[str]", escapes: bool, line: int) -> tuple[str, int]:
    if not escapes:
        m = stops.search(text, pos)
        end = m.start() if m else len(text)
        return text[pos:end], end
    parts = []
    p = pos
    while True:
        m = stops.search(text, p)
        if m is None or m.group() != "\\":
            end = m.start() if m else len(text)
            parts.append(text[p:end])
            return "".join(parts), end
        parts.append(text[p:m.start()])
        if m.end() >= len(text):
            raise CsvSyntaxError(line, "a backslash ends the file (the file is cut short?)")
        c = text[m.end()]
        parts.append(_ESCAPES.get(c, c))
        p = m.end() + 1
