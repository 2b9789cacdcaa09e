"""Row events as TiCDC's storage sink writes them in csv (``csv_message.go``), byte for byte.

A record is ``op, table, schema, [commit-ts], [is-update], values`` and the terminator. Go
strings are quoted (a quote inside doubled) or, without a quote character, backslash-escaped
(``\\r``, ``\\n``, ``\\\\`` and each character of the delimiter); numbers are printed
bare as Go's ``%v`` prints them (integers, BIT as its integer, floats, the commit ts, is-update).
Strings are the op, table and schema names, text values, ENUM/SET names, binary values
(base64 or hex), and, as TiCDC's mounter hands them over as text (and its documentation shows
``"2014-06-04"``), DECIMAL, dates and times and JSON. (TiCDC's newer writer prints those bare,
JSON with its commas unquoted, which no csv parser reads back; cdcwire's reader takes both.)
NULL is the null text, bare. An update with ``output-old-value`` is a ``D`` row of the old image
then an ``I`` row of the new one, both with is-update ``true``.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Iterable, Optional

from ...model.events import Column, RowChangedEvent
from ...values.type_codes import ColumnFlag, ColumnType as T
from ...values.type_text import TypeText, parse_type_text
from ...model.value_text import float32_text
from .csv_rows import CsvOptions

_TEXTUAL = frozenset({T.VARCHAR, T.CHAR, T.VAR_STRING, T.TINYBLOB, T.BLOB, T.MEDIUMBLOB, T.LONGBLOB})
_QUOTED_TEXT = frozenset({T.DECIMAL, T.DATE, T.NEWDATE, T.DATETIME, T.TIMESTAMP, T.TIME, T.JSON})


def go_float(x: float, float32: bool = False) -> str:
    """Go's ``%v`` of a float: shortest digits, an exponent below 1e-4 and from 1e21 on."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "+Inf" if x > 0 else "-Inf"
    digits = float32_text(x) if float32 else repr(x)
    d = Decimal(digits)
    if d == 0:
        return "-0" if str(digits).startswith("-") else "0"
    exponent = d.adjusted()
    if exponent < -4 or exponent >= 21:
        sign, ds, _ = d.normalize().as_tuple()
        mantissa = "".join(map(str, ds))
        text = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
        return ("-" if sign else "") + f"{text}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    text = format(d.normalize(), "f")
    return text


class CsvEncoder:
    """Writes records with one set of options (``binary``: ``base64`` or ``hex``)."""

    def __init__(self, options: CsvOptions, binary: str = "base64") -> None:
        self.options = options
        self.binary = binary
        d = options.dialect
        self._delimiter, self._quote, self._null, self._terminator = d.delimiter, d.quote, d.null, d.terminator

    def header(self, names: Iterable[str]) -> str:
        """The header record TiCDC writes first in each file (names joined, not quoted)."""
        return self._delimiter.join(self.options.header_names_of(list(names))) + self._terminator

    def encode(self, event: RowChangedEvent) -> str:
        if event.is_update and self.options.output_old_value:
            return (self._record("D", event, event.pre_columns, True)
                    + self._record("I", event, event.columns, True))
        op = "I" if event.is_insert else "D" if event.is_delete else "U"
        return self._record(op, event, event.image, event.is_update)

    def _record(self, op: str, event: RowChangedEvent, columns, is_update: bool) -> str:
        fields = [self._string(op), self._string(event.table), self._string(event.schema)]
        if self.options.include_commit_ts:
            fields.append(str(event.commit_ts))
        if self.options.output_old_value:
            fields.append("true" if is_update else "false")
        fields.extend(self._value(c) for c in columns or ())
        return self._delimiter.join(fields) + self._terminator

    def _string(self, text: str) -> str:
        if self._quote:
            return self._quote + text.replace(self._quote, self._quote + self._quote) + self._quote
        out = text.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")
        delimiter = self._delimiter
        if delimiter in out:
            out = out.replace(delimiter, "".join("\\" + c for c in delimiter))
        return out

    def _value(self, column: Column) -> str:
        value = column.value
        if value is None:
            return self._null
        ctype = column.type
        if isinstance(value, bytes) or column.flags & ColumnFlag.BINARY and ctype in _TEXTUAL:
            raw = value if isinstance(value, bytes) else str(value).encode("latin-1")
            return self._string(raw.hex() if self.binary == "hex" else base64.b64encode(raw).decode("ascii"))
        if ctype in _TEXTUAL:
            return self._string(str(value))
        if ctype in (T.ENUM, T.SET):
            return self._string(_names(column))
        if ctype in _QUOTED_TEXT:
            return self._string(str(value))
        if ctype in (T.FLOAT, T.DOUBLE):
            return go_float(float(value), ctype == T.FLOAT)
        return str(value)


def _type_text(column: Column) -> Optional[TypeText]:
    found = parse_type_text(column.mysql_type) if column.mysql_type else None
    return found if isinstance(found, TypeText) else None


def _names(column: Column) -> str:
    """ENUM's element name (1-based index; 0 is ""), SET's names joined by commas."""
    parsed = _type_text(column)
    elements = parsed.elements if parsed and parsed.elements else ()
    value = int(column.value)  # type: ignore[arg-type]
    if column.type == T.ENUM:
        return elements[value - 1] if 0 < value <= len(elements) else ""
    return ",".join(e for i, e in enumerate(elements) if value >> i & 1)
