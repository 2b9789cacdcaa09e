"""What the decoder remembers of column groups: their shapes, by the bytes that carry them.

A column group holds the names (term ids), types and flags of its columns before
the values. Groups of one table repeat those bytes row after row, so the decoder
parses them once per term dictionary and afterwards recognises them with one
``startswith`` on the raw bytes (:class:`TermDictionary`): a group whose names,
types or flags differ in a single byte is parsed afresh.

The parsed shape itself does not depend on the dictionary (the same table comes in
messages with different dictionaries, as tables share messages), so one
:class:`GroupShape` per (names, types, flags) is kept in a :class:`ShapeRegistry`,
and its generated decoder and hotness outlive any one dictionary.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from cdcwire.plugin_api import BoundedCache, Column, ColumnFlag, ColumnType, build_column

from .column_values import DECODERS, value_kind
from .group_code import MAX_UNROLLED_COLUMNS
from .group_decode import LikeDecoder, ValuesDecoder, compiled_decoder

#: Groups a shape decodes the checking way before its unrolled decoder is compiled:
#: compiling takes milliseconds, about what a few hundred groups save.
HOT_AFTER = 128

_MAX_SHAPES = 4096
_MAX_SHAPES_PER_COUNT = 32
_MAX_METAS = 4096

#: (ColumnType, ColumnFlag, value kind) of a (type code, flag bits) pair; None for an unknown type code.
ColumnMeta = Optional[tuple[ColumnType, ColumnFlag, int]]


@dataclass(slots=True, eq=False)
class GroupShape:
    """The columns of a group without their values: names, types, flags and how to read each value.

    ``fast`` and ``fast_like`` are the generated values decoders (:mod:`cdcwire_craft.group_decode`)
    once the shape has decoded HOT_AFTER groups the checking way, None before (and always
    for a group too wide to unroll).
    """

    names: tuple[str, ...]
    types: tuple[ColumnType, ...]
    flags: tuple[ColumnFlag, ...]
    kinds: tuple[int, ...]
    decoders: tuple[Callable[[bytes], Any], ...]
    fast: Optional[ValuesDecoder] = field(default=None, repr=False)
    fast_like: Optional[LikeDecoder] = field(default=None, repr=False)
    cold_groups: int = 0

    def note_cold_group(self) -> None:
        """Count a group decoded the checking way; compile the fast decoder once the shape is hot."""
        self.cold_groups += 1
        if self.cold_groups > HOT_AFTER and 0 < len(self.kinds) <= MAX_UNROLLED_COLUMNS:
            self.fast, self.fast_like = compiled_decoder(self.names, self.types, self.flags, self.kinds)

    def columns(self, values: list[Any]) -> tuple[Column, ...]:
        return tuple(map(build_column, self.names, self.types, self.flags, values))


class ShapeRegistry:
    """One GroupShape per (names, type codes, flag bits); bounded, as is the (type, flags) table."""

    __slots__ = ("_shapes", "_metas")

    def __init__(self) -> None:
        self._shapes: BoundedCache[tuple, GroupShape] = BoundedCache(_MAX_SHAPES)
        self._metas: BoundedCache[tuple[int, int], ColumnMeta] = BoundedCache(_MAX_METAS)

    def meta(self, type_code: int, flag_bits: int) -> ColumnMeta:
        key = (type_code, flag_bits)
        meta = self._metas.get(key, False)  # None is a meta: an unknown type code
        if meta is False:
            meta = self._metas.remember(key, _column_meta(type_code, flag_bits))
        return meta  # type: ignore[return-value]

    def shape(self, names: tuple[str, ...], metas: list[tuple[ColumnType, ColumnFlag, int]]) -> GroupShape:
        """The shape of these names and (type, flags, kind) metas, shared with earlier groups of it."""
        key = (*names, *metas)
        shape = self._shapes.get(key)
        if shape is None:
            types, flags, kinds = zip(*metas) if metas else ((), (), ())
            decoders = tuple(DECODERS[kind] for kind in kinds)  # type: ignore[index]
            shape = self._shapes.remember(key, GroupShape(names, types, flags, kinds, decoders))
        return shape


def _column_meta(type_code: int, flag_bits: int) -> ColumnMeta:
    try:
        ctype = ColumnType(type_code)
    except ValueError:
        return None
    return ctype, ColumnFlag(flag_bits), int(value_kind(ctype, flag_bits))


@dataclass(slots=True, eq=False)
class TermDictionary:
    """A message's terms, and the group shapes seen with them by column count, each with
    the raw bytes of its names, types and flags chunks (the newest first)."""

    terms: tuple[str, ...]
    names: tuple[str, ...] = ()  # the terms and "" for term id -1 (NULL)
    shapes: dict[int, list[tuple[bytes, GroupShape]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.names = (*self.terms, "")

    def find(self, data: bytes, pos: int, end: int, n: int) -> Optional[tuple[bytes, GroupShape]]:
        """The known shape whose bytes ``data[pos:end]`` starts with, if any."""
        known = self.shapes.get(n)
        if known:
            for entry in known:
                if data.startswith(entry[0], pos, end):
                    return entry
        return None

    def remember(self, n: int, prefix: bytes, shape: GroupShape) -> None:
        known = self.shapes.setdefault(n, [])
        if len(known) >= _MAX_SHAPES_PER_COUNT:
            known.pop()
        known.insert(0, (prefix, shape))
