"""A realistic, deterministic change stream: ``cdcwire generate`` and the demo's input.

Several tables whose columns cover every column type of
:data:`cdcwire.values.column_kinds.COLUMN_KINDS`; transactions of a few row
changes (inserts, updates, some of which change the handle key, deletes) at
increasing commit ts; ``ALTER TABLE ... ADD COLUMN`` now and then (later rows
carry the new column), ``DROP COLUMN`` of the oldest added one once a table has
``max_added_columns`` (a long stream must not widen its tables forever); or, with
``Workload(ddls={...})``, the DDL mix of a real database (see :data:`DDL_KINDS`); a
resolved ts every ``resolved_every`` commits. A transaction changes each row key at most
once, as TiDB's changes reach TiCDC (one event per key and commit ts; a key-changing update
touches its old and its new key). Values come from
``random.Random(seed)``: the same seed gives the same stream, fast.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
import string
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

from .values.type_codes import ColumnFlag as F
from .values.type_codes import ColumnType as T
from .values.type_codes import DDLType
from .values.column_kinds import COLUMN_KINDS, KINDS_BY_LABEL
from .model.events import Column, DDLEvent, Event, ResolvedEvent, RowChangedEvent
from .model.row_schemas import derive_table_schema
from .values.value_kinds import to_float32

U64 = (1 << 64) - 1
KEY_FLAGS = F.HANDLE_KEY | F.PRIMARY_KEY
#: 2026-11-22 00:00 UTC in milliseconds: TiDB commit ts are (physical ms << 18) | logical.
START_MS = 1795305600000

ValueMaker = Callable[[random.Random], object]

_INT_RANGES = {
    "tinyint": (-128, 127), "tinyint_unsigned": (0, 255),
    "smallint": (-(1 << 15), (1 << 15) - 1), "smallint_unsigned": (0, (1 << 16) - 1),
    "mediumint": (-(1 << 23), (1 << 23) - 1), "mediumint_unsigned": (0, (1 << 24) - 1),
    "int": (-(1 << 31), (1 << 31) - 1), "int_unsigned": (0, (1 << 32) - 1),
    "bigint": (-(1 << 63), (1 << 63) - 1), "bigint_unsigned": (0, U64),
    "year": (1901, 2155), "enum": (1, 3), "set": (0, 7), "bit": (0, (1 << 12) - 1), "bit64": (0, U64),
}
_LETTERS = string.ascii_letters + string.digits + "  _-.,'\"\\/é中ß€😀\t"


def _text(rng: random.Random, limit: int = 24) -> str:
    return "".join(rng.choice(_LETTERS) for _ in range(rng.randint(0, limit))).strip()


def _edge_int(lo: int, hi: int) -> ValueMaker:
    edges = (lo, hi, 0 if lo <= 0 <= hi else lo)

    def make(rng: random.Random) -> int:
        return rng.choice(edges) if rng.random() < 0.05 else rng.randint(lo, hi)

    return make


def _decimal(precision: int, scale: int) -> ValueMaker:
    def make(rng: random.Random) -> str:
        whole = rng.randint(0, 10 ** (precision - scale) - 1)
        text = f"{whole}.{rng.randint(0, 10**scale - 1):0{scale}d}" if scale else str(whole)
        return ("-" + text) if rng.random() < 0.3 and text.strip("0.") else text

    return make


def _datetime(rng: random.Random, lo: int = 0, hi: int = 2_000_000_000) -> dt.datetime:
    return dt.datetime(1970, 1, 2) + dt.timedelta(seconds=rng.randint(lo, hi))


def _json_doc(rng: random.Random) -> str:
    doc = {"id": rng.randint(0, 10**6), "tags": [_text(rng, 6) for _ in range(rng.randint(0, 3))],
           "ok": rng.random() < 0.5, "note": None if rng.random() < 0.3 else _text(rng, 12)}
    return json.dumps(doc, ensure_ascii=False, sort_keys=True)


def value_maker(label: str) -> ValueMaker:
    """How to draw a value of one of COLUMN_KINDS' labels."""
    if label in _INT_RANGES:
        return _edge_int(*_INT_RANGES[label])
    makers: dict[str, ValueMaker] = {
        "float": lambda r: to_float32(r.uniform(-1e6, 1e6)),
        "double": lambda r: r.uniform(-1e12, 1e12) if r.random() < 0.9 else r.choice((0.0, -0.0, 1e-300, 5e300)),
        "decimal": _decimal(10, 4),
        "decimal_int": _decimal(20, 0),
        "date": lambda r: _datetime(r).date().isoformat(),
        "datetime": lambda r: _datetime(r).strftime("%Y-%m-%d %H:%M:%S"),
        "timestamp": lambda r: _datetime(r, 0, 2_100_000_000).strftime("%Y-%m-%d %H:%M:%S"),
        "time": lambda r: f"{'-' if r.random() < 0.1 else ''}{r.randint(0, 838):02d}:{r.randint(0, 59):02d}:{r.randint(1, 59):02d}",
        "json": _json_doc,
    }
    if label in makers:
        return makers[label]
    if label in ("varbinary", "binary", "tinyblob", "blob", "mediumblob", "longblob"):
        if label == "binary":  # BINARY(40) values come padded to their full width
            return lambda r: r.randbytes(40)
        return lambda r: r.randbytes(r.randint(0, 40))
    return _text  # varchar, char, the text types


