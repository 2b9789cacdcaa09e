"""Events <-> Arrow record batches in the layout of :mod:`cdcwire.spark.rows.schema`.

This is the executors' hot path: whole columns are turned into Python lists in
one call each (``to_pylist`` on a flat child array) and events are built from
them in one loop; enum lookups go through dicts, not the Enum constructors, and
columns are made with :func:`cdcwire.model.events.build_column`. Rows that are not
events come out as None with their reason (:func:`checked_events`), found by the
cheap checks of :mod:`cdcwire.spark.rows.record_checks`.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...values.type_codes import ColumnFlag, DDLType
from ...foundation.errors import CdcwireError
from ...model.events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_column, build_row_event
from .record_checks import ROW_IMAGES, EntryChecks, bad_names, commit_ts_values, ddl_type, image_problem
from .schema import (
    ARROW_COLUMN,
    ARROW_EVENT_SCHEMA,
    ARROW_MALFORMED,
    ARROW_PERMISSIVE_EVENT_SCHEMA,
    ARROW_VALUE,
)

I64_MAX = (1 << 63) - 1
_FLAGS: dict[int, ColumnFlag] = {}
_UINT64 = pa.uint64()
_HANDLE_KEY = int(ColumnFlag.HANDLE_KEY)


def _flag(bits: int) -> ColumnFlag:
    f = _FLAGS.get(bits)
    if f is None:
        f = _FLAGS[bits] = ColumnFlag(bits)
    return f


# --- events -> Arrow -----------------------------------------------------------------------


class _ColumnLists:
    """Flat lists of every column entry of one list column, plus list offsets and nulls."""

    __slots__ = ("offsets", "nulls", "names", "types", "flags", "ints", "uints", "doubles", "strings", "binaries", "mysql")

    def __init__(self) -> None:
        self.offsets: list[int] = [0]
        self.nulls: list[bool] = []
        self.names: list[str] = []
        self.types: list[str] = []
        self.flags: list[int] = []
        self.ints: list[Optional[int]] = []
        self.uints: list[Optional[int]] = []
        self.doubles: list[Optional[float]] = []
        self.strings: list[Optional[str]] = []
        self.binaries: list[Optional[bytes]] = []
        self.mysql: list[Optional[str]] = []

    def add(self, columns: Optional[Sequence[Column]]) -> None:
        if columns is None:
            self.nulls.append(True)
            self.offsets.append(self.offsets[-1])
            return
        self.nulls.append(False)
        for c in columns:
            self.names.append(c.name)
            self.types.append(c.type.name)
            self.flags.append(int(c.flags))
            self.mysql.append(c.mysql_type)
            v = c.value
            i = u = d = s = b = None
            if v is None:
                pass
            elif type(v) is int:
                if v > I64_MAX:
                    u = v
                else:
                    i = v
            elif type(v) is float:
                d = v
            elif type(v) is str:
                s = v
            elif type(v) is bytes:
                b = v
            else:
                raise TypeError(f"column {c.name!r} holds a {type(v).__name__}, not a cdcwire value")
            self.ints.append(i)
            self.uints.append(u)
            self.doubles.append(d)
            self.strings.append(s)
            self.binaries.append(b)
        self.offsets.append(len(self.names))

    def array(self) -> pa.Array:
        uints = pa.array(self.uints, _UINT64).cast(ARROW_VALUE.field("uint").type)
        values = pa.StructArray.from_arrays(
            [
                pa.array(self.ints, pa.int64()),
                uints,
                pa.array(self.doubles, pa.float64()),
                pa.array(self.strings, pa.string()),
                pa.array(self.binaries, pa.binary()),
            ],
            fields=list(ARROW_VALUE),
        )
        entries = pa.StructArray.from_arrays(
            [
                pa.array(self.names, pa.string()),
                pa.array(self.types, pa.string()),
                pa.array(self.flags, pa.int32()),
                values,
                pa.array(self.mysql, pa.string()),
            ],
            fields=list(ARROW_COLUMN),
        )
        return pa.ListArray.from_arrays(
            pa.array(self.offsets, pa.int32()),
            entries,
            type=pa.list_(ARROW_COLUMN),
            mask=pa.array(self.nulls, pa.bool_()),
        )


def key_only_array(n: int, positions: Iterable[int]) -> pa.BooleanArray:
    """The ``handle_key_only`` column of ``n`` events: true at ``positions``, false elsewhere."""
    marks = np.zeros(n, dtype=bool)
    marks[list(positions)] = True
    return pa.array(marks, pa.bool_())


def key_only_positions(batch: pa.RecordBatch) -> set[int]:
    """Where a batch of the event layout marks ``handle_key_only`` true (null reads as false);
    a batch without the column (an event DataFrame of format 1.0) marks none."""
    if "handle_key_only" not in batch.schema.names:
        return set()
    column = batch.column("handle_key_only")
    if column.true_count == 0:  # the usual case: no key-only rows at all
        return set()
    return set(np.flatnonzero(column.fill_null(False).to_numpy(zero_copy_only=False)).tolist())


def events_to_batch(
    events: Sequence[Event], extra: Optional[dict[str, pa.Array]] = None, schema: pa.Schema = ARROW_EVENT_SCHEMA
) -> pa.RecordBatch:
    """One record batch of ``events``; ``extra`` columns (already Arrow arrays) are appended."""
    kinds: list[str] = []
    ts: list[int] = []
    schemas: list[Optional[str]] = []
    tables: list[Optional[str]] = []
    table_ids: list[Optional[int]] = []
    ddl_types: list[Optional[str]] = []
    queries: list[Optional[str]] = []
    key_only: list[int] = []
    cols, pres = _ColumnLists(), _ColumnLists()
    for e in events:
        if type(e) is RowChangedEvent:
            if e.handle_key_only:
                key_only.append(len(kinds))
            kinds.append(e.kind)
            ts.append(e.commit_ts)
            schemas.append(e.schema)
            tables.append(e.table)
            table_ids.append(e.table_id)
            cols.add(e.columns)
            pres.add(e.pre_columns)
            ddl_types.append(None)
            queries.append(None)
        elif type(e) is DDLEvent:
            kinds.append("ddl")
            ts.append(e.commit_ts)
            schemas.append(e.schema)
            tables.append(e.table)
            table_ids.append(None)
            cols.add(None)
            pres.add(None)
            ddl_types.append(DDLType(e.ddl_type).name)
            queries.append(e.query)
        elif type(e) is ResolvedEvent:
            kinds.append("resolved")
            ts.append(e.ts)
            schemas.append(None)
            tables.append(None)
            table_ids.append(None)
            cols.add(None)
            pres.add(None)
            ddl_types.append(None)
            queries.append(None)
        else:
            raise TypeError(f"not a cdcwire event: {e!r}")
    arrays: list[pa.Array] = [
        pa.array(kinds, pa.string()),
        pa.array(ts, _UINT64).cast(pa.decimal128(20, 0)),
        pa.array(schemas, pa.string()),
        pa.array(tables, pa.string()),
        pa.array(table_ids, pa.int64()),
        cols.array(),
        pres.array(),
        pa.array(ddl_types, pa.string()),
        pa.array(queries, pa.string()),
        key_only_array(len(kinds), key_only),
    ]
    names = list(ARROW_EVENT_SCHEMA.names)
    for name, array in (extra or {}).items():
        names.append(name)
        arrays.append(array)
    return pa.RecordBatch.from_arrays(arrays, schema=_schema_for(schema, names, arrays))


def events_to_permissive_batch(
    events: Sequence[Optional[Event]], malformed: Sequence[Optional[dict]]
) -> pa.RecordBatch:
    """Events and malformed records in one batch of ``ARROW_PERMISSIVE_EVENT_SCHEMA``: where
    ``events[i]`` is None, row i has null event columns and ``malformed[i]`` (source, reason, text)."""
    good = [e for e in events if e is not None]
    if len(good) == len(events):
        batch = events_to_batch(events)  # type: ignore[arg-type]
        return pa.RecordBatch.from_arrays(
            [*batch.columns, pa.nulls(len(events), ARROW_MALFORMED)], schema=ARROW_PERMISSIVE_EVENT_SCHEMA
        )
    positions: list[Optional[int]] = []
    taken = 0
    for e in events:
        positions.append(None if e is None else taken)
        taken += e is not None
    rows = events_to_batch(good).take(pa.array(positions, pa.int32()))
    return pa.RecordBatch.from_arrays(
        [*rows.columns, pa.array(malformed, ARROW_MALFORMED)], schema=ARROW_PERMISSIVE_EVENT_SCHEMA
    )


def _schema_for(schema: pa.Schema, names: list[str], arrays: list[pa.Array]) -> pa.Schema:
    if schema.names == names:
        return schema
    return pa.schema([schema.field(n) if n in schema.names else pa.field(n, a.type) for n, a in zip(names, arrays)])


# --- Arrow -> events -----------------------------------------------------------------------


def _images(
    array: pa.ListArray, keys_only: bool, field: str, problems: dict[int, str]
) -> list[Optional[tuple[Column, ...]]]:
    """The column images of a list<COLUMN> array, one tuple (or None) per row; None too for a
    row with a malformed entry, whose reason goes into ``problems``.

    The work per entry is kept to one ``build_column``: the keys-only filter runs in Arrow,
    each entry's value is scattered from the VALUE field that holds it in numpy, types and
    flags go through dict lookups of their distinct values, and rows are slices of one list.
    """
    n = len(array)
    if array.null_count == n:
        return [None] * n
    offsets = array.offsets.to_pylist()
    start = offsets[0]
    entries = array.values.slice(start, offsets[-1] - start)
    checks = EntryChecks(field, entries, offsets, problems)
    _empty_images(array, offsets, field, problems, checks.bad_rows)
    fields = dict(checks.values)
    uint = fields.pop("uint")
    if uint.null_count < len(uint):
        try:
            fields["uint"] = uint.cast(_UINT64)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            checks.uints(uint)  # names the entries outside 0..2^64-1 as problems
    parts = {name: entries.field(name) for name in ("name", "type", "flags", "mysql_type")}
    bounds = [o - start for o in offsets]
    if keys_only:
        keep = pc.indices_nonzero(pc.not_equal(pc.bit_wise_and(parts["flags"], _HANDLE_KEY), 0))
        parts = {name: a.take(keep) for name, a in parts.items()}
        fields = {name: a.take(keep) for name, a in fields.items()}
        bounds = np.searchsorted(keep.to_numpy(), bounds).tolist()
    type_of = checks.type_of
    flag_of = {f: _flag(f) for f in pc.unique(parts["flags"]).to_pylist() if f is not None}
    columns = list(
        map(
            build_column,
            parts["name"].to_pylist(),
            [type_of.get(t) for t in parts["type"].to_pylist()],  # an unknown name: a bad row, dropped below
            [flag_of.get(f) for f in parts["flags"].to_pylist()],
            _entry_values(fields, len(parts["name"])),
            parts["mysql_type"].to_pylist(),
        )
    )
    out: list[Optional[tuple[Column, ...]]] = [tuple(columns[a:b]) for a, b in zip(bounds, bounds[1:])]
    for row in checks.bad_rows:
        out[row] = None
    if array.null_count:
        for row in pc.indices_nonzero(array.is_null()).to_pylist():
            out[row] = None
    return out


def _empty_images(
    array: pa.ListArray, offsets: list[int], field: str, problems: dict[int, str], bad_rows: set[int]
) -> None:
    """Rows whose image is an empty list (not null): a row image has at least one column."""
    empty = np.flatnonzero(np.diff(np.asarray(offsets)) == 0)
    if len(empty):
        valid = array.is_valid().to_numpy(zero_copy_only=False)
        for row in empty[valid[empty]].tolist():
            problems.setdefault(row, f"{field} is an empty image: a row image has at least one column")
            bad_rows.add(row)


def entry_values(entries: pa.StructArray) -> list[Any]:
    """The value of each entry of a list<COLUMN> array's checked entries (every ``uint``
    within 64 bits), as :func:`_images` gives them."""
    fields = {f.name: a for f, a in zip(ARROW_VALUE, entries.field("value").flatten())}
    uint = fields["uint"]
    fields["uint"] = uint.cast(_UINT64) if uint.null_count < len(uint) else uint
    return _entry_values(fields, len(entries))


def _entry_values(fields: dict[str, pa.Array], n: int) -> list[Any]:
    """Each entry's value: the one VALUE field set, or None. The fields are scattered into one
    numpy object array (fancy assignment in C) instead of testing five fields per entry."""
    out = np.empty(n, dtype=object)
    for array in fields.values():
        if array.null_count == n:
            continue
        if array.null_count == 0:
            out[:] = array.to_pylist()
            continue
        valid = array.is_valid()
        picked = array.filter(valid).to_pylist()
        holder = np.empty(len(picked), dtype=object)
        holder[:] = picked  # element by element: bytes and str stay whole objects
        out[pc.indices_nonzero(valid).to_numpy()] = holder
    return out.tolist()


def checked_events(
    batch: pa.RecordBatch, keys_only: bool = False
) -> tuple[list[Optional[Event]], dict[int, str]]:
    """The events of a batch, None in place of each malformed row, and why each is malformed
    (by row number in the batch); see :mod:`cdcwire.spark.rows.record_checks` for what is checked.

    ``keys_only`` keeps only handle-key columns: all that dispatch needs to place a row.
    """
    problems: dict[int, str] = {}
    rows = _Rows(batch, problems)
    columns = _images(batch.column("columns"), keys_only, "columns", problems)
    pre_columns = _images(batch.column("pre_columns"), keys_only, "pre_columns", problems)
    out: list[Optional[Event]] = []
    for i, kind in enumerate(rows.kinds):
        if problems and i in problems:
            out.append(None)
            continue
        c, p = columns[i], pre_columns[i]
        problem = rows.problem(i, c is not None, p is not None)
        if problem is not None:
            problems[i] = problem
            out.append(None)
        elif kind == "ddl":
            out.append(DDLEvent(rows.ts[i], rows.schemas[i] or "", rows.tables[i] or "", rows.queries[i] or "",
                                ddl_type(rows.ddl_types[i])))  # type: ignore[arg-type]
        elif kind == "resolved":
            out.append(ResolvedEvent(rows.ts[i]))  # type: ignore[arg-type]
        else:
            out.append(build_row_event(rows.ts[i], rows.schemas[i], rows.tables[i], c, p, rows.table_ids[i],  # type: ignore[arg-type]
                                       i in rows.key_only))
    return out, problems


def batch_problems(batch: pa.RecordBatch) -> dict[int, str]:
    """Why each malformed row of a batch is malformed (by row number), as :func:`checked_events`
    finds it, without building events: the check of batches decoded straight to columns."""
    problems: dict[int, str] = {}
    rows = _Rows(batch, problems)
    present = []
    for field in ("columns", "pre_columns"):
        array = batch.column(field)
        offsets = array.offsets.to_pylist()
        start = offsets[0]
        checks = EntryChecks(field, array.values.slice(start, offsets[-1] - start), offsets, problems)
        _empty_images(array, offsets, field, problems, checks.bad_rows)
        if checks.values["uint"].null_count < len(checks.values["uint"]):
            try:
                checks.values["uint"].cast(_UINT64)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                checks.uints(checks.values["uint"])
        present.append(array.is_valid().to_pylist())
    for i, (has_new, has_old) in enumerate(zip(*present)):
        if i not in problems:
            problem = rows.problem(i, has_new, has_old)
            if problem is not None:
                problems[i] = problem
    return problems


class _Rows:
    """The per-row fields of a batch, and the checks of a row that are not about its entries."""

    __slots__ = ("kinds", "ts", "schemas", "tables", "table_ids", "ddl_types", "queries", "key_only")

    def __init__(self, batch: pa.RecordBatch, problems: dict[int, str]) -> None:
        self.kinds = batch.column("kind").to_pylist()
        self.ts = commit_ts_values(batch.column("commit_ts"), problems)
        self.schemas = batch.column("schema").to_pylist()
        self.tables = batch.column("table").to_pylist()
        bad_names(self.schemas, self.tables, problems)
        self.table_ids = batch.column("table_id").to_pylist()
        self.ddl_types = batch.column("ddl_type").to_pylist()
        self.queries = batch.column("query").to_pylist()
        self.key_only = key_only_positions(batch)

    def problem(self, i: int, has_new: bool, has_old: bool) -> Optional[str]:
        """Why row ``i`` is not an event of its kind, or None."""
        kind, ts = self.kinds[i], self.ts[i]
        images = ROW_IMAGES.get(kind)  # type: ignore[arg-type]
        if images is not None:
            if has_new is images[0] and has_old is images[1] and ts is not None and self.schemas[i] is not None \
                    and self.tables[i] is not None:
                return None
            return _row_problem(kind, ts, self.schemas[i], self.tables[i], has_new, has_old)
        if kind == "ddl":
            if ddl_type(self.ddl_types[i]) is None:
                return f"unknown DDL type {self.ddl_types[i]!r}"
            if ts is None or has_new or has_old:
                return _row_problem(kind, ts, "", "", has_new, has_old)
            return None
        if kind == "resolved":
            if ts is None or has_new or has_old:
                return _row_problem(kind, ts, "", "", has_new, has_old)
            return None
        return "the row has no event kind" if kind is None else f"unknown event kind {kind!r}"


def _row_problem(
    kind: str, ts: Optional[int], schema: Optional[str], table: Optional[str], c: bool, p: bool
) -> str:
    if ts is None:
        return "commit_ts is null"
    if schema is None or table is None:
        return f"kind {kind!r} needs a schema and a table"
    return image_problem(kind, c, p)


def batch_to_events(batch: pa.RecordBatch, keys_only: bool = False) -> list[Event]:
    """The events of a batch that holds only well-formed rows (such as the routing stage's
    output); the first malformed row raises a CdcwireError with its reason."""
    events, problems = checked_events(batch, keys_only)
    if problems:
        row = min(problems)
        raise CdcwireError(f"row {row} of an event batch is malformed: {problems[row]}")
    return events  # type: ignore[return-value]


def iter_batches(events: Iterable[Any], size: int = 4096) -> Iterable[list[Any]]:
    """Chunks of at most ``size`` items: batches stay small whatever the input size."""
    chunk: list[Any] = []
    for e in events:
        chunk.append(e)
        if len(chunk) >= size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
