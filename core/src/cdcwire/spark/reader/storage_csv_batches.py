"""The fast tier of reading one storage-sink csv data file: the file parsed whole by
``pyarrow.csv`` into string columns, typed and turned into an event batch with Arrow compute
and numpy, without a Python object per value.

Why: the reference tier (:func:`cdcwire.transports.storage.replay.csv_file_events`: a Python
csv parser, each value typed, a Column and an event built and checked per row, then
``events_to_batch``) spent all of a ``cs.read`` task's time in Python per value.

The contract is the reference tier's: the same events in the same order, each with its line,
and nothing a row would fail on. The fast tier takes only what it can prove it reads alike and
returns None for anything else, so the reference tier reads that file and gives its events
or its exact error (file, line, column). It refuses:

- a dialect pyarrow does not parse alike: a delimiter of 2-3 characters, a terminator other
  than ``\\r\\n`` or ``\\n``, and (without a quote character) any field holding a backslash,
  as TiCDC's escapes are read only by the reference tier;
- a line break inside a value (lines would no longer be records), a file not ending in its
  terminator, a field count or UTF-8 that pyarrow refuses;
- a quoted field whose bytes are not exactly a quoted value (pyarrow is lenient where the
  reference tier is strict: ``"ab"c``): every field's start, length and quotes are checked
  against the file's bytes, so a record reads as the reference tier reads it;
- a value its type's reader would read otherwise than the cast does (an integer or float
  text off the plain decimal form), a header other than TiCDC's, an unknown operation, a D row
  of an update not followed by its I row, NULL table or schema fields, rows of several tables;
- a value or name the event checks (:mod:`.storage_csv_checks`, the columnar form of
  :func:`cdcwire.model.validation.check_event`) may find wrong.

Binary values (base64, hex) are decoded a column at a time (:mod:`.storage_csv_binary`); ENUM,
SET and BIT values, and binary texts off the plain form, are read by the reference tier's own
readers, once per distinct text.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from ...values.type_codes import ColumnFlag, ColumnType
from ...transports.storage.csv_rows import CsvOptions
from ...transports.storage.table_columns import ColumnSpec, read_base64, read_hex
from ..rows.schema import ARROW_COLUMN, ARROW_READ_EVENT_SCHEMA, ARROW_VALUE
from .storage_csv_binary import base64_values, hex_values
from .storage_csv_checks import names_valid, values_valid

I64_MAX = (1 << 63) - 1
_INTEGER = r"^[+-]?[0-9]+$"
_FLOAT = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
_DIGITS = r"^[0-9]+$"
_KINDS = pa.array(["insert", "update", "delete"], pa.string())
_INSERT, _UPDATE, _DELETE = 0, 1, 2
_VALUE_TYPES = {f.name: f.type for f in ARROW_VALUE}
_HANDLE_KEY = int(ColumnFlag.HANDLE_KEY)


class Refused(Exception):
    """The fast tier does not take this file: the reference tier reads it."""


@dataclass(frozen=True)
class FileRows:
    """A csv data file's events as one batch (:data:`ARROW_READ_EVENT_SCHEMA`, in file order),
    their commit ts, and the one table they are of (the replay rules' key)."""

    batch: pa.RecordBatch
    ts: np.ndarray  # uint64, one per event
    schema: str
    table: str
    table_id: Optional[int]
    keys: "RowKeys"


def csv_file_rows(data: bytes, path: str, specs: tuple[ColumnSpec, ...], options: CsvOptions, default_ts: int,
                  table_id: Optional[int] = None) -> Optional[FileRows]:
    """The events of one csv data file, or None when the fast tier does not take it."""
    try:
        return _file_rows(data, path, specs, options, default_ts, table_id)
    except (Refused, pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError, OverflowError):
        return None


def dialect_refusal(options: CsvOptions) -> Optional[str]:
    """Why the fast tier reads no file of this dialect, or None."""
    d = options.dialect
    if len(d.delimiter) != 1 or d.delimiter in ("\r", "\n", "\\", d.quote):
        return f"delimiter {d.delimiter!r} (pyarrow.csv takes one character)"
    if d.terminator not in ("\r\n", "\n"):
        return f"terminator {d.terminator!r}"
    if len(d.quote) > 1 or d.quote in ("\r", "\n"):
        return f"quote {d.quote!r}"
    return None


def _file_rows(data: bytes, path: str, specs: tuple[ColumnSpec, ...], options: CsvOptions, default_ts: int,
               table_id: Optional[int]) -> FileRows:
    d = options.dialect
    if dialect_refusal(options) is not None or not specs or not data or data.startswith(b"\xef\xbb\xbf"):
        raise Refused  # pyarrow skips a byte order mark, which the reference tier reads as text
    lines = _line_count(data, d.terminator)
    width = options.meta_fields + len(specs)
    names = [f"f{i}" for i in range(width)]
    table = pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=names, use_threads=False, block_size=len(data) + 1),
        parse_options=pacsv.ParseOptions(delimiter=d.delimiter, quote_char=d.quote or False, double_quote=True,
                                         escape_char=False, newlines_in_values=False, ignore_empty_lines=False),
        convert_options=pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, null_values=[d.null],
                                             strings_can_be_null=True, quoted_strings_can_be_null=False),
    )
    if table.num_rows != lines:
        raise Refused
    fields = [table.column(i).combine_chunks() for i in range(width)]
    if d.quote:
        _check_quoting(data, fields, options)
    elif any(pc.any(pc.match_substring(f, "\\")).as_py() for f in fields):
        raise Refused  # an escape: the reference tier reads TiCDC's escapes
    first_line = 1
    if options.header:
        if [f[0].as_py() for f in fields] != options.header_names(specs):
            raise Refused
        fields = [f.slice(1) for f in fields]
        first_line = 2
    rows = len(fields[0])
    if rows == 0:
        raise Refused
    return _events(fields, rows, first_line, path, specs, options, default_ts, table_id)


