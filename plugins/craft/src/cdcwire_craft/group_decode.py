"""Generated, per-shape code for the hot loop of the decoder: one column group's values.

The decoder's side of :mod:`cdcwire_craft.group_code`. A looping decoder pays,
per column, for the loop, unpacking the column's spec, dispatching on its value
kind and a function call for the value; that was most of the decoder's time.
A hot :class:`~cdcwire_craft.group_shapes.GroupShape` gets a function unrolled
over its columns instead. For a group of 3 columns (STRING, SIGNED, DOUBLE) it
reads::

    def decode_values(d, zs, p0, end):
        z0, z1, z2, = zs
        p1 = p0 + (z0 >> 1)
        p2 = p1 + (z1 >> 1)
        p3 = p2 + (z2 >> 1)
        if p3 != end:
            return None
        return (
            build(N0, T0, F0, d[p0:p1].decode()) if not z0 & 1 else NULL0 if z0 == 1 else bad_length(),
            build(N1, T1, F1, ZIGZAG[d[p1]] if z1 == 2 else decode1(d[p1:p2])) if not z1 & 1 else ...,
            build(N2, T2, F2, unpack_f64(d, p2)[0] if z2 == 16 else decode2(d[p2:p3])) if ...,
        )

``zs`` are the zigzag value lengths (``1`` is -1, NULL; any other odd one is an
invalid length below -1) and ``d[p0:end]`` the values. Each column is one
expression: a value of the common size is read inline (a one-byte varint by a
table lookup, a float64 by ``unpack_from``), any other size by the kind's
checking decoder from :data:`~cdcwire_craft.column_values.DECODERS`, and a NULL
is the shape's prebuilt NULL column (columns are immutable, so one serves all).

An update's old image usually repeats most of the new one. ``decode_values_like``
reads an old image after a new image of the same shape: a column whose length and
bytes equal the new image's is the new image's Column, neither decoded nor built
again (bytes, not values, are compared: 0.0 and -0.0 stay apart)::

        l0 if z0 == y0 and d[p0:p1] == d[q0:q1] else build(N0, T0, F0, d[p0:p1].decode()) if ...

Neither function explains a fault: each returns None when the lengths do not fill
the group exactly, and raises (ValueError, IndexError, OverflowError, struct.error)
on a bad length or value; the decoder then reads the group again the checking way,
which says what is wrong and where. So a fast path may give up, but never returns
what the checking path would not.

Only the value kinds pick code: names, types, flags and NULL columns reach the
function as constants in its globals, never as source text, and the compiled
code is shared by every shape of the same kinds.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, Optional, Sequence

from cdcwire.plugin_api import Column, build_column

from .code_cache import CodeCache
from .column_values import DECODERS, ValueKind
from .group_code import MAX_UNROLLED_COLUMNS

#: A generated group decoder: (data, zigzag lengths, first value byte, group end) -> columns,
#: or None when the lengths do not fill the group.
ValuesDecoder = Callable[[bytes, Sequence[int], int, int], Optional[tuple[Column, ...]]]

#: The same for an old image after a new one of its shape: also given the new image's lengths,
#: first value byte and columns, whose Columns it reuses for equal bytes.
LikeDecoder = Callable[
    [bytes, Sequence[int], int, int, Sequence[int], int, tuple[Column, ...]], Optional[tuple[Column, ...]]
]

#: What a generated decoder raises for bytes that are not what their column needs.
FAST_PATH_ERRORS = (ValueError, IndexError, OverflowError, struct.error)

# The value expression of each kind; {i} is the column's index, {j} the next one's.
_VALUE_CODE: dict[ValueKind, str] = {
    ValueKind.SIGNED: "ZIGZAG[d[p{i}]] if z{i} == 2 else decode{i}(d[p{i}:p{j}])",
    ValueKind.UNSIGNED: "SMALL[d[p{i}]] if z{i} == 2 else decode{i}(d[p{i}:p{j}])",
    ValueKind.FLOAT: (
        "unpack_f32(pack_f32(unpack_f64(d, p{i})[0]))[0] if z{i} == 16 else decode{i}(d[p{i}:p{j}])"
    ),
    ValueKind.DOUBLE: "unpack_f64(d, p{i})[0] if z{i} == 16 else decode{i}(d[p{i}:p{j}])",
    ValueKind.TEXT: "d[p{i}:p{j}].decode()",
    ValueKind.STRING: "d[p{i}:p{j}].decode()",
    ValueKind.BINARY: "d[p{i}:p{j}]",
}


def bad_length() -> None:
    """An odd zigzag length other than 1 is a length below -1: give up on the fast path."""
    raise ValueError("value length below -1")


def _column_code(i: int, kind: int) -> str:
    """The expression of column ``i``: its Column, from ``d[p{i}:p{i+1}]`` and length ``z{i}``."""
    if kind == ValueKind.ALWAYS_NULL:  # the bytes are ignored, as DECODERS does; the length is not
        return f"NULL{i} if not z{i} & 1 or z{i} == 1 else bad_length()"
    value = _VALUE_CODE[ValueKind(kind)].format(i=i, j=i + 1)
    return f"build(N{i}, T{i}, F{i}, {value}) if not z{i} & 1 else NULL{i} if z{i} == 1 else bad_length()"


def _positions(n: int, z: str, p: str) -> list[str]:
    """Unpack ``n`` zigzag lengths into z0.. and sum them into positions p1.. from p0."""
    lines = [f"    {', '.join(f'{z}{i}' for i in range(n))}, = {z}s"]
    return lines + [f"    {p}{i + 1} = {p}{i} + ({z}{i} >> 1)" for i in range(n)]


def values_source(kinds: Sequence[int]) -> str:
    """The source of ``decode_values`` and ``decode_values_like`` for columns of these value kinds.

    ``decode_values_like`` reads an old image after the new one of the same shape (an
    update): a column whose bytes equal the new image's is the new image's Column
    (``like``), so an update's unchanged columns are neither decoded nor built twice."""
    n = len(kinds)
    columns = [_column_code(i, kind) for i, kind in enumerate(kinds)]
    lines = ["def decode_values(d, zs, p0, end):", *_positions(n, "z", "p")]
    lines += [f"    if p{n} != end:", "        return None", "    return ("]
    lines += [f"        {column}," for column in columns]
    lines += ["    )", "", ""]
    lines += ["def decode_values_like(d, zs, p0, end, ys, q0, like):", *_positions(n, "z", "p")]
    lines += [f"    if p{n} != end:", "        return None", *_positions(n, "y", "q")]
    lines += [f"    {', '.join(f'l{i}' for i in range(n))}, = like", "    return ("]
    for i, (kind, column) in enumerate(zip(kinds, columns)):
        if kind == ValueKind.ALWAYS_NULL:
            lines.append(f"        {column},")
        else:
            same = f"z{i} == y{i} and d[p{i}:p{i + 1}] == d[q{i}:q{i + 1}]"
            lines.append(f"        l{i} if {same} else {column},")
    lines.append("    )")
    return "\n".join(lines) + "\n"


