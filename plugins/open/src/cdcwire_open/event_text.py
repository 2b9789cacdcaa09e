"""The key JSON and value JSON of one event, rendered from cached fragments.

Per table, each column's fixed part (``"name":{"t":3,"h":true,"f":11,"v":``)
is rendered once; per row only the values are. Output is what Go's
``json.Marshal`` writes for the reference's structs (field order, ``h`` only
for handle keys, ``f`` always, empty ``scm``/``tbl`` left out, HTML-safe
escapes), except that columns keep the event's order where Go would sort
them by name: JSON objects are unordered, and the order survives a round trip.
"""

from __future__ import annotations

from typing import Optional

from cdcwire.plugin_api import (
    BoundedCache,
    Column,
    ColumnFlag,
    Columns,
    DDLEvent,
    EncodeError,
    EventBatch,
    ImageShape,
    RowChangedEvent,
    build_column,
)

from .column_values import BadValue, ValueWriter, value_writer
from .json_text import go_html_escape, json_string
from .row_images import Images

ROW, DDL, RESOLVED = 1, 2, 3
U64_MAX = (1 << 64) - 1

#: (type, flags, fragment for the first column, fragment for the others, value writer)
_ColumnSpec = tuple[int, int, str, str, ValueWriter]


def _utf8(text: str, what: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise EncodeError(f"open-protocol: {what} holds a lone surrogate (U+{ord(text[exc.start]):04X}), not valid Unicode") from None


def _check_ts(ts: object, what: str) -> int:
    if type(ts) is not int or not 0 <= ts <= U64_MAX:
        raise EncodeError(f"open-protocol: {what} has commit ts {ts!r}; it must be an unsigned 64-bit integer")
    return ts


class EventText:
    """Renders events to (key JSON bytes, value JSON bytes); caches per table and column."""

    def __init__(self) -> None:
        self._tables: dict[tuple[str, str], dict[str, _ColumnSpec]] = {}
        self._key_tails: dict[tuple[str, str, Optional[int], bool], str] = {}
        self._shape_specs: BoundedCache[ImageShape, tuple[tuple[str, ...], tuple[ValueWriter, ...]]] = BoundedCache()

    # -- keys ------------------------------------------------------------------------------

    def claim_check_key(self, row: RowChangedEvent, location: str) -> bytes:
        """The key of a claim-check pointer: the row's key with ``"ccl"`` (the stored message's
        location) after ``"t"``, as Go writes the reference's key struct (``ohk`` left out)."""
        tail = self._key_tail(ROW, row.schema, row.table, row.table_id, False)
        tail = tail[:-1] + ',"ccl":' + go_html_escape(json_string(location)) + "}"
        return _utf8('{"ts":' + int.__repr__(_check_ts(row.commit_ts, "row event")) + tail, "claim-check location")

    def row_key(self, row: RowChangedEvent, only_handle_key: bool = False) -> bytes:
        tail_id = (row.schema, row.table, row.table_id, only_handle_key)
        tail = self._key_tails.get(tail_id)
        if tail is None:
            tail = self._key_tails[tail_id] = self._key_tail(ROW, row.schema, row.table, row.table_id, only_handle_key)
        ts = row.commit_ts
        if type(ts) is not int or not 0 <= ts <= U64_MAX:
            _check_ts(ts, f"row event of {row.schema}.{row.table}")
        return _utf8('{"ts":' + int.__repr__(ts) + tail, f"table name {row.schema}.{row.table}")

    def batch_row_parts(self, batch: EventBatch, i: int) -> Optional[tuple[bytes, bytes]]:
        """Key JSON and value JSON of row ``i`` sent with its whole images (insert: new; update:
        new and old; delete: old), as :meth:`row_key` and :meth:`row_value` write them; None
        when a value or the text is one the Event path must report."""
        schema, table, table_id = batch.schemas[i], batch.tables[i], batch.table_ids[i]
        tail_id = (schema, table, table_id, False)
        tail = self._key_tails.get(tail_id)
        if tail is None:
            tail = self._key_tails[tail_id] = self._key_tail(ROW, schema, table, table_id, False)  # type: ignore[arg-type]
        new_shape, old_shape = batch.new_shapes[i], batch.old_shapes[i]
        try:
            if new_shape is None:
                text = '{"d":{' + self._image(old_shape, batch.old_values[i]) + "}}"  # type: ignore[arg-type]
            elif old_shape is None:
                text = '{"u":{' + self._image(new_shape, batch.new_values[i]) + "}}"  # type: ignore[arg-type]
            else:
                text = (
                    '{"u":{' + self._image(new_shape, batch.new_values[i])  # type: ignore[arg-type]
                    + '},"p":{' + self._image(old_shape, batch.old_values[i]) + "}}"  # type: ignore[arg-type]
                )
            for ch in "<>&\u2028\u2029":
                if ch in text:
                    text = go_html_escape(text)
                    break
            key = '{"ts":' + int.__repr__(batch.commit_ts[i]) + tail
            return key.encode("utf-8"), text.encode("utf-8")
        except (BadValue, UnicodeEncodeError):
            return None

    def _image(self, shape: ImageShape, values: list) -> str:
        """One image's columns as :meth:`_columns` writes them, from a shape's fragments."""
        specs = self._shape_specs.get(shape)
        if specs is None:
            made = [_column_spec(build_column(n, t, f, None)) for n, t, f in zip(shape.names, shape.types, shape.flags)]
            fragments = tuple(spec[2] if k == 0 else spec[3] for k, spec in enumerate(made))
            specs = self._shape_specs.remember(shape, (fragments, tuple(spec[4] for spec in made)))
        fragments, writers = specs
        return "".join([
            fragment + ("null" if v is None else write(v)) for fragment, write, v in zip(fragments, writers, values)
        ]) + "}"

    def ddl_key(self, ddl: DDLEvent) -> bytes:
        ts = _check_ts(ddl.commit_ts, "DDL event")
        tail = self._key_tail(DDL, ddl.schema, ddl.table, None, False)
        return _utf8('{"ts":' + int.__repr__(ts) + tail, "DDL schema/table name")

    @staticmethod
    def resolved_key(ts: int) -> bytes:
        return ('{"ts":' + int.__repr__(_check_ts(ts, "resolved event")) + ',"t":3}').encode()

    @staticmethod
    def _key_tail(kind: int, schema: str, table: str, table_id: Optional[int], only_handle_key: bool) -> str:
        parts = [""]
        if schema:
            parts.append('"scm":' + json_string(schema))
        if table:
            parts.append('"tbl":' + json_string(table))
        if table_id is not None:
            if type(table_id) is not int or not -(1 << 63) <= table_id < (1 << 63):
                raise EncodeError(f"open-protocol: table id {table_id!r} of {schema}.{table} is not a 64-bit integer")
            parts.append('"ptn":' + int.__repr__(table_id))
        parts.append(f'"t":{kind}')
        if only_handle_key:
            parts.append('"ohk":true')
        return go_html_escape(",".join(parts) + "}")

    # -- values ----------------------------------------------------------------------------

    @staticmethod
    def ddl_value(ddl: DDLEvent) -> bytes:
        try:
            ddl_type = int(ddl.ddl_type)
        except (TypeError, ValueError):
            raise EncodeError(f"open-protocol: DDL type {ddl.ddl_type!r} is not a number") from None
        if not isinstance(ddl.query, str):
            raise EncodeError(f"open-protocol: DDL query must be str, got {type(ddl.query).__name__}")
        return _utf8(go_html_escape('{"q":' + json_string(ddl.query) + ',"t":' + str(ddl_type) + "}"), "DDL query")

    def row_value(self, row: RowChangedEvent, images: Images) -> bytes:
        new, old = images
        specs = self._tables.get((row.schema, row.table))
        if specs is None:
            specs = self._tables[(row.schema, row.table)] = {}
        try:
            if new is None:
                text = '{"d":{' + self._columns(specs, old) + "}}"  # type: ignore[arg-type]
            elif old is None:
                text = '{"u":{' + self._columns(specs, new) + "}}"
            else:
                text = '{"u":{' + self._columns(specs, new) + '},"p":{' + self._columns(specs, old) + "}}"
        except _ColumnValueError as exc:
            raise EncodeError(
                f"open-protocol: {row.schema}.{row.table} column {exc.column!r} at commit ts {row.commit_ts}: {exc.reason}"
            ) from None
        for ch in "<>&\u2028\u2029":
            if ch in text:
                text = go_html_escape(text)
                break
        return _utf8(text, f"a value of {row.schema}.{row.table}")

    def _columns(self, specs: dict[str, _ColumnSpec], columns: Columns) -> str:
        parts: list[str] = []
        append = parts.append
        for c in columns:
            spec = specs.get(c.name)
            if spec is None or spec[0] != c.type or spec[1] != c.flags:
                spec = specs[c.name] = _column_spec(c)
            append(spec[3] if parts else spec[2])
            v = c.value
            if v is None:
                append("null")
            else:
                try:
                    append(spec[4](v))
                except BadValue as exc:
                    raise _ColumnValueError(c.name, str(exc)) from None
        if parts:
            append("}")
        return "".join(parts)


class _ColumnValueError(Exception):
    def __init__(self, column: str, reason: str):
        self.column = column
        self.reason = reason


def _column_spec(c: Column) -> _ColumnSpec:
    try:
        type_code = int(c.type)
        flags = int(c.flags)
    except (TypeError, ValueError):
        raise EncodeError(f"open-protocol: column {c.name!r} has type {c.type!r} / flags {c.flags!r}, not numbers") from None
    if not isinstance(c.name, str):
        raise EncodeError(f"open-protocol: column name {c.name!r} is not a string")
    head = json_string(c.name) + ':{"t":' + str(type_code)
    if flags & ColumnFlag.HANDLE_KEY:
        head += ',"h":true'
    head += ',"f":' + str(flags) + ',"v":'
    return (type_code, flags, head, "}," + head, value_writer(type_code, bool(flags & ColumnFlag.BINARY)))
