"""Everything about a row message that depends only on the table's schema, built once.

An encoder keys these on (schema, table, the columns' names, types, flags and
type texts), so per row only the values are formatted. Each row kind has a
ready-made message template: the JSON text of every constant part (head,
``mysqlType``, the keys of ``data`` and ``old``) with a ``%s`` slot for each
per-row part (``es``, ``ts``, ``sqlType``, each value). Filling the slots with
``%`` is one C-level operation, where building a dict per row and running
``json.dumps`` over it was most of the encoder's time. The templates are built
from ``json.dumps`` of the same keys and values in the reference field order,
so the bytes are the ones ``json.dumps`` of the whole document would give.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional, Sequence

from cdcwire.plugin_api import BoundedCache, Column, ColumnFlag, ColumnType

from .column_types import (
    Formatter,
    base_java_type,
    formatter_for,
    json_formatter_for,
    mysql_type_text,
    promotion_of,
)

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)
dumps = _ENCODER.encode

#: The template of an update whose ``old`` is a slot (only the changed columns, built per row).
UPDATE_CHANGED = "UPDATE_CHANGED"
#: Most sets of changed columns a layout keeps a template for.
_CHANGED_OBJECTS_LIMIT = 256


@dataclass(frozen=True, slots=True)
class ColumnPlan:
    """One column as a row message writes it."""

    name: str
    type: ColumnType
    formatter: Formatter
    java_type: int
    promotion: Optional[tuple[int, int]]  # (signed maximum, promoted java type) for unsigned ints
    mysql_type: str
    is_handle_key: bool
    json_formatter: Formatter  # a non-null value as JSON text, or bare text when ``quoted``
    quoted: bool  # the row template has the quotes around this column's value

    @classmethod
    def of(cls, column: Column, content_compatible: bool) -> ColumnPlan:
        ctype, flags = ColumnType(column.type), ColumnFlag(column.flags)
        json_formatter, quoted = json_formatter_for(ctype, flags)
        return cls(
            name=column.name,
            type=ctype,
            formatter=formatter_for(ctype, flags),
            java_type=base_java_type(ctype, flags),
            promotion=promotion_of(ctype, flags),
            mysql_type=mysql_type_text(ctype, flags, column.mysql_type, content_compatible),
            is_handle_key=bool(flags & ColumnFlag.HANDLE_KEY),
            json_formatter=json_formatter,
            quoted=quoted,
        )


def literal(text: str) -> str:
    """Constant text inside a ``%`` template: a ``%`` in a name or type text is doubled."""
    return text.replace("%", "%%")


def json_key(name: object) -> str:
    """A dict key exactly as ``json.dumps`` writes it (an int or float key becomes a string)."""
    return dumps({name: None})[1 : -len(":null}")]


#: What a quoted slot is filled with for a null value: ``"\x00"`` in a message is then
#: replaced by ``null``. JSON text from ``json.dumps`` never holds a raw NUL (it writes
#: ``\u0000``), so the marker cannot be confused with a value.
NULL_MARK = "\x00"
QUOTED_NULL = '"' + NULL_MARK + '"'


@dataclass(frozen=True, slots=True)
class ObjectTemplate:
    """A JSON object of value texts, as ``json.dumps(dict(zip(names, texts)))`` writes it.

    A quoted column's slot is ``"%s"`` (its values are numbers: bare text), the others
    ``%s`` (filled with JSON strings or ``null``). ``slots`` picks, for each key, the
    position of the value written under it: all positions in order, unless two
    columns share a name (a dict keeps the first one's place and the last one's value).
    """

    text: str
    slots: Optional[tuple[int, ...]]  # None: every position, in order

    @classmethod
    def of(cls, names: Sequence[object], quoted: Sequence[bool]) -> ObjectTemplate:
        position: dict[object, int] = {}
        for i, name in enumerate(names):
            position[name] = i
        slots = tuple(position.values())
        text = "{" + ",".join(
            literal(json_key(name)) + (':"%s"' if quoted[i] else ":%s") for name, i in position.items()
        ) + "}"
        return cls(text, None if slots == tuple(range(len(names))) else slots)

    def pick(self, values: list[str]) -> list[str]:
        """The values (one per column, in column order) to fill the slots with."""
        return values if self.slots is None else [values[i] for i in self.slots]


@dataclass(slots=True)
class RowLayout:
    """The ready-made parts of the row messages of one table schema.

    ``indices`` picks the columns of an image this layout writes (all of them,
    or only the handle-key columns for a key-only message).

    ``templates`` maps a row kind to its message text. Slots, in order: ``es``,
    ``ts``, ``sqlType``, then for UPDATE the old image's values (or, for
    UPDATE_CHANGED, the whole ``old`` list), then the values of ``data``, then the
    end of the message (``_tidb`` with the extension, and the closing brace). A
    message that holds :data:`NULL_MARK` must have :data:`QUOTED_NULL` replaced by
    ``null``.
    """

    schema: str
    table: str
    plans: tuple[ColumnPlan, ...]
    indices: tuple[int, ...]
    pk_names: Optional[tuple[str, ...]]
    names: tuple[str, ...] = field(init=False)
    json_formatters: tuple[Formatter, ...] = field(init=False)
    nulls: tuple[str, ...] = field(init=False)  # what each column's slot holds for a null value
    data: ObjectTemplate = field(init=False)
    templates: dict[str, str] = field(init=False)
    mysql_types_json: str = field(init=False)
    fixed_sql_types_json: Optional[str] = field(init=False)
    promotions: tuple[tuple[int, int, int], ...] = field(init=False)  # (position, maximum, promoted)
    _sql_types_by_promotion: dict[tuple[bool, ...], str] = field(init=False)
    _changed_objects: BoundedCache[tuple[int, ...], str] = field(init=False)
    _key_layout: Optional[RowLayout] = field(init=False)

    def __post_init__(self) -> None:
        plans = self.plans
        self.names = tuple(p.name for p in plans)
        self.json_formatters = tuple(p.json_formatter for p in plans)
        self.nulls = tuple(NULL_MARK if p.quoted else "null" for p in plans)
        self.data = ObjectTemplate.of(self.names, [p.quoted for p in plans])
        self.mysql_types_json = dumps({p.name: p.mysql_type for p in plans}) if plans else "null"
        self.promotions = tuple(
            (i, p.promotion[0], p.promotion[1]) for i, p in enumerate(plans) if p.promotion is not None
        )
        self._sql_types_by_promotion = {}
        self._changed_objects = BoundedCache(_CHANGED_OBJECTS_LIMIT)
        self.fixed_sql_types_json = None if self.promotions else self._sql_types_json(())
        self._key_layout = None
        self.templates = self._templates()

    @classmethod
    def of(cls, schema: str, table: str, image: Sequence[Column], content_compatible: bool) -> RowLayout:
        plans = tuple(ColumnPlan.of(c, content_compatible) for c in image)
        pk = tuple(c.name for c in image if c.flags & ColumnFlag.PRIMARY_KEY) or None
        return cls(schema, table, plans, tuple(range(len(plans))), pk)

    def _templates(self) -> dict[str, str]:
        """The message text of each row kind, in the reference field order."""
        pk = "null" if self.pk_names is None else dumps(list(self.pk_names))
        head = literal(
            '{"id":0,"database":' + dumps(self.schema) + ',"table":' + dumps(self.table)
            + ',"pkNames":' + pk + ',"isDdl":false,"type":"'
        )
        middle = '","es":%s,"ts":%s,"sql":"","sqlType":%s,"mysqlType":' + literal(self.mysql_types_json)
        data = ',"data":[' + self.data.text + "]%s"
        return {
            "INSERT": head + "INSERT" + middle + ',"old":null' + data,
            "DELETE": head + "DELETE" + middle + ',"old":null' + data,
            "UPDATE": head + "UPDATE" + middle + ',"old":[' + self.data.text + "]" + data,
            UPDATE_CHANGED: head + "UPDATE" + middle + ',"old":%s' + data,
        }

    def changed_object(self, positions: tuple[int, ...]) -> str:
        """The object template of only these columns (an update's changed old values, with
        only-output-updated-columns); for a layout whose names are unique."""
        text = self._changed_objects.get(positions)
        if text is None:
            names = [self.names[i] for i in positions]
            text = ObjectTemplate.of(names, [self.plans[i].quoted for i in positions]).text
            self._changed_objects.remember(positions, text)
        return text

    def key_layout(self) -> RowLayout:
        """The layout of key-only messages: handle-key columns, same pkNames."""
        if self._key_layout is None:
            keep = tuple(i for i, p in enumerate(self.plans) if p.is_handle_key)
            self._key_layout = RowLayout(
                self.schema, self.table, tuple(self.plans[i] for i in keep), keep, self.pk_names
            )
        return self._key_layout

    def _sql_types_json(self, promoted: tuple[bool, ...]) -> str:
        if not self.plans:
            return "null"
        codes = {p.name: p.java_type for p in self.plans}
        for (position, _maximum, code), up in zip(self.promotions, promoted):
            if up:
                codes[self.plans[position].name] = code
        return dumps(codes)

    def sql_types_json(self, values: Sequence[object]) -> str:
        """The ``sqlType`` object for these (already validated) values of ``plans``."""
        fixed = self.fixed_sql_types_json
        if fixed is not None:
            return fixed
        promoted = tuple([
            values[position] is not None and values[position] > maximum  # type: ignore[operator]
            for position, maximum, _code in self.promotions
        ])
        text = self._sql_types_by_promotion.get(promoted)
        if text is None:
            text = self._sql_types_by_promotion[promoted] = self._sql_types_json(promoted)
        return text
