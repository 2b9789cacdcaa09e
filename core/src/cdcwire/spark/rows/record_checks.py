"""What makes a row of an event DataFrame malformed, found without slowing the hot path.

Event JSON Lines are checked as they are parsed, but Parquet files and DataFrames
a user built reach the executors unchecked: an unknown type name, a kind whose
images do not match it, a null commit ts or a value with two fields set must
become a malformed record with its reason (dead-lettered, or failing the job with
its place), never a raw KeyError from deep inside a task.

The checks cost little because they run per batch with Arrow compute (null
counts, fields set per value) or per distinct type name with dict lookups; only
the kind-against-images check is per row, and the row loop already touches
those. Type names match in any case, as :mod:`cdcwire.model.event_json` takes them.

The value rules are :mod:`cdcwire.model.validation`'s: Arrow compute only finds the entries
that may break one (an integer past its type's range, a non-finite or float32-overflowing
float, a value field its type does not take, a date or decimal text off its form, a NUL
in a name, a name twice in an image), and the validation's own check of each such entry
decides and words the reason. So a row that would make an encoder raise is a malformed
record here, found for all columns even when routing builds only the handle key.
"""

from __future__ import annotations

import functools
from bisect import bisect_right
from dataclasses import dataclass
from decimal import Decimal
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ...values.type_codes import BLOB_TYPES, FLOAT_TYPES, STRING_TYPES, ColumnFlag, ColumnType, DDLType
from ...values.type_text import _CODES_BY_NAME, _ELEMENT_LIMITS, _NUMBER_LIMITS, TypeText, parse_type_text
from ...model.validation import FLOAT32_MAX, INTEGER_RANGES, TIME_PATTERNS, column_problem, name_problem

U64 = pa.uint64()
I64_MAX = (1 << 63) - 1
_UNSIGNED = int(ColumnFlag.UNSIGNED)
_BINARY = int(ColumnFlag.BINARY)

#: Regular expressions (RE2) that every valid text of these types matches: the validation's
#: own date and time forms; for DECIMAL a superset (exponent forms are judged one by one).
_TEXT_FORMS: dict[ColumnType, str] = {
    **{t: f"^{pattern}$" for t, pattern in TIME_PATTERNS.items()},
    ColumnType.DECIMAL: r"^[-+]?(\d+\.?\d*|\.\d+)$",
}


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


def bad_names(schemas: list[Optional[str]], tables: list[Optional[str]], problems: dict[int, str]) -> None:
    """Rows whose schema or table name is not a valid name (a NUL in it): a problem each. Names
    are judged once per distinct value of the batch."""
    verdicts: dict[Optional[str], Optional[str]] = {None: None}
    for field, names in (("schema", schemas), ("table", tables)):
        for name in set(names):
            if name not in verdicts:
                verdicts[name] = name_problem(name)
        if any(verdicts[n] is not None for n in set(names)):
            for row, name in enumerate(names):
                if verdicts[name] is not None:
                    problems.setdefault(row, f"{field} name {name!r} {verdicts[name]}")


def _numbers(array: pa.Array, null_as: int) -> np.ndarray:
    """An integer Arrow array as numpy, nulls replaced."""
    return pc.fill_null(array, null_as).to_numpy(zero_copy_only=False)


def _valid(array: pa.Array) -> np.ndarray:
    return array.is_valid().to_numpy(zero_copy_only=False)


@dataclass(frozen=True, slots=True)
class _RuleTable:
    """Per type code of a batch (its distinct type names, then one row for unknown types):
    the bounds of int values by signedness, whether a uint, a str or a bytes value may be
    there by BINARY/UNSIGNED flag, and the float limit (-1 where no float may be)."""

    slo: np.ndarray
    shi: np.ndarray
    ulo: np.ndarray
    uhi: np.ndarray
    uint_signed: np.ndarray
    uint_unsigned: np.ndarray
    float_limit: np.ndarray
    str_plain: np.ndarray
    str_binary: np.ndarray
    bytes_plain: np.ndarray
    bytes_binary: np.ndarray

    @classmethod
    def of(cls, ctypes: list[Optional[ColumnType]]) -> "_RuleTable":
        rows = [value_rules(t) for t in [*ctypes, None]]
        columns = list(zip(*rows))
        return cls(*(np.array(c) for c in columns))


