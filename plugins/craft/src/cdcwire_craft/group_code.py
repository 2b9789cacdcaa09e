"""Generated, per-shape code for the hot loop of the encoder: one column group's values.

A generic loop over a group's columns pays, per column, for unpacking the
shape's spec, comparing name, type and flags one by one and dispatching on the
value kind; that was half of the encoder's time. The columns of a table change
rarely, so for each :class:`~cdcwire_craft.table_shape.TableShape` we generate,
a function unrolled over its columns once the shape has proved hot (compiling
takes milliseconds, so a shape seen for a few rows keeps the looping encoder,
as does one too wide to unroll). For a group of 3 columns (TEXT, SIGNED,
DOUBLE) it reads::

    def encode_group(columns):
        c0, c1, c2 = columns
        if (c0.name, c0.type, c0.flags, c1.name, ...) != SIGNATURE:
            return None
        v = c0.value
        if v.__class__ is str:
            d0 = v.encode()
            z0 = len(d0) << 1
        elif v is None:
            d0 = b""
            z0 = 1
        else:
            d0, z0 = other_value(ENCODE0, v)
        ...
        if z0 | z1 | z2 < 0x80:
            chunk = b"".join((SMALL_UVARINT[z0], SMALL_UVARINT[z1], SMALL_UVARINT[z2], d0, d1, d2))
            return chunk, len(chunk) + EXTRA
        # a value of 64 bytes or more: its length takes two or more varint bytes
        chunk = b"".join(((SMALL_UVARINT[z0] if z0 < 0x80 else uvarint(z0)), ..., d0, d1, d2))
        return chunk, ESTIMATE + (z0 >> 1) + (z1 >> 1) + (z2 >> 1)

``d`` is a value's bytes and ``z`` its zigzag length (``-1`` zigzags to ``1``),
so the nullable bytes chunk is the lengths then the bytes. Builtin calls such as
``bytes(...)`` or ``zip(...)`` cost more than a few plain operations, so the code
uses table lookups and arithmetic where it can.

The signature check is exact: it compares every column's name, type and flags
by equality, as the shape cache's key does, so a row of another shape gets None
and takes the encoder's slow path. Only the value kinds pick code; names, types
and flags reach the function as constants in its globals, never as source text,
so the compiled code depends only on the kinds and is shared by every shape of
the same kinds (sharded tables, say).

The fast paths are the common value classes; anything else (bool, bytes in a
text column, integers outside 64 bits, out-of-range floats, bad values) goes
through the kind's generic encoder in :data:`~cdcwire_craft.column_values.ENCODERS`,
which raises for bad values exactly as before.
"""

from __future__ import annotations

import struct
from functools import partial
from typing import Any, Callable, Optional, Sequence

from .code_cache import CodeCache
from .column_values import ENCODERS, ValueKind
from .primitives import CONTINUED_GROUP, I64_MAX, I64_MIN, SMALL_UVARINT, U64_MAX, nullable_bytes_chunk, uvarint

#: A generated group encoder: (nullable bytes chunk, the group's size estimate),
#: or None when the columns are not of the shape it was generated for.
GroupEncoder = Callable[[Sequence[Any]], Optional[tuple[bytes, int]]]
#: Its columnar twin: a known shape's values in, (nullable bytes chunk, size estimate) out.
ValuesEncoder = Callable[[Sequence[Any]], tuple[bytes, int]]

_F32_MAX = 3.4028234663852886e38  # larger FLOAT values take the generic (checking) path

#: Widest group that is unrolled: Python's compiler recurses once per column
#: through the generated expressions, and fails somewhere past a thousand.
MAX_UNROLLED_COLUMNS = 256

# The body of each value kind after ``v = cI.value``; {i} is the column's index.
# Each sets d{i} (the value's bytes, b"" for NULL) and z{i} (zigzag of its length).
_NULL = """\
    elif v is None:
        d{i} = b""
        z{i} = 1
    else:
        d{i}, z{i} = other_value(ENCODE{i}, v)
"""

