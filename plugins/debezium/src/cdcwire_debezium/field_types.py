"""What the debezium wire needs to know of a column's type, from either side.

The encoder reads it from a row's Column (type code, flags, ``mysql_type`` when known); the
decoder from the Connect schema field TiCDC wrote (``tidb_type`` of the TiDB extension,
``optional``, the logical ``name`` and its ``parameters``). Both meet in :class:`FieldType`,
so the value rules (:mod:`.column_values`) and the read-back model (:mod:`.carried`) are
written once.

Without a table schema in the event model, what a DDL would give is derived as the
reference derives it when it has only the row: BIT width, DATETIME/TIMESTAMP fsp, FLOAT
scale and ENUM/SET elements come from ``mysql_type``; a DATETIME or TIMESTAMP without one
takes its fsp from the digits of its value's fraction, a BIT without one is 64 bits wide.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from cdcwire.plugin_api import (
    BINARY_TYPE_NAMES,
    TYPE_NAMES,
    Column,
    ColumnFlag,
    ColumnType,
    TypeText,
    parse_type_text,
)

#: TiDB's ``types.TypeToStr`` names (``getTiDBType``), text and binary character sets, for the
#: types debezium maps (not NULL or GEOMETRY).
_TEXT_NAMES = {t: n for t, n in TYPE_NAMES.items() if t not in (ColumnType.NULL, ColumnType.GEOMETRY)}
#: With the binary character set. VAR_STRING: TiDB writes "var_string" for both, which would
#: leave a reader unable to tell base64 from text; TiDB's own tables never have VAR_STRING
#: columns (varchar is VARCHAR), so cdcwire writes "varbinary" and reads it back as VARCHAR.
_BINARY_NAMES = {**BINARY_TYPE_NAMES, ColumnType.VAR_STRING: "varbinary"}
STRING_TYPES = frozenset(_BINARY_NAMES)
#: getTiDBType: these never get " unsigned".
_NO_UNSIGNED_SUFFIX = frozenset(
    {ColumnType.YEAR, ColumnType.BIT, ColumnType.VARCHAR, ColumnType.CHAR, ColumnType.DECIMAL}
)

_TYPES_BY_NAME: dict[str, tuple[ColumnType, bool]] = {
    **{name: (ctype, False) for ctype, name in _TEXT_NAMES.items() if ctype != ColumnType.NEWDATE},
    **{name: (ctype, True) for ctype, name in _BINARY_NAMES.items() if ctype != ColumnType.VAR_STRING},
}


class FieldTypeError(ValueError):
    """A column the debezium wire cannot describe (the caller adds where)."""


@dataclass(frozen=True, slots=True)
class FieldType:
    """A column's type as debezium writes and reads it.

    ``fsp`` is None when unknown (taken from each value); ``bit_length`` is the BIT width;
    ``float_scaled`` a FLOAT declared with a scale (written as "double"); ``elements`` the
    ENUM/SET element names.
    """

    type: ColumnType
    unsigned: bool = False
    binary: bool = False
    optional: bool = True
    fsp: Optional[int] = None
    bit_length: int = 64
    float_scaled: bool = False
    elements: Optional[tuple[str, ...]] = None

    @property
    def tidb_type(self) -> str:
        names = _BINARY_NAMES if self.binary and self.type in _BINARY_NAMES else _TEXT_NAMES
        name = names[self.type]
        if self.unsigned and self.type not in _NO_UNSIGNED_SUFFIX:
            name += " unsigned"
        return name

    @property
    def mysql_type(self) -> Optional[str]:
        """The type text a reader can give back: ENUM/SET elements and BIT width, else None."""
        if self.type == ColumnType.BIT:
            return f"bit({self.bit_length})"
        if self.type in (ColumnType.ENUM, ColumnType.SET) and self.elements is not None:
            quoted = ",".join("'" + e.replace("'", "''") + "'" for e in self.elements)
            return f"{'enum' if self.type == ColumnType.ENUM else 'set'}({quoted})"
        return None

    @property
    def flags(self) -> ColumnFlag:
        """The flags a reader gives back (handle-key flags aside)."""
        f = ColumnFlag(0)
        if self.optional:
            f |= ColumnFlag.NULLABLE
        if self.unsigned and self.type not in _NO_UNSIGNED_SUFFIX:
            f |= ColumnFlag.UNSIGNED
        if self.binary and self.type in STRING_TYPES:
            f |= ColumnFlag.BINARY
        return f

    @property
    def read_type(self) -> ColumnType:
        """The type code a reader gives back (NEWDATE reads as DATE, a binary VAR_STRING as VARCHAR)."""
        if self.type == ColumnType.NEWDATE:
            return ColumnType.DATE
        if self.type == ColumnType.VAR_STRING and self.binary:
            return ColumnType.VARCHAR
        return self.type


def field_type_of_column(column: Column) -> FieldType:
    """The FieldType of a row's column; FieldTypeError for a type debezium has no mapping for."""
    ctype = column.type
    if ctype not in _TEXT_NAMES:
        raise FieldTypeError(f"type {ColumnType(ctype).name} has no debezium mapping")
    flags = column.flags
    parsed: Optional[TypeText] = None
    if column.mysql_type:
        found = parse_type_text(column.mysql_type)
        if isinstance(found, str):
            raise FieldTypeError(found)
        parsed = found
    fsp = bit_length = None
    float_scaled = False
    elements = None
    if parsed is not None:
        if ctype in (ColumnType.DATETIME, ColumnType.TIMESTAMP, ColumnType.TIME):
            fsp = parsed.length or 0
        elif ctype == ColumnType.BIT:
            bit_length = parsed.length or 1
        elif ctype == ColumnType.FLOAT:
            float_scaled = parsed.scale is not None
        elif ctype in (ColumnType.ENUM, ColumnType.SET):
            elements = parsed.elements
    if ctype in (ColumnType.ENUM, ColumnType.SET) and elements is None:
        raise FieldTypeError(
            f"{ColumnType(ctype).name} needs its elements (mysql_type like \"enum('a','b')\"):"
            " debezium writes the element names"
        )
    return FieldType(
        type=ColumnType(ctype),
        unsigned=bool(flags & ColumnFlag.UNSIGNED),
        binary=bool(flags & ColumnFlag.BINARY),
        optional=bool(flags & ColumnFlag.NULLABLE),
        fsp=fsp,
        bit_length=64 if bit_length is None else bit_length,
        float_scaled=float_scaled,
        elements=elements,
    )


