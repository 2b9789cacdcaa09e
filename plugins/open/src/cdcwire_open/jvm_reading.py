"""open-protocol's messages read by the Java tier (``io.cdcwire.open.OpenDecoder``, a
``MessageDecoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python decoder (:mod:`.decoder`) stays the reference: Java reads the row and resolved
events of the messages it is sure of into the same event rows and leaves every other message
(DDL, claim-check pointers, handle-key-only rows, anything malformed or unusual) to the Python
decoder, in its place, which words every error a reader sees.

Nothing Java needs is written twice: :func:`reading_table` asks the installed decoder's own
column rule (``decoder._column_spec``) what it makes of every type code, with and without the
binary flag: the type the column reads back as and which of :mod:`.column_values`' readers
reads its values. The flag bits (binary, and the one ``"h":true`` adds) are probed the same way.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import ColumnFlag, ColumnType, LargeMessageOptions, SinkConfig

from . import column_values as cv
from .decoder import _column_spec, _Problem

#: The name Java knows each of the decoder's value readers by.
_RULES = {
    cv._read_integer: "int",
    cv._read_float32: "float32",
    cv._read_float64: "double",
    cv._read_text: "text",
    cv._read_quoted_bytes: "quoted",
    cv._read_base64_bytes: "base64",
    cv._read_base64_text: "base64text",
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot read messages of this configuration, or None when it can."""
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "open-protocol's large-message compression is decoded in Python only"
    return None


def reading_table() -> dict[str, list[Optional[dict[str, str]]]]:
    """For each type code the decoder reads (as text): [without, with the binary flag], each
    ``{"rule", "type"}`` or None where no reader Java has a port of reads its values."""
    table: dict[str, list[Optional[dict[str, str]]]] = {}
    for code in sorted(int(t) for t in ColumnType):
        readings: list[Optional[dict[str, str]]] = []
        for flags in (0, int(ColumnFlag.BINARY)):
            try:
                column_type, _, reader, canonical = _column_spec(code, flags, None, "c", "u")
            except _Problem:
                readings.append(None)
                continue
            rule = _RULES.get(reader)
            if canonical is str and rule != "text":
                rule = None  # a string it keeps without its reader: no port says the same
            readings.append(None if rule is None else {"rule": rule, "type": column_type.name})
        if any(readings):
            table[str(code)] = readings
    return table


def flag_bits() -> dict[str, int]:
    """The flag bit that picks a binary column's reader, and the one ``"h":true`` adds."""
    code = int(ColumnType.VARCHAR)
    plain = int(_column_spec(code, 0, None, "c", "u")[1])
    return {"binary": int(ColumnFlag.BINARY), "handle_key": int(_column_spec(code, 0, True, "c", "u")[1]) & ~plain}


_READINGS: list[dict] = []  # the one reading table of this process (it depends on no option)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java decoder is made with (the core adds the record checks' tables)."""
    if not _READINGS:
        _READINGS.append({"readings": reading_table(), "flags": flag_bits()})
    return dict(_READINGS[0])