_KIND_CODE: dict[ValueKind, str] = {
    # zigzag varints of 1 or 2 bytes inline, the rest of int64 by uvarint()
    ValueKind.SIGNED: """\
    if v.__class__ is int and -0x2000 <= v < 0x2000:
        u = (v << 1) ^ (v >> 63)
        if u < 0x80:
            d{i} = SMALL_UVARINT[u]
            z{i} = 2
        else:
            d{i} = CONTINUED_GROUP[u & 0x7F] + SMALL_UVARINT[u >> 7]
            z{i} = 4
    elif v.__class__ is int and I64_MIN <= v <= I64_MAX:
        d{i} = uvarint((v << 1) ^ (v >> 63))
        z{i} = len(d{i}) << 1
"""
    + _NULL,
    ValueKind.UNSIGNED: """\
    if v.__class__ is int and 0 <= v < 0x80:
        d{i} = SMALL_UVARINT[v]
        z{i} = 2
    elif v.__class__ is int and 0 <= v <= U64_MAX:
        d{i} = uvarint(v)
        z{i} = len(d{i}) << 1
"""
    + _NULL,
    ValueKind.FLOAT: """\
    if v.__class__ is float and -F32_MAX <= v <= F32_MAX:
        d{i} = pack_f64(v)
        z{i} = 16
"""
    + _NULL,
    ValueKind.DOUBLE: """\
    if v.__class__ is float:
        d{i} = pack_f64(v)
        z{i} = 16
"""
    + _NULL,
    ValueKind.ALWAYS_NULL: """\
    d{i} = b""
    z{i} = 1
""",
}
_TEXT_CODE = """\
    if v.__class__ is str:
        d{i} = v.encode()
        z{i} = len(d{i}) << 1
""" + _NULL
for _kind in (ValueKind.TEXT, ValueKind.STRING, ValueKind.BINARY):
    _KIND_CODE[_kind] = _TEXT_CODE


def other_value(encode: Callable[[Any], Any], value: Any) -> tuple[bytes, int]:
    """(bytes, zigzag length) of a value off the fast paths, by the kind's generic encoder."""
    if value is None:
        return b"", 1
    data = encode(value)
    if data is None:  # ALWAYS_NULL kinds
        return b"", 1
    return data, len(data) << 1


def group_source(kinds: Sequence[int], from_values: bool = False) -> str:
    """The source of ``encode_group`` for columns of these value kinds (see the module doc).

    ``from_values``: the columnar twin, ``encode_values(values)``, given an image's values
    in the shape's column order (an EventBatch's), so no signature to check: the shape is
    known. The value code and the bytes are the same."""
    n = len(kinds)
    ds = ", ".join(f"d{i}" for i in range(n))
    if from_values:
        lines = ["def encode_values(values):", f"    ({', '.join(f'v{i}' for i in range(n))},) = values"]
    else:
        cols = ", ".join(f"c{i}" for i in range(n))
        signature = ", ".join(f"c{i}.name, c{i}.type, c{i}.flags" for i in range(n))
        lines = [
            "def encode_group(columns):",
            f"    ({cols},) = columns",
            f"    if ({signature},) != SIGNATURE:",
            "        return None",
        ]
    for i, kind in enumerate(kinds):
        code = _KIND_CODE[ValueKind(kind)]
        if kind != ValueKind.ALWAYS_NULL:
            lines.append(f"    v = v{i}" if from_values else f"    v = c{i}.value")
        lines.append(code.format(i=i).rstrip("\n"))
    lengths = ", ".join(f"SMALL_UVARINT[z{i}]" for i in range(n))
    wide_lengths = ", ".join(f"(SMALL_UVARINT[z{i}] if z{i} < 0x80 else uvarint(z{i}))" for i in range(n))
    value_bytes = " + ".join(f"(z{i} >> 1)" for i in range(n))  # a NULL's z is 1: no bytes
    lines += [
        f"    if {' | '.join(f'z{i}' for i in range(n))} < 0x80:",
        f"        chunk = b''.join(({lengths}, {ds}))",
        "        return chunk, len(chunk) + EXTRA",
        f"    return b''.join(({wide_lengths}, {ds})), ESTIMATE + {value_bytes}",
    ]
    return "\n".join(lines) + "\n"


