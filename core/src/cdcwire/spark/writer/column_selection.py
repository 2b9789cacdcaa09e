"""Column selectors on Arrow: the routing stage drops the columns a row's selector does not keep
from its ``columns`` and ``pre_columns`` lists, so that the shuffle carries, and the encoding
stage (its columnar path and its Event path alike) encodes, what ``cdcwire.encode`` does.

The routing stage's dispatcher has checked each row already (key kept, hashed columns kept,
see :mod:`cdcwire.dispatch.column_selectors`); what only the whole image shows, a row left
with no column, is refused here with the same error. Which columns stay is decided once per
distinct (selector, column name) of a batch; the entries are filtered in Arrow.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...dispatch.column_selectors import ColumnSelector


def select_batch_columns(
    batch: pa.RecordBatch, selectors: Sequence[Optional[ColumnSelector]]
) -> pa.RecordBatch:
    """``batch`` (the event columns) with each row's images cut to what ``selectors[row]`` keeps
    (None: the row keeps every column)."""
    if all(s is None for s in selectors):
        return batch
    distinct: dict[int, int] = {}
    chosen: list[ColumnSelector] = []
    ids = np.empty(len(selectors), dtype=np.int64)
    for row, s in enumerate(selectors):
        if s is None:
            ids[row] = -1
            continue
        at = distinct.get(id(s))
        if at is None:
            at = distinct[id(s)] = len(chosen)
            chosen.append(s)
        ids[row] = at
    names = batch.schema.names
    arrays = list(batch.columns)
    for field in ("columns", "pre_columns"):
        i = names.index(field)
        arrays[i] = _select_images(arrays[i], ids, chosen, batch)
    return pa.RecordBatch.from_arrays(arrays, schema=batch.schema)


def _select_images(
    array: pa.ListArray, ids: np.ndarray, chosen: list[ColumnSelector], batch: pa.RecordBatch
) -> pa.ListArray:
    n = len(array)
    if n == 0 or array.null_count == n:
        return array
    offsets = array.offsets.to_numpy()
    start = int(offsets[0])
    bounds = offsets - start
    entries = array.values.slice(start, int(offsets[-1]) - start)
    if len(entries) == 0:
        return array
    encoded = pc.dictionary_encode(entries.field("name"))
    dictionary = encoded.dictionary.to_pylist()
    name_codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    entry_ids = np.repeat(ids, np.diff(bounds))
    selected = entry_ids >= 0
    # one decision per distinct (selector, name) of the batch
    width = len(dictionary)
    pairs, inverse = np.unique((entry_ids * width + name_codes)[selected], return_inverse=True)
    decided = np.array([chosen[p // width].keeps(dictionary[p % width]) for p in pairs.tolist()], dtype=bool)
    keep = np.ones(len(entries), dtype=bool)
    keep[selected] = decided[inverse]
    if keep.all():
        return array
    kept_before = np.concatenate(([0], np.cumsum(keep)))
    new_offsets = kept_before[bounds]
    valid = array.is_valid().to_numpy(zero_copy_only=False)
    emptied = np.flatnonzero(valid & (np.diff(new_offsets) == 0) & (np.diff(bounds) > 0))
    if len(emptied):
        row = int(emptied[0])
        a, b = int(bounds[row]), int(bounds[row + 1])
        raise chosen[int(ids[row])].nothing_kept(
            batch.column("schema")[row].as_py(), batch.column("table")[row].as_py(),
            [dictionary[c] for c in name_codes[a:b].tolist()],
        )
    return pa.ListArray.from_arrays(
        pa.array(new_offsets.astype(np.int32)),
        entries.filter(pa.array(keep)),
        type=array.type,
        mask=pc.invert(array.is_valid()) if array.null_count else None,
    )