def _line_count(data: bytes, terminator: str) -> int:
    """The file's lines, when each is one record: no line break inside a value."""
    newlines = data.count(b"\n")
    if not data.endswith(terminator.encode()):
        raise Refused
    if terminator == "\r\n":
        if data.count(b"\r") != newlines or data.count(b"\r\n") != newlines:
            raise Refused
    elif b"\r" in data:
        raise Refused
    return newlines


def _check_quoting(data: bytes, fields: list[pa.Array], options: CsvOptions) -> None:
    """Every field's bytes are its value, or its value quoted (inner quotes doubled), and
    the fields with their delimiters fill each line exactly: pyarrow's leniency (text after a
    closing quote, say) is refused here, as the reference tier refuses it."""
    d = options.dialect
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == 10) - (len(d.terminator) - 1)  # where each line's terminator starts
    pos = np.concatenate(([0], ends[:-1] + len(d.terminator))).astype(np.int64)
    quote, delim = ord(d.quote), ord(d.delimiter)
    null_len = len(d.null.encode())
    last = len(fields) - 1
    for j, f in enumerate(fields):
        raw = pc.fill_null(pc.binary_length(f), null_len).to_numpy(zero_copy_only=False).astype(np.int64)
        quoted = buf[np.minimum(pos, len(buf) - 1)] == quote
        if quoted.any():
            inner = pc.fill_null(pc.count_substring(f, d.quote), 0).to_numpy(zero_copy_only=False).astype(np.int64)
            raw = raw + quoted * (2 + inner)
            closing = pos[quoted] + raw[quoted] - 1
            if (closing >= len(buf)).any() or (buf[closing] != quote).any():
                raise Refused
            doubled = quoted & (inner > 0)  # few: values holding a quote, JSON documents
            if doubled.any() and not _quoted_alike(buf, pos[doubled] + 1, raw[doubled] - 2,
                                                   f.filter(pa.array(doubled)), d.quote):
                raise Refused
        end = pos + raw
        if j < last:
            if (end >= ends).any() or (buf[end] != delim).any():
                raise Refused
            pos = end + 1
        elif (end != ends).any():
            raise Refused