#: Compiled ``group_source`` code, shared by the shapes with the same kinds.
_group_code = CodeCache(group_source, "group encoder")
_values_code = CodeCache(partial(group_source, from_values=True), "group values encoder")


def compiled_encoder(signature: Sequence[tuple[str, Any, Any]], kinds: Sequence[int], estimate: int) -> GroupEncoder:
    """The unrolled ``encode_group`` for columns of this (name, type, flags) signature.

    ``estimate`` is the group's size estimate without its values; the function
    adds the values' byte count to it."""
    namespace = _namespace(signature, kinds, estimate)
    exec(_group_code(tuple(kinds)), namespace)
    return namespace["encode_group"]


def compiled_values_encoder(kinds: Sequence[int], estimate: int) -> ValuesEncoder:
    """The unrolled ``encode_values``: :func:`compiled_encoder`'s twin for a known shape's values."""
    namespace = _namespace((), kinds, estimate)
    exec(_values_code(tuple(kinds)), namespace)
    return namespace["encode_values"]


def _namespace(signature: Sequence[tuple[str, Any, Any]], kinds: Sequence[int], estimate: int) -> dict[str, Any]:
    n = len(kinds)
    if not 0 < n <= MAX_UNROLLED_COLUMNS:
        raise ValueError(f"only groups of 1 to {MAX_UNROLLED_COLUMNS} columns are unrolled, not {n}")
    namespace: dict[str, Any] = {
        "SIGNATURE": tuple(x for column in signature for x in column),
        "SMALL_UVARINT": SMALL_UVARINT,
        "I64_MIN": I64_MIN,
        "I64_MAX": I64_MAX,
        "U64_MAX": U64_MAX,
        "uvarint": uvarint,
        "CONTINUED_GROUP": CONTINUED_GROUP,
        "F32_MAX": _F32_MAX,
        "pack_f64": struct.Struct("<d").pack,
        "other_value": other_value,
        "ESTIMATE": estimate,
        "EXTRA": estimate - n,  # with one-byte lengths, the chunk is n length bytes + the values
    }
    for i, kind in enumerate(kinds):
        namespace[f"ENCODE{i}"] = ENCODERS[ValueKind(kind)]
    return namespace


def looping_encoder(signature: Sequence[tuple[str, Any, Any]], kinds: Sequence[int], estimate: int) -> GroupEncoder:
    """The same checks and bytes as :func:`compiled_encoder`, as a plain loop over the
    kinds' generic encoders: for cold shapes and groups too wide to unroll."""
    expected = tuple(map(tuple, signature))
    encoders = tuple(ENCODERS[ValueKind(k)] for k in kinds)

    def encode_group(columns: Sequence[Any]) -> Optional[tuple[bytes, int]]:
        if tuple([(c.name, c.type, c.flags) for c in columns]) != expected:
            return None
        items = [None if c.value is None else encode(c.value) for encode, c in zip(encoders, columns)]
        return nullable_bytes_chunk(items), estimate + sum([len(b) for b in items if b is not None])

    return encode_group


def looping_values_encoder(kinds: Sequence[int], estimate: int) -> ValuesEncoder:
    """:func:`looping_encoder`'s twin for a known shape's values (no signature to check)."""
    encoders = tuple(ENCODERS[ValueKind(k)] for k in kinds)

    def encode_values(values: Sequence[Any]) -> tuple[bytes, int]:
        items = [None if v is None else encode(v) for encode, v in zip(encoders, values)]
        return nullable_bytes_chunk(items), estimate + sum([len(b) for b in items if b is not None])

    return encode_values
