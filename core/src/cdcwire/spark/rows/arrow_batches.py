"""Arrow record batches <-> :class:`cdcwire.model.event_batch.EventBatch`: the columnar paths of the Spark stages.

The write side: routed batches become the encoding stage's EventBatches. The read side:
a columnar decoder's EventBatch becomes a batch of the event layout
(:func:`event_batch_arrow`).


Routed batches: the columnar counterpart of :func:`cdcwire.spark.rows.arrow_events.batch_to_events`, for
rows the routing stage has checked already (only well-formed events reach the
encoding stage). No ``Column`` object is built: each row image becomes an interned
:class:`ImageShape` and a list of values. The shape of every row is found in bulk:
each column entry gets an integer code for its (name, type, flags, type text) in
numpy, a row's shape key is the bytes of its entries' codes, and a shape is built
once per distinct key in a batch.

The key-change split happens here and only here: a copy the routing stage marked as
the delete half (``_cdc_half`` 1) of a key-changing update is a delete of the old
image, the insert half (2) an insert of the new one.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...foundation.bounded_cache import BoundedCache
from ...model.event_batch import DDL, DELETE, INSERT, EventBatch, ImageShape
from ...values.type_codes import ColumnFlag, ColumnType, DDLType
from .arrow_events import entry_values, key_only_array, key_only_positions
from .record_checks import ddl_type
from .schema import ARROW_COLUMN, ARROW_EVENT_SCHEMA, ARROW_VALUE

_UINT64 = pa.uint64()
_CODE_LIMIT = 1 << 62


def routed_event_batch(batch: pa.RecordBatch) -> EventBatch:
    """The events of a routed batch (event columns plus ``_cdc_half``), halves applied."""
    kinds = batch.column("kind").to_pylist()
    new_shapes, new_values = image_columns(batch.column("columns"))
    old_shapes, old_values = image_columns(batch.column("pre_columns"))
    halves = batch.column("_cdc_half").to_numpy(zero_copy_only=False)
    if halves.any():
        for i in np.flatnonzero(halves).tolist():
            if halves[i] == 1:
                kinds[i] = DELETE
                new_shapes[i] = new_values[i] = None
            else:
                kinds[i] = INSERT
                old_shapes[i] = old_values[i] = None
    ddl_types: list[Optional[DDLType]] = [None] * len(kinds)
    if DDL in kinds:
        names = batch.column("ddl_type").to_pylist()
        for i, kind in enumerate(kinds):
            if kind == DDL:
                ddl_types[i] = ddl_type(names[i])  # in any case, as the record checks take it
    return EventBatch(
        kinds=kinds,
        commit_ts=batch.column("commit_ts").cast(_UINT64).to_pylist(),
        schemas=batch.column("schema").to_pylist(),
        tables=batch.column("table").to_pylist(),
        table_ids=batch.column("table_id").to_pylist(),
        new_shapes=new_shapes,
        new_values=new_values,
        old_shapes=old_shapes,
        old_values=old_values,
        ddl_types=ddl_types,
        queries=batch.column("query").to_pylist(),
        key_only=key_only_positions(batch),
    )


def image_columns(array: pa.ListArray) -> tuple[list[Any], list[Any]]:
    """Each row's image as (shape, values), both None for a row without this image."""
    n = len(array)
    if array.null_count == n:
        return [None] * n, [None] * n
    offsets = array.offsets.to_numpy()
    start = int(offsets[0])
    entries = array.values.slice(start, int(offsets[-1]) - start)
    bounds = (offsets - start).tolist()
    values = entry_values(entries)
    codes, describe = _entry_codes(entries)
    key_bytes = codes.tobytes()
    valid = array.is_valid().to_pylist() if array.null_count else [True] * n
    known: dict[bytes, ImageShape] = {}
    shapes: list[Any] = [None] * n
    images: list[Any] = [None] * n
    for row in range(n):
        if not valid[row]:
            continue
        a, b = bounds[row], bounds[row + 1]
        key = key_bytes[a * 8 : b * 8]
        shape = known.get(key)
        if shape is None:
            shape = known[key] = describe(a, b)
        shapes[row] = shape
        images[row] = values[a:b]
    return shapes, images