def _quoted_alike(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, values: pa.Array, quote: str) -> bool:
    """Each span of the file (a quoted field's inside) is its value with every quote doubled."""
    bounds = np.empty(2 * len(starts), dtype=np.int64)
    bounds[0::2], bounds[1::2] = starts, starts + lengths
    if (np.diff(bounds) < 0).any():
        return False
    bounds = np.concatenate((bounds, [bounds[-1]]))
    spans = pa.Array.from_buffers(pa.large_binary(), len(bounds) - 1,
                                  [None, pa.py_buffer(bounds), pa.py_buffer(buf)])
    insides = spans.take(pa.array(np.arange(0, len(bounds) - 1, 2)))
    expected = pc.replace_substring(values, quote, quote * 2).cast(pa.large_binary())
    return bool(pc.all(pc.equal(insides, expected)).as_py())


def _events(fields: list[pa.Array], rows: int, first_line: int, path: str, specs: tuple[ColumnSpec, ...],
            options: CsvOptions, default_ts: int, table_id: Optional[int]) -> FileRows:
    meta = options.meta_fields
    op, tables, schemas = fields[0], fields[1], fields[2]
    if tables.null_count or schemas.null_count:
        raise Refused
    names = pc.unique(tables).to_pylist(), pc.unique(schemas).to_pylist()
    if len(names[0]) != 1 or len(names[1]) != 1:
        raise Refused
    if options.include_commit_ts:
        text = fields[3]
        if text.null_count or not pc.all(pc.match_substring_regex(text, _DIGITS)).as_py():
            raise Refused
        row_ts = text.cast(pa.uint64()).to_numpy(zero_copy_only=False)
    else:
        row_ts = np.full(rows, default_ts, dtype=np.uint64)
    is_update = (pc.fill_null(pc.equal(fields[meta - 1], "true"), False).to_numpy(zero_copy_only=False)
                 if options.output_old_value else np.zeros(rows, dtype=bool))
    if op.null_count:
        raise Refused
    ins, dels, ups = (pc.equal(op, o).to_numpy(zero_copy_only=False) for o in ("I", "D", "U"))
    if not (ins | dels | ups).all():
        raise Refused
    halves = dels & is_update  # the D row of an old-value update, read with the I row after it
    at = np.flatnonzero(halves)
    if len(at) and (at[-1] + 1 >= rows or not (ins[at + 1] & is_update[at + 1]).all()):
        raise Refused
    paired = np.zeros(rows, dtype=bool)
    paired[at + 1] = True
    event_rows = np.flatnonzero(~halves)
    n = len(event_rows)
    kinds = np.where(dels, _DELETE, np.where(ups | paired, _UPDATE, _INSERT))[event_rows]
    schema, table = names[1][0], names[0][0]
    typed = [_typed(f, spec) for f, spec in zip(fields[meta:], specs)]
    if not names_valid(specs, schema, table) or not all(values_valid(t, s) for t, s in zip(typed, specs)):
        raise Refused  # the reference tier words the first problem, with its line
    key_specs = [j for j, s in enumerate(specs) if s.flags & _HANDLE_KEY]
    # images: (source row, shape) per event; shape 0 none, 1 all columns, 2 the key columns
    new_rows = np.where(kinds == _DELETE, -1, event_rows)
    new_shape = np.where(kinds == _DELETE, 0, 1)
    old_rows = np.where(kinds == _INSERT, -1, np.where(paired[event_rows], event_rows - 1, event_rows))
    key_shape = 2 if key_specs and len(key_specs) < len(specs) else 1
    old_shape = np.where(kinds == _INSERT, 0, np.where(ups[event_rows], key_shape, 1))
    ts = row_ts[event_rows]
    arrays = [
        _KINDS.take(pa.array(kinds, pa.int8())),
        pa.array(ts, pa.uint64()).cast(pa.decimal128(20, 0)),
        _repeat(schema, n, pa.string()),
        _repeat(table, n, pa.string()),
        _repeat(table_id, n, pa.int64()),
        _image(typed, specs, key_specs, new_rows, new_shape, rows),
        _image(typed, specs, key_specs, old_rows, old_shape, rows),
        pa.nulls(n, pa.string()),
        pa.nulls(n, pa.string()),
        pa.array(np.zeros(n, dtype=bool), pa.bool_()),
        _repeat(path, n, pa.string()),
        pa.array(np.zeros(n, dtype=np.int32), pa.int32()),
        pa.array(event_rows + first_line, pa.int64()),
    ]
    batch = pa.RecordBatch.from_arrays(arrays, schema=ARROW_READ_EVENT_SCHEMA)
    key_columns = frozenset(key_specs) if key_shape == 2 else frozenset(range(len(specs)))
    return FileRows(batch, ts, schema, table, table_id,
                    RowKeys(typed, key_columns, ts, kinds, new_rows, old_rows, old_shape))


