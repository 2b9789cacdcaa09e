"""Events <-> Arrow record batches in the layout of :mod:`cdcwire.spark.schema`.

This is the executors' hot path: whole columns are turned into Python lists in
one call each (``to_pylist`` on a flat child array) and events are built from
them in one loop; enum lookups go through dicts, not the Enum constructors, and
columns are made with :func:`cdcwire.events.build_column`.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import pyarrow as pa

from ..codes import ColumnFlag, ColumnType, DDLType
from ..events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent, build_column
from .schema import ARROW_COLUMN, ARROW_EVENT_SCHEMA, ARROW_VALUE

I64_MAX = (1 << 63) - 1
_TYPE_BY_NAME = {t.name: t for t in ColumnType}
_DDL_BY_NAME = {t.name: t for t in DDLType}
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
            pa.array(self.offsets, pa.int32()), entries, type=pa.list_(ARROW_COLUMN), mask=pa.array(self.nulls)
        )


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
    cols, pres = _ColumnLists(), _ColumnLists()
    for e in events:
        if type(e) is RowChangedEvent:
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
    ]
    names = list(ARROW_EVENT_SCHEMA.names)
    for name, array in (extra or {}).items():
        names.append(name)
        arrays.append(array)
    return pa.RecordBatch.from_arrays(arrays, schema=_schema_for(schema, names, arrays))


def _schema_for(schema: pa.Schema, names: list[str], arrays: list[pa.Array]) -> pa.Schema:
    if schema.names == names:
        return schema
    return pa.schema([schema.field(n) if n in schema.names else pa.field(n, a.type) for n, a in zip(names, arrays)])


# --- Arrow -> events -----------------------------------------------------------------------


def _images(array: pa.ListArray, keys_only: bool) -> list[Optional[tuple[Column, ...]]]:
    """The column images of a list<COLUMN> array, one tuple (or None) per row."""
    n = len(array)
    if array.null_count == n:
        return [None] * n
    offsets = array.offsets.to_pylist()
    valid = array.is_valid().to_pylist() if array.null_count else None
    start, stop = offsets[0], offsets[-1]
    entries = array.values.slice(start, stop - start)
    names = entries.field("name").to_pylist()
    types = entries.field("type").to_pylist()
    flags = entries.field("flags").to_pylist()
    mysql = entries.field("mysql_type").to_pylist()
    values = entries.field("value")
    ints = values.field("int").to_pylist()
    uint_array = values.field("uint")
    uints = uint_array.cast(_UINT64).to_pylist() if uint_array.null_count < len(uint_array) else None
    doubles = values.field("double").to_pylist()
    strings = values.field("string").to_pylist()
    binaries = values.field("binary").to_pylist()
    type_of = _TYPE_BY_NAME
    out: list[Optional[tuple[Column, ...]]] = []
    for row in range(n):
        if valid is not None and not valid[row]:
            out.append(None)
            continue
        image = []
        for j in range(offsets[row] - start, offsets[row + 1] - start):
            f = flags[j]
            if keys_only and not f & _HANDLE_KEY:
                continue
            v = ints[j]
            if v is None:
                v = doubles[j]
                if v is None:
                    v = strings[j]
                    if v is None:
                        v = binaries[j]
                        if v is None and uints is not None:
                            v = uints[j]
            image.append(build_column(names[j], type_of[types[j]], _flag(f), v, mysql[j]))
        out.append(tuple(image))
    return out


def batch_to_events(batch: pa.RecordBatch, keys_only: bool = False) -> list[Optional[Event]]:
    """The events of a batch (None for a malformed record's row).

    ``keys_only`` keeps only handle-key columns: all that dispatch needs to place a row.
    """
    kinds = batch.column("kind").to_pylist()
    ts = batch.column("commit_ts").cast(_UINT64).to_pylist()
    schemas = batch.column("schema").to_pylist()
    tables = batch.column("table").to_pylist()
    table_ids = batch.column("table_id").to_pylist()
    columns = _images(batch.column("columns"), keys_only)
    pre_columns = _images(batch.column("pre_columns"), keys_only)
    ddl_types = batch.column("ddl_type").to_pylist()
    queries = batch.column("query").to_pylist()
    out: list[Optional[Event]] = []
    for i, kind in enumerate(kinds):
        if kind in ("insert", "update", "delete"):
            out.append(RowChangedEvent(ts[i], schemas[i], tables[i], columns[i], pre_columns[i], table_ids[i]))
        elif kind == "ddl":
            out.append(DDLEvent(ts[i], schemas[i] or "", tables[i] or "", queries[i] or "", _DDL_BY_NAME[ddl_types[i]]))
        elif kind == "resolved":
            out.append(ResolvedEvent(ts[i]))
        elif kind is None:
            out.append(None)
        else:
            raise ValueError(f"unknown event kind {kind!r} in the event DataFrame")
    return out


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