#: Compiled ``values_source`` code, shared by the shapes with the same kinds.
_values_code = CodeCache(values_source, "group decoder")


_F32 = struct.Struct("<f")

#: The generated code's helpers; a one-byte varint is < 0x80, so indexing these tables
#: with a larger byte raises IndexError (a truncated varint: the checking path reports it).
_HELPERS: dict[str, Any] = {
    "build": build_column,
    "bad_length": bad_length,
    "ZIGZAG": tuple((u >> 1) ^ -(u & 1) for u in range(0x80)),
    "SMALL": tuple(range(0x80)),
    "unpack_f64": struct.Struct("<d").unpack_from,
    "pack_f32": _F32.pack,
    "unpack_f32": _F32.unpack,
}


def compiled_decoder(
    names: Sequence[str], types: Sequence[Any], flags: Sequence[Any], kinds: Sequence[int]
) -> tuple[ValuesDecoder, LikeDecoder]:
    """The unrolled ``decode_values`` and ``decode_values_like`` for columns of these names,
    types, flags and kinds."""
    n = len(kinds)
    if not 0 < n <= MAX_UNROLLED_COLUMNS:
        raise ValueError(f"only groups of 1 to {MAX_UNROLLED_COLUMNS} columns are unrolled, not {n}")
    namespace = dict(_HELPERS)
    for i, (name, ctype, flag, kind) in enumerate(zip(names, types, flags, kinds)):
        namespace[f"N{i}"] = name
        namespace[f"T{i}"] = ctype
        namespace[f"F{i}"] = flag
        namespace[f"NULL{i}"] = build_column(name, ctype, flag, None)
        namespace[f"decode{i}"] = DECODERS[ValueKind(kind)]
    exec(_values_code(tuple(kinds)), namespace)
    return namespace["decode_values"], namespace["decode_values_like"]