@dataclass(frozen=True)
class RowKeys:
    """What tells a file's events apart, for the replay rules' dropping of repeated rows: two
    events of one file are equal when their ts, kind, images and typed values are."""

    typed: list[dict[str, pa.Array]]  # per column of the schema file, its values by VALUE field
    key_columns: frozenset  # the columns a key-only old image holds
    ts: np.ndarray
    kinds: np.ndarray
    new_rows: np.ndarray
    old_rows: np.ndarray
    old_shape: np.ndarray

    def at(self, events: np.ndarray) -> dict[str, pa.Array]:
        """Key columns of the events ``events`` (indices into the file's events)."""
        keys = {"ts": pa.array(self.ts[events], pa.uint64()), "kind": pa.array(self.kinds[events], pa.int8()),
                "old_shape": pa.array(self.old_shape[events], pa.int8())}
        new_rows, old_rows = self.new_rows[events], self.old_rows[events]
        key_only = pa.array(self.old_shape[events] == 2)
        for j, values in enumerate(self.typed):
            for name, array in values.items():
                if name == "double":
                    array = pc.add(array, 0.0)  # -0.0 == 0.0, as Python compares them
                keys[f"n{j}{name}"] = _take_rows(array, new_rows)
                old = _take_rows(array, old_rows)
                if j not in self.key_columns:  # a key-only old image does not hold this column
                    old = pc.if_else(key_only, pa.nulls(len(events), old.type), old)
                keys[f"o{j}{name}"] = old
        return keys


def _repeat(value, n: int, type_: pa.DataType) -> pa.Array:
    if value is None:
        return pa.nulls(n, type_)
    return pa.array([value], type_).take(pa.array(np.zeros(n, dtype=np.int32)))


def _take_rows(array: pa.Array, rows: np.ndarray) -> pa.Array:
    """``array`` at ``rows``; null where the row is -1."""
    return array.take(pa.array(rows, pa.int64(), mask=rows < 0))


def _typed(text: pa.Array, spec: ColumnSpec) -> dict[str, pa.Array]:
    """A column's values by the VALUE field they go to (the others null), as ``spec.read``
    would give them."""
    read = spec.read
    if read is str:
        return {"string": text}
    if read is int:
        _all_match(text, _INTEGER)
        if spec.type == ColumnType.BIGINT and spec.flags & ColumnFlag.UNSIGNED:
            if pc.any(pc.starts_with(text, "-")).as_py():
                raise Refused  # the reference tier reads it, and says it is outside the range
            return _split_ints(text.cast(pa.uint64()))
        return {"int": text.cast(pa.int64())}
    if read is float or spec.type == ColumnType.FLOAT:
        _all_match(text, _FLOAT)
        doubles = text.cast(pa.float64())
        if spec.type == ColumnType.FLOAT:
            doubles = doubles.cast(pa.float32()).cast(pa.float64())  # as to_float32: the nearest float32
            if pc.any(pc.is_inf(doubles)).as_py():
                raise Refused  # past float32: the reference tier says so
        return {"double": doubles}
    if read is read_base64 or read is read_hex:
        values = (base64_values if read is read_base64 else hex_values)(text)
        if values is not None:
            return {"binary": values}
    return _read_distinct(text, read)