def value_rules(ctype: Optional[ColumnType]) -> tuple:
    """One row of :class:`_RuleTable` (the Java tier's record checks get their tables from it too,
    see a plugin's JVM tier, e.g. canal-json's ``cdcwire_canal_json.jvm_writing``); an empty int range (1..0) where no int may be."""
    none = (1, 0, 1, 0, False, False, -1.0)
    if ctype in INTEGER_RANGES:
        (slo, shi), (ulo, uhi) = INTEGER_RANGES[ctype]  # type: ignore[index]
        same = (slo, shi) == (ulo, uhi)
        ints = (slo, min(shi, I64_MAX), ulo, min(uhi, I64_MAX), same and uhi > I64_MAX, uhi > I64_MAX, -1.0)
        return (*ints, False, False, False, False)
    if ctype in FLOAT_TYPES:
        limit = FLOAT32_MAX if ctype == ColumnType.FLOAT else 1.7976931348623157e308
        return (*none[:6], limit, False, False, False, False)
    if ctype is None or ctype == ColumnType.NULL:
        return (*none, False, False, False, False)
    if ctype == ColumnType.GEOMETRY:
        return (*none, True, True, True, True)
    if ctype in BLOB_TYPES or ctype in STRING_TYPES:
        return (*none, True, False, False, True)
    return (*none, True, True, False, False)  # DECIMAL, dates and times, JSON: text either way


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
        self._value_rules(entries.field("type"), flags, entries.field("mysql_type"))
        self._names_unique_and_plain(offsets)

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

    def _value_rules(self, types: pa.Array, flags: pa.Array, mysql_types: pa.Array) -> None:
        """Flag the entries whose value :func:`cdcwire.model.validation.value_check` refuses.

        numpy finds the suspects in a few passes over all entries (per-entry bounds taken
        from per-type tables); only suspects, none in a clean batch, are judged one by one.
        """
        n = len(types)
        if n == 0:
            return
        if pc.any(pc.fill_null(pc.less(flags, 0), False)).as_py():
            self._flag(pc.indices_nonzero(pc.fill_null(pc.less(flags, 0), False)), "has negative flags")
        encoded = pc.dictionary_encode(types)
        ctypes = [self.type_of.get(name) for name in encoded.dictionary.to_pylist()]
        codes = _numbers(encoded.indices, len(ctypes))  # an unknown or null type: the last row of the tables
        bits = _numbers(flags, 0)
        unsigned = (bits & _UNSIGNED) != 0
        binary = (bits & _BINARY) != 0
        table = _RuleTable.of(ctypes)
        v = self.values
        suspect = np.zeros(n, dtype=bool)
        ints = _numbers(v["int"], 0)
        has_int = _valid(v["int"])
        lo = np.where(unsigned, table.ulo[codes], table.slo[codes])
        hi = np.where(unsigned, table.uhi[codes], table.shi[codes])
        suspect |= has_int & ((ints < lo) | (ints > hi))
        uint_fits = np.where(unsigned, table.uint_unsigned[codes], table.uint_signed[codes])
        suspect |= _valid(v["uint"]) & ~uint_fits
        has_double = _valid(v["double"])
        if has_double.any():
            doubles = pc.fill_null(v["double"], 0.0).to_numpy(zero_copy_only=False)
            limit = table.float_limit[codes]
            with np.errstate(invalid="ignore"):
                suspect |= has_double & ~(np.abs(doubles) <= limit)  # NaN compares false: suspect
        str_fits = np.where(binary, table.str_binary[codes], table.str_plain[codes])
        suspect |= _valid(v["string"]) & ~str_fits
        bytes_fit = np.where(binary, table.bytes_binary[codes], table.bytes_plain[codes])
        suspect |= _valid(v["binary"]) & ~bytes_fit
        for code, ctype in enumerate(ctypes):
            form = _TEXT_FORMS.get(ctype)  # type: ignore[arg-type]
            if form is None:
                continue
            at = np.flatnonzero(codes == code)
            texts = v["string"].take(pa.array(at))
            off_form = pc.fill_null(pc.invert(pc.match_substring_regex(texts, form)), False)
            suspect[at[off_form.to_numpy(zero_copy_only=False)]] = True
        for code, ctype in enumerate(ctypes):
            if ctype == ColumnType.JSON:  # no regular expression says JSON: each text is judged
                suspect |= (codes == code) & _valid(v["string"])
        texts = self._type_text_suspects(mysql_types, ctypes, codes, suspect)
        for j in np.flatnonzero(suspect).tolist():
            ctype = ctypes[codes[j]] if codes[j] < len(ctypes) else None
            if ctype is None or bits[j] < 0:
                continue  # flagged already (unknown type, negative flags)
            value = next((a[j].as_py() for a in v.values() if a[j].is_valid), None)
            if isinstance(value, Decimal):  # the uint field is decimal(20,0)
                value = int(value)
            reason = column_problem(ctype, int(bits[j]), texts[j], value)
            if reason is not None:
                self._flag(pa.array([j]), f"has a bad value: {reason}")

    @staticmethod
    def _type_text_suspects(
        mysql_types: pa.Array, ctypes: list, codes: np.ndarray, suspect: np.ndarray
    ) -> list:
        """Mark the entries whose type text may break a rule (invalid, not one of the entry's type
        code, or bounding its value: ENUM/SET elements, BIT width, DECIMAL precision), judged per
        distinct text; returns each entry's text (None without one) for the judge."""
        if mysql_types.null_count == len(mysql_types):
            return [None] * len(mysql_types)
        encoded = pc.dictionary_encode(mysql_types)
        indices = _numbers(encoded.indices, -1)
        for k, text in enumerate(encoded.dictionary.to_pylist()):
            at = np.flatnonzero(indices == k)
            parsed = parse_type_text(text) if isinstance(text, str) else None
            if not isinstance(parsed, TypeText) or parsed.elements is not None or (
                parsed.length is not None and parsed.base in ("bit", "decimal", "numeric", "dec", "fixed")
            ):
                suspect[at] = True
                continue
            fits = np.array([t in parsed.codes for t in ctypes] + [True])
            suspect[at[~fits[codes[at]]]] = True
        return mysql_types.to_pylist()

    def _names_unique_and_plain(self, offsets: list[int]) -> None:
        """Flag names holding a NUL, and rows whose image names a column twice."""
        names = self.names
        if len(names) == 0:
            return
        nul = pc.fill_null(pc.match_substring(names, "\x00"), False)
        if pc.any(nul).as_py():
            for j in pc.indices_nonzero(nul).to_pylist():
                self._flag(pa.array([j]), f"has a bad name: {name_problem(names[j].as_py())}")
        encoded = pc.dictionary_encode(names)
        distinct = len(encoded.dictionary) + 1  # the last code stands for a null name
        indices = _numbers(encoded.indices, distinct - 1)
        bounds = np.asarray(offsets) - offsets[0]
        lengths = np.diff(bounds)
        if distinct <= 64:  # the usual case: a bit per name, OR-ed per row, counted
            filled = np.flatnonzero(lengths)
            bits = np.left_shift(np.uint64(1), indices.astype(np.uint64))
            masks = np.bitwise_or.reduceat(bits, bounds[filled])
            rows = filled[np.bitwise_count(masks) != lengths[filled]]
        else:
            keys = np.sort(np.repeat(np.arange(len(lengths), dtype=np.int64), lengths) * distinct + indices)
            rows = np.unique(keys[1:][keys[1:] == keys[:-1]] // distinct)
        for row in rows.tolist():
            row_names = names.slice(int(bounds[row]), int(lengths[row])).to_pylist()
            name = next(n for i, n in enumerate(row_names) if n in row_names[:i])
            self.problems.setdefault(row, f"{self.field}: column {name!r} appears twice in the image")
            self.bad_rows.add(row)

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


@functools.cache
def java_check_tables() -> dict:
    """The record checks' tables as the Java tier reads them (``CheckTables``, given to every plugin's JVM codec; whose
    ``RecordChecks`` is its conservative port of these checks): every rule is taken from here,
    never written twice."""
    return {
        "rules": {t.name: list(value_rules(t)) for t in ColumnType},
        "forms": {t.name: pattern for t, pattern in TIME_PATTERNS.items()},
        "codes": {base: sorted(c.name for c in codes) for base, codes in _CODES_BY_NAME.items()},
        "length_limits": {base: limits[0] for base, limits in _NUMBER_LIMITS.items()},
        "scale_limits": {base: limits[1] for base, limits in _NUMBER_LIMITS.items() if limits[1] is not None},
        "element_limits": dict(_ELEMENT_LIMITS),
    }
