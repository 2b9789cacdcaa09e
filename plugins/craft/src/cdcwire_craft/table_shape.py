"""Per-table-schema work done once, not per row: the parts of a column group
that depend only on the columns' names, types and flags."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, Sequence

from cdcwire.events import Column

from .column_values import ENCODERS, ValueKind, value_kind
from .group_code import GroupEncoder, group_encoder
from .layout import COLUMN_ESTIMATE
from .primitives import uvarint, uvarint_chunk

_name = attrgetter("name")
_type = attrgetter("type")
_flags = attrgetter("flags")

_MAX_CACHED_SHAPES = 4096


@dataclass(frozen=True, slots=True, eq=False)
class TableShape:
    """What a column group of these columns always holds.

    ``count_bytes`` is uvarint(number of columns); ``types_and_flags`` the type and
    flag uvarint chunks; ``estimate`` the reference's size estimate without values;
    ``encode_group`` the generated code that checks a row's columns against the
    shape and encodes their values (see :mod:`cdcwire_craft.group_code`).
    """

    names: tuple[str, ...]
    kinds: tuple[int, ...]  # ValueKind values as plain ints: compared per value
    encoders: tuple[Callable[[Any], Any], ...]
    encode_group: GroupEncoder
    count_bytes: bytes
    types_and_flags: bytes
    estimate: int


def build_shape(signature: Sequence[tuple[str, int, int]]) -> TableShape:
    names = tuple(name for name, _, _ in signature)
    kinds = tuple(int(value_kind(t, f)) for _, t, f in signature)
    estimate = sum(len(n.encode()) + COLUMN_ESTIMATE for n in names)
    return TableShape(
        names=names,
        kinds=kinds,
        encoders=tuple(ENCODERS[ValueKind(k)] for k in kinds),
        encode_group=group_encoder(signature, kinds, estimate),
        count_bytes=uvarint(len(signature)),
        types_and_flags=uvarint_chunk(int(t) for _, t, _ in signature)
        + uvarint_chunk(int(f) for _, _, f in signature),
        estimate=estimate,
    )


class ShapeCache:
    """Shapes by column signature; bounded so a stream of ever-new schemas cannot grow it."""

    __slots__ = ("_shapes",)

    def __init__(self) -> None:
        self._shapes: dict[tuple, TableShape] = {}

    def shape_of(self, columns: Sequence[Column]) -> TableShape:
        # all names, then all types, then all flags: one flat tuple is the cheapest key to build
        key = (*map(_name, columns), *map(_type, columns), *map(_flags, columns))
        shape = self._shapes.get(key)
        if shape is None:
            if len(self._shapes) >= _MAX_CACHED_SHAPES:
                self._shapes.clear()
            n = len(columns)
            shape = self._shapes[key] = build_shape(list(zip(key[:n], key[n : 2 * n], key[2 * n :])))
        return shape