@dataclass(frozen=True, slots=True)
class ColumnDef:
    name: str
    type: T
    flags: F
    mysql_type: str
    make: ValueMaker = field(compare=False)
    #: The DEFAULT an ADD COLUMN gave it (the value of the rows before it), None for none.
    default: object = None


class KeyPool:
    """Live keys with O(1) add, remove and random choice (swap with the last on removal)."""

    __slots__ = ("_keys", "_where")

    def __init__(self) -> None:
        self._keys: list[int] = []
        self._where: dict[int, int] = {}

    def add(self, key: int) -> None:
        self._where[key] = len(self._keys)
        self._keys.append(key)

    def remove(self, key: int) -> None:
        i = self._where.pop(key)
        last = self._keys.pop()
        if last != key:
            self._keys[i] = last
            self._where[last] = i

    def choice(self, rng: random.Random) -> int:
        return self._keys[rng.randrange(len(self._keys))]


@dataclass(slots=True)
class Table:
    schema: str
    name: str
    columns: list[ColumnDef]
    live: dict[int, dict[str, object]] = field(default_factory=dict)
    keys: KeyPool = field(default_factory=KeyPool)
    next_id: int = 1
    added: int = 0
    #: Width of its RANGE (id) partitions p0, p1, ... (then pmax), 0 when not partitioned.
    partition_width: int = 0

    def image(self, key: int, values: dict[str, object]) -> tuple[Column, ...]:
        out = [Column("id", T.INT, KEY_FLAGS, key, "int(11)")]
        for c in self.columns:
            out.append(Column(c.name, c.type, c.flags, values.get(c.name), c.mysql_type))
        return tuple(out)

    def draw(self, rng: random.Random) -> dict[str, object]:
        return {c.name: (None if rng.random() < 0.1 else c.make(rng)) for c in self.columns}


def _column(label: str) -> ColumnDef:
    kind = KINDS_BY_LABEL[label]
    return ColumnDef(f"c_{label}", kind.type, kind.flags | F.NULLABLE, kind.mysql_type, value_maker(label))


_TABLES = (
    ("shop", "orders", ("int_unsigned", "decimal", "varchar", "datetime", "enum", "tinyint", "float")),
    ("shop", "customers", ("varchar", "char", "date", "bigint", "double", "set", "json", "timestamp")),
    ("app", "files", ("varbinary", "binary", "blob", "tinyblob", "text", "mediumblob", "longtext", "bit", "time")),
)


def make_tables(count: int) -> list[Table]:
    """``count`` tables: three shaped like an application's, then tables with every column kind."""
    tables: list[Table] = []
    for i in range(count):
        if i < len(_TABLES):
            schema, name, labels = _TABLES[i]
        else:
            schema, name = "test", "all_types" if i == len(_TABLES) else f"all_types_{i - len(_TABLES) + 1}"
            labels = tuple(k.label for k in COLUMN_KINDS)
        tables.append(Table(schema, name, [_column(label) for label in labels]))
    return tables


def _create_query(table: Table) -> str:
    cols = ", ".join(["`id` int(11) NOT NULL", *(f"`{c.name}` {c.mysql_type}" for c in table.columns)])
    query = f"CREATE TABLE `{table.schema}`.`{table.name}` ({cols}, PRIMARY KEY (`id`))"
    if table.partition_width:
        w = table.partition_width
        parts = [f"PARTITION `p{i}` VALUES LESS THAN ({(i + 1) * w})" for i in range(_PARTITIONS)]
        query += f" PARTITION BY RANGE (`id`) ({', '.join(parts)}, PARTITION `pmax` VALUES LESS THAN MAXVALUE)"
    return query