def split_allowed(allowed: str) -> tuple[str, ...]:
    """ENUM ``allowed``: elements joined by ``,``, a comma inside one escaped ``\\,``."""
    out, cur, i = [], [], 0
    while i < len(allowed):
        ch = allowed[i]
        if ch == "\\" and allowed.startswith(",", i + 1):
            cur.append(",")
            i += 2
            continue
        if ch == ",":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    out.append("".join(cur))
    return tuple(out)


#: What a FieldType is read from: (tidb_type, optional, type, name, parameters as sorted pairs).
SchemaFieldKey = tuple[str, bool, Optional[str], Optional[str], tuple[tuple[str, str], ...]]


def schema_field_key(field: Any) -> SchemaFieldKey:
    """The parts of a Connect schema field its FieldType is read from, each checked to be of
    its Connect kind (tidb_type, type and name strings, optional a boolean, parameters an
    object of strings): hashable, so a decoder caches FieldTypes by it. FieldTypeError names
    the first part that is not of its kind."""
    if not isinstance(field, dict):
        raise FieldTypeError("a schema field is not an object")
    tidb_type = field.get("tidb_type")
    if not isinstance(tidb_type, str):
        raise FieldTypeError("a schema field has no tidb_type")
    optional = field.get("optional")
    if not isinstance(optional, bool):
        raise FieldTypeError(f"a schema field's 'optional' must be a boolean, got {_shown(optional)}")
    kind, name, params = field.get("type"), field.get("name"), field.get("parameters")
    for part, value in (("type", kind), ("name", name)):
        if value is not None and not isinstance(value, str):
            raise FieldTypeError(f"a schema field's {part!r} must be a string, got {_shown(value)}")
    if params is None:
        params = {}
    if not isinstance(params, dict) or not all(isinstance(v, str) for v in params.values()):
        raise FieldTypeError(f"a schema field's 'parameters' must be an object of strings, got {_shown(params)}")
    return tidb_type, optional, kind, name, tuple(sorted(params.items()))


def _shown(value: Any) -> str:
    """A wire value in an error: its JSON kind and a short repr."""
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def field_type_of_schema(field: Any) -> FieldType:
    """The FieldType of a Connect schema field TiCDC wrote with the TiDB extension; FieldTypeError
    when it is not one."""
    tidb_type, optional, kind, name, pairs = schema_field_key(field)
    base, _, rest = tidb_type.partition(" ")
    if rest not in ("", "unsigned") or base not in _TYPES_BY_NAME:
        raise FieldTypeError(f"unknown tidb_type {tidb_type[:40]!r}")
    ctype, binary = _TYPES_BY_NAME[base]
    params = dict(pairs)
    fsp = None
    bit_length = 64
    elements = None
    if ctype == ColumnType.BIT:
        if kind == "boolean":
            bit_length = 1
        else:
            length = params.get("length")
            if not (isinstance(length, str) and length.isascii() and length.isdigit() and 2 <= int(length) <= 64):
                raise FieldTypeError("a BIT field has no length parameter of 2 to 64")
            bit_length = int(length)
    elif ctype in (ColumnType.ENUM, ColumnType.SET):
        allowed = params.get("allowed")
        if not isinstance(allowed, str):
            raise FieldTypeError("an ENUM/SET field has no allowed parameter")
        elements = split_allowed(allowed) if ctype == ColumnType.ENUM else tuple(allowed.split(","))
    elif ctype == ColumnType.DATETIME:
        fsp = 6 if name == "io.debezium.time.MicroTimestamp" else 3
    float_scaled = ctype == ColumnType.FLOAT and kind == "double"
    return FieldType(ctype, rest == "unsigned", binary, optional, fsp, bit_length, float_scaled, elements)
