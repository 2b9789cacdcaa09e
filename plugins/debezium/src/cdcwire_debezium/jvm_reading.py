"""debezium's messages read by the Java tier (``io.cdcwire.debezium.DebeziumDecoder``, a
``MessageDecoder`` of the core's JVM framework: ``jvm/`` beside this module).

The Python decoder (:mod:`.decoder`) stays the reference: Java reads the row messages
(``op`` c, u, d) and watermarks (``op`` m) it is sure of into the same event rows and leaves
every other message (DDL, anything malformed or unusual) to the Python decoder, in its place,
which words every error a reader sees.

Nothing Java needs is written twice: this module gives it the reading table, which
:func:`reading_table` gets from the installed decoder's own field rules: for every
``tidb_type`` text the decoder reads, the type code its value rule is chosen by, the type
the column reads back as, its flags (optional or not, as a key column or not) and which of
:func:`cdcwire_debezium.column_values.decode_value`'s rules reads its values.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import ColumnType, LargeMessageOptions, SinkConfig

from .column_values import _INTEGERS
from .decoder import _read_column
from .field_types import STRING_TYPES, FieldType, FieldTypeError, field_type_of_schema

T = ColumnType
#: decode_value's rule of each type code (STRING_TYPES and the integers aside).
_RULES = {
    T.YEAR: "int", T.FLOAT: "float32", T.DOUBLE: "double", T.DECIMAL: "decimal", T.JSON: "text",
    T.BIT: "bit", T.ENUM: "enum", T.SET: "set", T.DATE: "date", T.DATETIME: "datetime",
    T.TIMESTAMP: "timestamp", T.TIME: "time",
}


def refusal(config: SinkConfig) -> Optional[str]:
    """Why the Java tier cannot read messages of this configuration, or None when it can."""
    if LargeMessageOptions.from_config(config).compression.enabled:
        return "debezium's large-message compression is decoded in Python only"
    return None


def _rule(ft: FieldType) -> Optional[str]:
    """The name of decode_value's rule for a field of this type, None where it has none."""
    if ft.type in _INTEGERS:
        return "u64" if ft.unsigned and ft.type == T.BIGINT else "int"
    if ft.type in STRING_TYPES:
        return "base64" if ft.binary else "text"
    return _RULES.get(ft.type)


def _tidb_type_texts() -> list[str]:
    """Every tidb_type text a field may say, with and without `` unsigned``: the writer's names."""
    bases = set()
    for ctype in ColumnType:
        for binary in (False, True):
            try:
                bases.add(FieldType(ctype, binary=binary).tidb_type)
            except KeyError:  # a type debezium has no name for
                continue
    return sorted({text for base in bases for text in (base, f"{base} unsigned")})


def reading_table() -> dict[str, dict[str, Any]]:
    """For each tidb_type text the decoder reads: ``rule`` (its value rule), ``type`` (the type
    code read back), ``flags`` and ``key_flags`` (each [not optional, optional])."""
    table: dict[str, dict[str, Any]] = {}
    for text in _tidb_type_texts():
        reads = []
        for optional in (False, True):
            probe = {"tidb_type": text, "optional": optional, "type": "bytes", "field": "c",
                     "parameters": {"length": "8", "allowed": "a"}}
            try:
                reads.append(_read_column(field_type_of_schema(probe)))
            except FieldTypeError:
                break
        if len(reads) < 2:
            continue
        ft = reads[0][0]
        rule = _rule(ft)
        if rule is None:
            continue
        table[text] = {
            "rule": rule,
            "type": reads[0][1].name,
            "flags": [int(r[2]) for r in reads],
            "key_flags": [int(r[3]) for r in reads],
        }
    return table


_READINGS: list[dict] = []  # the one reading table of this process (it depends on no option)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java decoder is made with (the core adds the record checks' tables)."""
    if not _READINGS:
        _READINGS.append(reading_table())
    return {"readings": _READINGS[0]}
