"""What makes a row of an event DataFrame malformed, found without slowing the hot path.

Event JSON Lines are checked as they are parsed, but Parquet files and DataFrames
a user built reach the executors unchecked: an unknown type name, a kind whose
images do not match it, a null commit ts or a value with two fields set must
become a malformed record with its reason (dead-lettered, or failing the job with
its place), never a raw KeyError from deep inside a task.

The checks cost little because they run per batch with Arrow compute (null
counts, fields set per value) or per distinct type name with dict lookups; only
the kind-against-images check is per row, and the row loop already touches
those. Type names match in any case, as :mod:`cdcwire.event_json` takes them.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Optional

import pyarrow as pa
import pyarrow.compute as pc

from ..codes import ColumnType, DDLType

U64 = pa.uint64()
_TYPE_BY_NAME: dict[Optional[str], ColumnType] = {t.name: t for t in ColumnType}
_DDL_BY_NAME = {t.name: t for t in DDLType}

#: The images each row kind carries: (columns, pre_columns).
ROW_IMAGES = {"insert": (True, False), "update": (True, True), "delete": (False, True)}


def image_problem(kind: str, has_columns: bool, has_pre_columns: bool) -> str:
    """Why a row's images do not fit its kind."""
    has = " and ".join(
        n for n, present in (("columns", has_columns), ("pre_columns", has_pre_columns)) if present
    )
    needs = {
        "insert": "columns and no pre_columns",
        "update": "both columns and pre_columns",
        "delete": "pre_columns and no columns",
    }.get(kind, "no column images")
    return f"kind {kind!r} needs {needs}, this row has {has or 'neither'}"


def ddl_type(name: Optional[str]) -> Optional[DDLType]:
    """The DDLType named ``name`` in any case, or None."""
    found = _DDL_BY_NAME.get(name)  # type: ignore[arg-type]
    if found is None and isinstance(name, str):
        found = _DDL_BY_NAME.get(name.upper())
    return found


def commit_ts_values(array: pa.Array, problems: dict[int, str]) -> list[Optional[int]]:
    """The commit ts of each row as int (None when null); a value outside 0..2^64-1 is a problem."""
    try:
        return array.cast(U64).to_pylist()
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass  # the slow way, only for a batch that holds a bad value
    out: list[Optional[int]] = []
    for row, value in enumerate(array.to_pylist()):
        if value is not None and not 0 <= value < 1 << 64:
            problems.setdefault(row, f"commit_ts {value} is outside 0..2^64-1")
            value = None
        out.append(None if value is None else int(value))
    return out


class EntryChecks:
    """The entries (COLUMN structs) of one list<COLUMN> array, checked per batch.

    ``type_of`` maps every type name present to its ColumnType; ``bad_rows`` are the
    rows holding a malformed entry, whose reasons went into the problems dict.
    """

    def __init__(
        self, field: str, entries: pa.StructArray, offsets: list[int], problems: dict[int, str]
    ) -> None:
        self.field = field
        self.offsets = offsets
        self.problems = problems
        self.bad_rows: set[int] = set()
        self.names = entries.field("name")
        values = entries.field("value")
        #: The VALUE fields by name, a null VALUE struct read as all fields null (SQL NULL).
        self.values: dict[str, pa.Array] = dict(zip(values.type.names, values.flatten()))
        if entries.null_count:
            self._flag(pc.indices_nonzero(entries.is_null()), "is null")
        if self.names.null_count:
            self._flag(pc.indices_nonzero(self.names.is_null()), "has no name")
        flags = entries.field("flags")
        if flags.null_count:
            self._flag(pc.indices_nonzero(flags.is_null()), "has null flags")
        self.type_of = self._type_names(entries.field("type"))
        self._at_most_one_value()

    def _type_names(self, types: pa.Array) -> dict[Optional[str], ColumnType]:
        type_of = _TYPE_BY_NAME
        for name in pc.unique(types).to_pylist():
            if name in type_of:
                continue
            found = _TYPE_BY_NAME.get(name.upper()) if isinstance(name, str) else None
            if found is not None:
                if type_of is _TYPE_BY_NAME:
                    type_of = dict(_TYPE_BY_NAME)
                type_of[name] = found
            else:
                self._flag(
                    pc.indices_nonzero(pc.equal(types, name) if name is not None else types.is_null()),
                    f"has unknown type {name!r}",
                )
        return type_of

    def _at_most_one_value(self) -> None:
        """Entries with two VALUE fields set, by OR-ing validity bitmaps (no per-entry arithmetic)."""
        fields = [f.is_valid() for f in self.values.values()]
        seen, several = fields[0], None
        for valid in fields[1:]:
            both = pc.and_(seen, valid)
            several = both if several is None else pc.or_(several, both)
            seen = pc.or_(seen, valid)
        if several is not None and pc.any(several).as_py():
            self._flag(pc.indices_nonzero(several), "has more than one value field set")

    def _flag(self, entries: pa.Array, reason: str) -> None:
        start = self.offsets[0]
        names = self.names
        for j in entries.to_pylist():
            row = bisect_right(self.offsets, start + j) - 1
            name = names[j].as_py()
            column = "a column" if name is None else f"column {name!r}"
            self.problems.setdefault(row, f"{self.field}: {column} {reason}")
            self.bad_rows.add(row)

    def uints(self, uint_array: pa.Array) -> Optional[list[Optional[int]]]:
        """The ``uint`` values as ints (None when no entry has one); one outside 0..2^64-1 is a problem."""
        if uint_array.null_count == len(uint_array):
            return None
        try:
            return uint_array.cast(U64).to_pylist()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        out: list[Optional[int]] = []
        for j, value in enumerate(uint_array.to_pylist()):
            if value is not None and not 0 <= value < 1 << 64:
                self._flag(pa.array([j]), f"has uint value {value}, outside 0..2^64-1")
                value = None
            out.append(None if value is None else int(value))
        return out