@dataclass(slots=True)
class Workload:
    """Parameters of a generated stream."""

    events: int
    seed: int = 0
    tables: int = 4
    resolved_every: int = 10
    ddl_every: int = 500
    max_live_rows: int = 2000
    #: Columns a table gains by ADD COLUMN before its next schema change drops the oldest of
    #: them: tables evolve both ways and stay as wide as real ones however long the stream.
    max_added_columns: int = 3
    #: The DDL mix: kind (one of :data:`DDL_KINDS`) -> weight. Every ``ddl_every``-th commit is
    #: one DDL of a kind drawn by weight, on a table drawn at random. Empty (the default): ADD
    #: COLUMN / DROP COLUMN as ``max_added_columns`` says, the stream of earlier versions byte for
    #: byte. With ``truncate_partition`` in it the tables are RANGE (id) partitioned.
    ddls: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.ddls) - set(DDL_KINDS))
        if unknown:
            raise ValueError(f"Workload: unknown DDL kind(s) {', '.join(unknown)}; known: {', '.join(DDL_KINDS)}")

    def __iter__(self) -> Iterator[Event]:
        return generate(self)


def generate(w: Workload) -> Iterator[Event]:
    """The events of a workload, in commit order."""
    rng = random.Random(w.seed)
    tables = make_tables(max(1, w.tables))
    mix = [(kind, weight) for kind, weight in w.ddls.items() if weight > 0]
    if "truncate_partition" in w.ddls:
        for table in tables:
            table.partition_width = PARTITION_WIDTH
    renamed = [0]
    ts_ms = START_MS
    logical = 0
    emitted = 0

    def next_ts() -> int:
        nonlocal ts_ms, logical
        ts_ms += rng.randint(1, 20)
        logical = rng.randint(0, 100)
        return (ts_ms << 18) | logical

    for table in tables:
        if emitted >= w.events:
            return
        schema = _schema_of(table) if mix else None  # the streams of earlier versions stay as they were
        yield DDLEvent(next_ts(), table.schema, table.name, _create_query(table), DDLType.CREATE_TABLE, schema)
        emitted += 1
    commits = 0
    while emitted < w.events:
        commits += 1
        if w.ddl_every and commits % w.ddl_every == 0:
            if not mix:
                yield _schema_change(rng.choice(tables), next_ts(), w.max_added_columns)
                emitted += 1
                continue
            kind = rng.choices([k for k, _ in mix], [wt for _, wt in mix])[0]
            for event in _mixed_ddl(rng, kind, rng.choice(tables), next_ts, renamed):
                if emitted >= w.events:
                    return
                yield event
                emitted += 1
            continue
        ts = next_ts()
        touched: set[tuple[str, int]] = set()  # (table, key) this transaction changed
        for _ in range(rng.randint(1, 4)):
            if emitted >= w.events:
                return
            yield _row_change(rng, rng.choice(tables), ts, w.max_live_rows, touched)
            emitted += 1
        if w.resolved_every and commits % w.resolved_every == 0 and emitted < w.events:
            yield ResolvedEvent(ts)
            emitted += 1


def _schema_change(table: Table, ts: int, max_added: int) -> DDLEvent:
    """ADD COLUMN a nullable varchar(64), or DROP COLUMN the oldest added one once a table has
    ``max_added`` of them."""
    added = [c for c in table.columns if c.name.startswith("c_added_")]
    where = f"`{table.schema}`.`{table.name}`"
    if len(added) >= max_added:
        col = added[0]
        table.columns.remove(col)
        for values in table.live.values():
            values.pop(col.name, None)
        query = f"ALTER TABLE {where} DROP COLUMN `{col.name}`"
        return DDLEvent(ts, table.schema, table.name, query, DDLType.DROP_COLUMN)
    table.added += 1
    col = ColumnDef(f"c_added_{table.added}", T.VARCHAR, F.NULLABLE, "varchar(64)", _text)
    table.columns.append(col)
    query = f"ALTER TABLE {where} ADD COLUMN `{col.name}` varchar(64) NULL"
    return DDLEvent(ts, table.schema, table.name, query, DDLType.ADD_COLUMN)