def _all_match(text: pa.Array, pattern: str) -> None:
    if text.null_count < len(text) and not pc.all(pc.match_substring_regex(text, pattern)).as_py():
        raise Refused


def _split_ints(values: pa.Array) -> dict[str, pa.Array]:
    """Unsigned 64-bit values: those past 2^63-1 go to ``uint``, as the event batch holds them."""
    big = pc.fill_null(pc.greater(values, pa.scalar(I64_MAX, pa.uint64())), False)
    if not pc.any(big).as_py():
        return {"int": values.cast(pa.int64())}
    small = pc.if_else(big, pa.scalar(None, pa.uint64()), values)
    return {"int": small.cast(pa.int64()), "uint": pc.if_else(big, values, pa.scalar(None, pa.uint64()))}


def _read_distinct(text: pa.Array, read) -> dict[str, pa.Array]:
    """Values read by the reference tier's reader, once per distinct text (ENUM, SET, BIT,
    base64 and hex binary)."""
    encoded = pc.dictionary_encode(text)
    values = [read(t) for t in encoded.dictionary.to_pylist()]  # ValueError: refused
    indices = encoded.indices
    if values and isinstance(values[0], bytes):
        return {"binary": pa.array(values, pa.binary()).take(indices)}
    ints = pa.array(values, pa.uint64()) if values else pa.array([], pa.uint64())
    return _split_ints(ints.take(indices))


def _image(typed: list[dict[str, pa.Array]], specs: tuple[ColumnSpec, ...], key_specs: list[int],
           source_rows: np.ndarray, shapes: np.ndarray, rows: int) -> pa.ListArray:
    """One list<COLUMN> column: per event the columns of its source row, all of them (shape 1),
    the key columns (shape 2) or none (shape 0, a null image)."""
    k = len(specs)
    shape_columns = np.zeros((3, k), dtype=np.int64)
    shape_columns[1] = np.arange(k)
    shape_columns[2, :len(key_specs)] = key_specs
    lengths = np.array([0, k, len(key_specs)])[shapes]
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    total = int(offsets[-1])
    position = np.arange(total) - np.repeat(offsets[:-1], lengths)
    column = shape_columns[np.repeat(shapes, lengths), position]
    at = pa.array(column * rows + np.repeat(source_rows, lengths), pa.int64())
    values = []
    for name, type_ in _VALUE_TYPES.items():
        kind = "uint" if name == "uint" else name
        parts = [t.get(kind) for t in typed]
        if all(p is None for p in parts):
            values.append(pa.nulls(total, type_))
            continue
        source_type = pa.uint64() if name == "uint" else type_
        whole = pa.concat_arrays([pa.nulls(rows, source_type) if p is None else p for p in parts]).take(at)
        values.append(whole.cast(type_) if name == "uint" else whole)
    spec_at = pa.array(column, pa.int64())
    entries = pa.StructArray.from_arrays(
        [
            pa.array([s.name for s in specs], pa.string()).take(spec_at),
            pa.array([s.type.name for s in specs], pa.string()).take(spec_at),
            pa.array([int(s.flags) for s in specs], pa.int32()).take(spec_at),
            pa.StructArray.from_arrays(values, fields=list(ARROW_VALUE)),
            pa.array([s.mysql_type for s in specs], pa.string()).take(spec_at),
        ],
        fields=list(ARROW_COLUMN),
    )
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), entries, type=pa.list_(ARROW_COLUMN),
                                    mask=pa.array(shapes == 0))