def _entry_codes(entries: pa.StructArray) -> tuple[np.ndarray, Any]:
    """An int64 per entry, equal for entries of equal (name, type, flags, type text), and a
    function building the ImageShape of entries ``a:b``."""
    parts = []
    dictionaries = []
    for name in ("name", "type", "flags", "mysql_type"):
        encoded = pc.dictionary_encode(entries.field(name))
        indices = encoded.indices.fill_null(-1).to_numpy().astype(np.int64) + 1  # null type text: 0
        parts.append(indices)
        dictionaries.append(encoded.dictionary.to_pylist())
    codes = parts[0]
    for indices, dictionary in zip(parts[1:], dictionaries[1:]):
        size = len(dictionary) + 1
        if int(codes.max(initial=0)) >= _CODE_LIMIT // size:  # keep codes small: renumber first
            codes = np.unique(codes, return_inverse=True)[1].astype(np.int64)
        codes = codes * size + indices
    names, types, flags, mysql = dictionaries
    type_of = [None] + [ColumnType[t.upper()] for t in types]  # checked names, in any case
    flag_of = [None] + [ColumnFlag(f) for f in flags]
    mysql_of = [None] + mysql
    name_of = [None] + names

    def describe(a: int, b: int) -> ImageShape:
        return ImageShape.of(
            [name_of[i] for i in parts[0][a:b].tolist()],
            [type_of[i] for i in parts[1][a:b].tolist()],
            [flag_of[i] for i in parts[2][a:b].tolist()],
            [mysql_of[i] for i in parts[3][a:b].tolist()],
        )

    return codes, describe


# --- EventBatch -> Arrow (the read side) -------------------------------------------------

_I64_MAX = (1 << 63) - 1
#: Per shape: its type names and flag bits as Arrow takes them (a shape is interned: identity keys).
_SHAPE_TEXTS: BoundedCache[ImageShape, tuple[tuple[str, ...], tuple[int, ...]]] = BoundedCache()


def event_batch_arrow(batch: EventBatch) -> pa.RecordBatch:
    """An EventBatch as a record batch of the event layout (``ARROW_EVENT_SCHEMA``), built from
    flat lists per column; unchecked (check it with ``arrow_events.batch_problems``). Raises
    TypeError or ValueError for what the layout cannot hold (a value of no cdcwire kind, an
    image whose values do not match its shape): the caller takes the Event path then."""
    ddl_types = [None if t is None else t.name for t in batch.ddl_types]
    arrays = [
        pa.array(batch.kinds, pa.string()),
        pa.array(batch.commit_ts, _UINT64).cast(ARROW_EVENT_SCHEMA.field("commit_ts").type),
        pa.array(batch.schemas, pa.string()),
        pa.array(batch.tables, pa.string()),
        pa.array(batch.table_ids, pa.int64()),
        _image_array(batch.new_shapes, batch.new_values),
        _image_array(batch.old_shapes, batch.old_values),
        pa.array(ddl_types, pa.string()),
        pa.array(batch.queries, pa.string()),
        key_only_array(len(batch.kinds), batch.key_only),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=ARROW_EVENT_SCHEMA)