#: The DDL kinds ``Workload(ddls=...)`` mixes in, each as TiCDC sends it (``ddl_type`` as
#: TiDB's job names it: a RENAME COLUMN is a MODIFY_COLUMN job; the table's schema after it).
DDL_KINDS = (
    "truncate",            # TRUNCATE TABLE
    "drop_create",         # DROP TABLE, then CREATE TABLE of the name with other columns
    "add_column",          # ADD COLUMN c varchar(64) NULL
    "add_column_default",  # ADD COLUMN c int(11) NULL DEFAULT 7: the rows before it hold 7
    "drop_column",         # DROP COLUMN of a column drawn at random
    "rename_column",       # RENAME COLUMN a TO b
    "modify_column",       # MODIFY COLUMN widening: int -> bigint, varchar(n) -> varchar(2n)
    "rename_table",        # RENAME TABLE a TO b: later rows go to b
    "truncate_partition",  # ALTER TABLE ... TRUNCATE PARTITION p (the tables RANGE (id) partitioned)
)
#: The partitions of a partitioned table: p0 .. p{_PARTITIONS-1} of PARTITION_WIDTH ids, then pmax.
PARTITION_WIDTH = 50
_PARTITIONS = 4


def _mixed_ddl(rng: random.Random, kind: str, table: Table, next_ts: Callable[[], int],
               renamed: list[int]) -> list[DDLEvent]:
    """The DDL events of one ``kind`` on ``table`` (DROP + CREATE are two), the table changed to
    match: its columns (later images carry them), its live rows (what TRUNCATE leaves)."""
    where = f"`{table.schema}`.`{table.name}`"
    pre = _schema_of(table)
    if kind == "truncate":
        _clear(table)
        return [_ddl(table, next_ts(), f"TRUNCATE TABLE {where}", DDLType.TRUNCATE_TABLE, pre)]
    if kind == "drop_create":
        drop = DDLEvent(next_ts(), table.schema, table.name, f"DROP TABLE {where}", DDLType.DROP_TABLE,
                        table_schema=pre)
        _clear(table)
        keep = rng.sample(table.columns, k=rng.randint(1, len(table.columns)))
        table.added += 1
        new = ColumnDef(f"c_new_{table.added}", T.BIGINT, F.NULLABLE, "bigint(20)", value_maker("bigint"))
        table.columns[:] = [c for c in table.columns if c in keep] + [new]
        return [drop, _ddl(table, next_ts(), _create_query(table), DDLType.CREATE_TABLE, None)]
    if kind in ("add_column", "add_column_default"):
        table.added += 1
        if kind == "add_column":
            col = ColumnDef(f"c_added_{table.added}", T.VARCHAR, F.NULLABLE, "varchar(64)", _text)
        else:
            col = ColumnDef(f"c_added_{table.added}", T.INT, F.NULLABLE, "int(11)", value_maker("int"), 7)
        table.columns.append(col)
        for values in table.live.values():
            values[col.name] = col.default
        default = " DEFAULT 7" if col.default is not None else ""
        query = f"ALTER TABLE {where} ADD COLUMN `{col.name}` {col.mysql_type} NULL{default}"
        return [_ddl(table, next_ts(), query, DDLType.ADD_COLUMN, pre)]
    if kind == "drop_column" and len(table.columns) > 1:
        col = rng.choice(table.columns)
        table.columns.remove(col)
        for values in table.live.values():
            values.pop(col.name, None)
        return [_ddl(table, next_ts(), f"ALTER TABLE {where} DROP COLUMN `{col.name}`", DDLType.DROP_COLUMN, pre)]
    if kind == "rename_column":
        col = rng.choice(table.columns)
        table.added += 1
        new = ColumnDef(f"{col.name.split('__', 1)[0]}__r{table.added}", col.type, col.flags, col.mysql_type,
                        col.make, col.default)
        table.columns[table.columns.index(col)] = new
        for values in table.live.values():
            values[new.name] = values.pop(col.name, None)
        query = f"ALTER TABLE {where} RENAME COLUMN `{col.name}` TO `{new.name}`"
        return [_ddl(table, next_ts(), query, DDLType.MODIFY_COLUMN, pre)]
    if kind == "modify_column":
        widen = [c for c in table.columns if c.mysql_type == "int(11)" or c.mysql_type.startswith("varchar(")]
        if widen:
            col = rng.choice(widen)
            if col.type == T.INT:
                new = ColumnDef(col.name, T.BIGINT, col.flags, "bigint(20)", col.make)
            else:
                new = ColumnDef(col.name, col.type, col.flags, f"varchar({2 * int(col.mysql_type[8:-1])})", col.make)
            table.columns[table.columns.index(col)] = new
            query = f"ALTER TABLE {where} MODIFY COLUMN `{col.name}` {new.mysql_type} NULL"
            return [_ddl(table, next_ts(), query, DDLType.MODIFY_COLUMN, pre)]
    if kind == "rename_table":
        renamed[0] += 1
        table.name = f"{table.name.split('__', 1)[0]}__t{renamed[0]}"
        query = f"RENAME TABLE {where} TO `{table.schema}`.`{table.name}`"
        return [_ddl(table, next_ts(), query, DDLType.RENAME_TABLE, pre)]
    if kind == "truncate_partition" and table.partition_width:
        part = rng.randrange(_PARTITIONS + 1)
        lo = part * table.partition_width
        hi = lo + table.partition_width if part < _PARTITIONS else None
        for key in [k for k in table.live if k >= lo and (hi is None or k < hi)]:
            del table.live[key]
            table.keys.remove(key)
        name = f"p{part}" if part < _PARTITIONS else "pmax"
        query = f"ALTER TABLE {where} TRUNCATE PARTITION `{name}`"
        return [_ddl(table, next_ts(), query, DDLType.TRUNCATE_TABLE_PARTITION, pre)]
    return []  # nothing of that kind to do on this table (no column to drop or widen)


