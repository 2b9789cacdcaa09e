"""Per-table-schema work done once, not per row: the parts of a column group
that depend only on the columns' names, types and flags."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Callable, Optional, Sequence

from cdcwire.plugin_api import BoundedCache, Column, ImageShape

from .column_values import ENCODERS, ValueKind, value_kind
from .group_code import (
    MAX_UNROLLED_COLUMNS,
    GroupEncoder,
    ValuesEncoder,
    compiled_encoder,
    compiled_values_encoder,
    looping_encoder,
    looping_values_encoder,
)
from .layout import COLUMN_ESTIMATE
from .primitives import uvarint, uvarint_chunk

_name = attrgetter("name")
_type = attrgetter("type")
_flags = attrgetter("flags")

_MAX_CACHED_SHAPES = 4096


#: Groups a shape encodes with the looping encoder before its unrolled one is compiled:
#: compiling costs about as much as a few thousand groups save, so only hot shapes pay it.
HOT_AFTER = 256


@dataclass(slots=True, eq=False)
class TableShape:
    """What a column group of these columns always holds.

    ``signature`` is the (name, type, flags) of each column; ``count_bytes``
    uvarint(number of columns); ``types_and_flags`` the type and flag uvarint
    chunks; ``estimate`` the reference's size estimate without values.

    ``encode_group(columns)`` checks a row's columns against the signature (None
    when they differ) and encodes their values (see :mod:`cdcwire_craft.group_code`).
    It starts as a plain loop and becomes the unrolled code after HOT_AFTER groups,
    unless the group is too wide to unroll.
    """

    names: tuple[str, ...]
    kinds: tuple[int, ...]  # ValueKind values as plain ints
    encoders: tuple[Callable[[Any], Any], ...]
    signature: tuple[tuple[str, Any, Any], ...]
    count_bytes: bytes
    types_and_flags: bytes
    estimate: int
    encode_group: GroupEncoder = field(init=False, repr=False)
    #: The columnar twin: the values of an image of this shape (an EventBatch's), same bytes.
    encode_values: ValuesEncoder = field(init=False, repr=False)
    cold_groups: int = field(default=0, init=False)
    cold_values: int = field(default=0, init=False)
    _looping: GroupEncoder = field(init=False, repr=False)
    _looping_values: ValuesEncoder = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._looping = looping_encoder(self.signature, self.kinds, self.estimate)
        self._looping_values = looping_values_encoder(self.kinds, self.estimate)
        too_wide = len(self.kinds) > MAX_UNROLLED_COLUMNS
        self.encode_group = self._looping if too_wide else self._encode_cold
        self.encode_values = self._looping_values if too_wide else self._encode_values_cold

    def _encode_values_cold(self, values: Sequence[Any]) -> tuple[bytes, int]:
        """As :meth:`_encode_cold`, for the columnar twin."""
        self.cold_values += 1
        if self.cold_values > HOT_AFTER:
            self.encode_values = compiled_values_encoder(self.kinds, self.estimate)
        return self._looping_values(values)

    def _encode_cold(self, columns: Sequence[Column]) -> Optional[tuple[bytes, int]]:
        """The looping encoder, counting; past HOT_AFTER groups the unrolled code replaces it."""
        self.cold_groups += 1
        if self.cold_groups > HOT_AFTER:
            self.encode_group = compiled_encoder(self.signature, self.kinds, self.estimate)
        return self._looping(columns)


def build_shape(signature: Sequence[tuple[str, int, int]]) -> TableShape:
    signature = tuple(map(tuple, signature))
    names = tuple(name for name, _, _ in signature)
    kinds = tuple(int(value_kind(t, f)) for _, t, f in signature)
    return TableShape(
        names=names,
        kinds=kinds,
        encoders=tuple(ENCODERS[ValueKind(k)] for k in kinds),
        signature=signature,
        count_bytes=uvarint(len(signature)),
        types_and_flags=uvarint_chunk(int(t) for _, t, _ in signature)
        + uvarint_chunk(int(f) for _, _, f in signature),
        estimate=sum(len(n.encode()) + COLUMN_ESTIMATE for n in names),
    )


class ShapeCache:
    """Shapes by column signature; bounded so a stream of ever-new schemas cannot grow it."""

    __slots__ = ("_shapes",)

    def __init__(self) -> None:
        self._shapes: BoundedCache[tuple, TableShape] = BoundedCache(_MAX_CACHED_SHAPES)

    def shape_of(self, columns: Sequence[Column]) -> TableShape:
        # all names, then all types, then all flags: one flat tuple is the cheapest key to build
        return self._shape((*map(_name, columns), *map(_type, columns), *map(_flags, columns)), len(columns))

    def shape_of_image(self, image: ImageShape) -> TableShape:
        """The shape of an EventBatch image's columns: the same object :meth:`shape_of` gives
        for Column objects of the same names, types and flags."""
        return self._shape((*image.names, *image.types, *image.flags), len(image.names))

    def _shape(self, key: tuple, n: int) -> TableShape:
        shape = self._shapes.get(key)
        if shape is None:
            shape = self._shapes.remember(key, build_shape(list(zip(key[:n], key[n : 2 * n], key[2 * n :]))))
        return shape
