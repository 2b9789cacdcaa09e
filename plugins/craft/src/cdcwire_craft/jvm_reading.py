"""craft's JVM tier (plugin API 1.12): the Java decoder (``jvm/``, package ``io.cdcwire.craft``,
compiled by the core with its JVM framework) and the glue that configures it.

The Python decoder (:mod:`.decoder`) stays the reference: Java reads the messages of row and
resolved events it is sure of, byte for byte as the Python decoder reads them, into the same
event rows (one per event of the batch a message packs), and leaves every other message (DDL,
anything not exactly well-formed) to the Python decoder, in its place, which words every error.

Nothing Java needs of the value rules is written twice: :func:`reading_table` asks the
installed decoder's own column table (:class:`.group_shapes.ShapeRegistry`) for every type code
and flag bits how it reads a value, and names the rule by the function it reads with.
"""

from __future__ import annotations

from typing import Any, Optional

from cdcwire.plugin_api import ColumnFlag, SinkConfig

from . import column_values as cv
from .group_shapes import ShapeRegistry

#: The rule Java reads a value with, by the Python decoder's function that reads it.
_RULES = {
    cv._decode_signed: "zigzag",
    cv._read_uvarint_exactly: "uvarint",
    cv._decode_float: "float32",
    cv._decode_double: "float64",
    bytes.decode: "utf8",
    bytes: "bytes",
    cv._decode_nothing: "null",
}
#: Every flag bit a column may carry; Java leaves a column of any other bit to Python.
FLAG_MASK = sum(int(flag) for flag in ColumnFlag)
#: The flag bits a value rule may depend on, in the order of a type's ``rules``.
_RULE_BITS = (0, int(ColumnFlag.BINARY), int(ColumnFlag.UNSIGNED), int(ColumnFlag.BINARY | ColumnFlag.UNSIGNED))
_TYPE_CODES = range(256)  # a type code is one byte in MySQL's numbering


def _rule(registry: ShapeRegistry, code: int, flags: int) -> Optional[tuple[str, str]]:
    """(type name, rule name) of a column of this type code and these flags, as the decoder
    reads it; None where it reads none (an unknown code) or with a function Java lacks."""
    try:
        meta = registry.meta(code, flags)
    except Exception:  # a type code craft cannot carry: the decoder refuses it
        return None
    if meta is None:
        return None
    ctype, _flags, kind = meta
    rule = _RULES.get(cv.DECODERS[kind])  # type: ignore[index]
    return None if rule is None else (ctype.name, rule)


def reading_table() -> dict[str, dict[str, Any]]:
    """For each type code the decoder reads (as text): ``type`` (the ColumnType name read back)
    and ``rules`` (the value rule under flags 0, BINARY, UNSIGNED, BINARY|UNSIGNED). A code whose
    rule depends on any other flag bit is left out: Java then leaves its columns to Python."""
    registry = ShapeRegistry()
    table: dict[str, dict[str, Any]] = {}
    for code in _TYPE_CODES:
        by_bits = [_rule(registry, code, bits) for bits in _RULE_BITS]
        if None in by_bits or len({name for name, _ in by_bits}) != 1:  # type: ignore[misc]
            continue
        agrees = all(
            _rule(registry, code, flags) == by_bits[_RULE_BITS.index(flags & _RULE_BITS[3])]
            for flags in range(FLAG_MASK + 1)
        )
        if agrees:
            table[str(code)] = {"type": by_bits[0][0], "rules": [rule for _, rule in by_bits]}  # type: ignore[index]
    return table


_READINGS: list[dict] = []  # the one reading table of this process (it depends on no option)


def decoder_config(config: SinkConfig) -> dict[str, Any]:
    """What the Java decoder is made with (the core adds the record checks' tables)."""
    if not _READINGS:
        _READINGS.append(reading_table())
    return {"readings": _READINGS[0], "flag_mask": FLAG_MASK}