def _clear(table: Table) -> None:
    table.live.clear()
    table.keys = KeyPool()


def _schema_of(table: Table):
    """The table's schema as a DDL event carries it (plugin API 1.7 ``table_schema``)."""
    derived = derive_table_schema(table.schema, table.name, table.image(0, {}))
    defaults = {c.name: c.default for c in table.columns if c.default is not None}
    if not defaults:
        return derived
    return dataclasses.replace(derived, columns=tuple(
        dataclasses.replace(c, default=defaults[c.name]) if c.name in defaults else c for c in derived.columns))


def _ddl(table: Table, ts: int, query: str, kind: DDLType, pre) -> DDLEvent:
    return DDLEvent(ts, table.schema, table.name, query, kind, table_schema=_schema_of(table), pre_table_schema=pre)


def _row_change(
    rng: random.Random, table: Table, ts: int, max_live: int, touched: set[tuple[str, int]]
) -> RowChangedEvent:
    """One row change of a transaction; ``touched``: the (table, key) pairs the transaction has
    already changed, never changed again in it (an insert is made instead when every draw hits one)."""
    roll = rng.random()
    live = table.live
    key = None
    if live and not (roll < 0.5 and len(live) < max_live):
        for _ in range(4):
            key = table.keys.choice(rng)
            if (table.name, key) not in touched:
                break
        else:
            key = None
    if key is None:
        key = table.next_id
        table.next_id += 1
        values = table.draw(rng)
        live[key] = values
        table.keys.add(key)
        touched.add((table.name, key))
        return RowChangedEvent(ts, table.schema, table.name, table.image(key, values), None)
    touched.add((table.name, key))
    old = live[key]
    if roll < 0.8 and len(live) < max_live * 1.5:
        new = dict(old)
        for c in rng.sample(table.columns, k=min(len(table.columns), rng.randint(1, 3))):
            new[c.name] = None if rng.random() < 0.1 else c.make(rng)
        new_key = key
        if rng.random() < 0.1:  # the handle key changes: dispatch splits it into delete + insert
            new_key = table.next_id
            table.next_id += 1
            touched.add((table.name, new_key))
            del live[key]
            table.keys.remove(key)
            table.keys.add(new_key)
        live[new_key] = new
        return RowChangedEvent(ts, table.schema, table.name, table.image(new_key, new), table.image(key, old))
    del live[key]
    table.keys.remove(key)
    return RowChangedEvent(ts, table.schema, table.name, None, table.image(key, old))


def write_workload(w: Workload, path: str) -> int:
    """Write a workload as event JSON Lines; returns the number of events."""
    from .model.event_json import write_jsonl

    with open(path, "w", encoding="utf-8") as out:
        return write_jsonl(generate(w), out)