def _image_array(shapes: list[Optional[ImageShape]], images: list[Optional[list]]) -> pa.ListArray:
    """The list<COLUMN> array of these images. Names, types, flags and type texts are taken
    from each distinct shape's columns (one small array per batch) by index, in Arrow; only
    the values are gathered per row."""
    slot: dict[ImageShape, int] = {}  # each distinct shape's first entry in _shape_columns' arrays
    slots_end = 0
    row_slots: list[int] = []
    lengths: list[int] = []
    values: list[Any] = []
    valid: list[bool] = []
    for shape, image in zip(shapes, images):
        if shape is None:
            valid.append(False)
            lengths.append(0)
            row_slots.append(0)
            continue
        width = len(shape.names)
        if len(image) != width:  # type: ignore[arg-type]
            raise ValueError(f"an image of {len(image)} values has a shape of {width} columns")  # type: ignore[arg-type]
        at = slot.get(shape)
        if at is None:
            at = slot[shape] = slots_end
            slots_end += width
        valid.append(True)
        lengths.append(width)
        row_slots.append(at)
        values.extend(image)  # type: ignore[arg-type]
    counts = np.asarray(lengths, dtype=np.int64)
    offsets = np.zeros(len(counts) + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    # entry j of row r is column (j - offsets[r]) of the row's shape: slot[r] + j - offsets[r]
    index = np.arange(int(offsets[-1]), dtype=np.int64) + np.repeat(np.asarray(row_slots) - offsets[:-1], counts)
    columns = _shape_columns(list(slot))
    take = pa.array(index)
    entries = pa.StructArray.from_arrays(
        [columns[0].take(take), columns[1].take(take), columns[2].take(take), _value_array(values), columns[3].take(take)],
        fields=list(ARROW_COLUMN),
    )
    return pa.ListArray.from_arrays(
        pa.array(offsets),
        entries,
        type=pa.list_(ARROW_COLUMN),
        mask=pa.array([not v for v in valid], pa.bool_()) if False in valid else None,
    )


def _shape_columns(shapes: list[ImageShape]) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """The names, type names, flags and type texts of these shapes' columns, one after another."""
    names: list[str] = []
    types: list[str] = []
    flags: list[int] = []
    mysql: list[Optional[str]] = []
    for shape in shapes:
        texts = _SHAPE_TEXTS.get(shape)
        if texts is None:
            texts = _SHAPE_TEXTS.remember(shape, (tuple(t.name for t in shape.types), tuple(map(int, shape.flags))))
        names.extend(shape.names)
        types.extend(texts[0])
        flags.extend(texts[1])
        mysql.extend(shape.mysql_types)
    return pa.array(names, pa.string()), pa.array(types, pa.string()), pa.array(flags, pa.int32()), pa.array(mysql, pa.string())


def _value_array(values: list[Any]) -> pa.StructArray:
    """The VALUE struct of each value: the field its Python kind goes to, as ``events_to_batch``
    puts it. One comprehension per field a kind is present for (measured: building Arrow from
    Python lists beats numpy object arrays by far); anything of no cdcwire kind raises TypeError."""
    n = len(values)
    present = set(map(type, values))
    if not present <= _KINDS:
        raise TypeError(f"values of {sorted(t.__name__ for t in present - _KINDS)} have no cdcwire kind")
    fields: dict[str, Optional[pa.Array]] = dict.fromkeys(("int", "uint", "double", "string", "binary"))
    if int in present:
        fields["int"], fields["uint"] = _integers(values)
    if float in present:
        fields["double"] = pa.array([v if v.__class__ is float else None for v in values], pa.float64())
    if str in present:
        fields["string"] = pa.array([v if v.__class__ is str else None for v in values], pa.string())
    if bytes in present:
        fields["binary"] = pa.array([v if v.__class__ is bytes else None for v in values], pa.binary())
    arrays = [pa.nulls(n, f.type) if fields[f.name] is None else fields[f.name] for f in ARROW_VALUE]
    return pa.StructArray.from_arrays(arrays, fields=list(ARROW_VALUE))


_KINDS = frozenset({type(None), int, float, str, bytes})


def _integers(values: list[Any]) -> tuple[pa.Array, Optional[pa.Array]]:
    """The ``int`` field, and the ``uint`` field when some value is past the signed range."""
    ints = [v if v.__class__ is int else None for v in values]
    try:
        return pa.array(ints, pa.int64()), None
    except (OverflowError, pa.ArrowInvalid):
        pass
    big = [None if v is None or v <= _I64_MAX else v for v in ints]
    small = [None if v is None or v > _I64_MAX else v for v in ints]
    return pa.array(small, pa.int64()), pa.array(big, _UINT64).cast(ARROW_VALUE.field("uint").type)
