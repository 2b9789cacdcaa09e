"""What simple's Java decoder (``io.cdcwire.simple.SimpleDecoder``) is made with: the reading
table, probed from the installed Python decoder so that no value rule is written twice.

For every ``mysqlType`` name a table schema may give (with ``unsigned`` and a ``binary``
charset or not), :func:`reading_table` asks :func:`.table_schema._read_column` for the type
code and flags the reader rebuilds, and :func:`.json_values.reader_of` for the function that
reads the column's values, named by which of the module's rules it is. A type whose values
no rule here names (the NULL type) is left out: a schema with such a column is not learnt in
Java, so its rows go to the Python decoder. ``form`` says how :func:`.table_schema._type_text`
writes the column's type text, which Java rebuilds from the column's length and decimal.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import ColumnFlag, ColumnType, LargeMessageOptions, SinkConfig

from . import json_values
from .options import SimpleOptions
from .table_schema import _CHARSET_TYPES, _CODE_BY_NAME, _TIME_TYPES, _WITH_WIDTH, ColumnSchema, _read_column

T = ColumnType
#: The value rules of json_values.reader_of, by the Java decoder's names for them.
_RULES = {
    json_values._integer: "int", json_values._float: "double", json_values._bytes: "base64",
    json_values._text: "text", json_values._timestamp: "timestamp",
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot read simple messages of this configuration, or None when it can."""
    if SimpleOptions.from_config(config).encoding_format != "json":
        return "simple's avro encoding is decoded in Python only"
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "simple's large-message compression is decoded in Python only"
    return None


def _rule(reader: Any) -> Optional[str]:
    if reader in _RULES:
        return _RULES[reader]
    if reader.__qualname__ == "reader_of.<locals>.<lambda>" and reader("1.5") == json_values.float32_of(1.5):
        return "float32"
    return None  # the NULL type's: it reads no value


def _form(ctype: ColumnType) -> str:
    """Which branch of ``_type_text`` writes this type's text."""
    if ctype in (T.ENUM, T.SET):
        return "elements"
    if ctype == T.DECIMAL:
        return "decimal"
    if ctype in _TIME_TYPES:
        return "time"
    return "width" if ctype in _WITH_WIDTH else "plain"


def reading_table() -> dict[str, dict[str, Any]]:
    """Per ``"<mysqlType>/<unsigned 0|1>/<binary charset 0|1>"``: ``rule`` (the value rule),
    ``type`` (the type code read back, by name), ``flags`` (as read, before NULLABLE and the
    key flags), ``form`` and ``suffixes`` (whether `` unsigned`` / `` zerofill`` may follow)."""
    table: dict[str, dict[str, Any]] = {}
    for name in sorted(_CODE_BY_NAME):
        for unsigned in (False, True):
            for binary in (False, True):
                col = ColumnSchema("c", name, "binary" if binary else "utf8mb4", "", unsigned=unsigned,
                                   nullable=False)
                read = _read_column(col, 0)
                rule = _rule(json_values.reader_of(read.type, read.flags))
                if rule is None:
                    continue
                table[f"{name}/{int(unsigned)}/{int(binary)}"] = {
                    "rule": rule, "type": read.type.name, "flags": int(read.flags), "form": _form(read.type),
                    "suffixes": read.type not in (T.BIT, T.YEAR) and read.type not in _CHARSET_TYPES,
                }
    return table


_READINGS: list[dict] = []  # the one reading table of this process (it depends on no option)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java decoder is made with (the core adds the record checks' tables)."""
    if not _READINGS:
        _READINGS.append(reading_table())
    flags = {f.name: int(f) for f in (ColumnFlag.NULLABLE, ColumnFlag.PRIMARY_KEY, ColumnFlag.UNIQUE_KEY,
                                       ColumnFlag.MULTIPLE_KEY, ColumnFlag.HANDLE_KEY)}
    return {"readings": _READINGS[0], "flags": flags}
