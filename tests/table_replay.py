"""The replay oracle: the tables a plain, in-order replay of a change stream leaves, DDLs run.

``materialize`` must leave what a downstream database that replays the stream leaves (TiCDC's
own consumers replay into MySQL). This module is that replay in plain Python, written apart
from the Spark code it checks (it shares only the statement tokenizer), so a test compares
``materialize``'s output with :func:`replay` of the same events:

- row changes: the handle-key columns key each table; an event's old image deletes its key,
  its new image upserts its key (a key-changing update moves the row);
- ``TRUNCATE TABLE``: the table's rows are gone, the table stays (empty);
- ``DROP TABLE``, ``DROP DATABASE``: the tables are gone; ``CREATE TABLE`` of a name starts it
  empty;
- ``RENAME TABLE(S)`` / ``ALTER TABLE ... RENAME TO``: the table moves (replacing one of the
  new name, as a replay after a drop does);
- ``RECOVER TABLE t`` / ``FLASHBACK TABLE t [TO u]``: the rows ``t`` had when dropped come back
  (under ``u``), unless a ``CREATE TABLE t`` came between;
- ``TRUNCATE`` / ``DROP PARTITION``: the rows in those partitions are gone, by the partitioning
  the replay learnt from the DDLs (RANGE, RANGE COLUMNS, LIST, LIST COLUMNS on a column or
  YEAR(column));
- ``ADD COLUMN c ... [DEFAULT v]``: every row gains ``c`` (``v``, or None); ``DROP COLUMN c``:
  every row loses it; ``RENAME COLUMN a TO b`` and ``CHANGE [COLUMN] a b ...``: the values move
  to ``b``; ``MODIFY`` / ``CHANGE`` with a new type convert the values as MySQL does (a value it
  refuses stops the replay with a ValueError).

Events are replayed by commit ts, events of one commit ts in the order given. Resolved events
are skipped: :func:`replay` gives everything; a test of what is applied up to a resolved ts
passes the events up to it.
"""

from __future__ import annotations

from typing import Iterable, Optional

from cdcwire import ColumnFlag, DDLEvent, DDLType, RowChangedEvent
from cdcwire.values.ddl_statements import Token, renamed_tables, tokens

Tables = dict[str, dict[tuple, dict]]

_HANDLE_KEY = ColumnFlag.HANDLE_KEY


def replay(events: Iterable) -> Tables:
    """``{"schema.table": {key: {column: value}}}``, the tables the events leave. A key is the
    tuple of the handle-key values, in column order."""
    tables: Tables = {}
    partitions: dict[str, dict] = {}
    dropped: dict[str, dict] = {}
    ordered = sorted((e for e in events if isinstance(e, (RowChangedEvent, DDLEvent))), key=lambda e: e.commit_ts)
    for event in ordered:
        if isinstance(event, RowChangedEvent):
            _row(tables, event)
        else:
            run_ddl(tables, event, partitions, dropped)
    return tables


def key_of(columns) -> tuple:
    return tuple(c.value for c in columns if c.flags & _HANDLE_KEY)


def _find(tables: Tables, name: str) -> Optional[str]:
    """The table named ``name`` (without case, as TiDB compares names), or None."""
    return next((t for t in tables if t.lower() == name.lower()), None)


def _row(tables: Tables, event: RowChangedEvent) -> None:
    name = f"{event.schema}.{event.table}"
    table = tables.setdefault(_find(tables, name) or name, {})
    if event.pre_columns is not None:
        table.pop(key_of(event.pre_columns), None)
    if event.columns is not None:
        table[key_of(event.columns)] = {c.name: c.value for c in event.columns}


def run_ddl(tables: Tables, ddl: DDLEvent, partitions: Optional[dict] = None, dropped: Optional[dict] = None) -> None:
    """Run one DDL on the replayed tables; ``partitions``: each table's partitioning, kept
    across the DDLs of a replay (partition DDLs need it); ``dropped``: the dropped tables'
    rows, which RECOVER / FLASHBACK TABLE bring back (as TiDB does before its GC)."""
    name = f"{ddl.schema}.{ddl.table}"
    found = _find(tables, name)
    kind = ddl.ddl_type
    if partitions is not None and run_partition_ddl(tables, ddl, partitions):
        return
    if dropped is not None and run_recover_ddl(tables, ddl, dropped):
        return
    if kind == DDLType.TRUNCATE_TABLE:
        if found is not None:
            tables[found] = {}
    elif kind == DDLType.DROP_TABLE:
        tables.pop(found, None)
    elif kind == DDLType.DROP_SCHEMA:
        for t in [t for t in tables if t.split(".", 1)[0].lower() == ddl.schema.lower()]:
            del tables[t]
    elif kind == DDLType.CREATE_TABLE:
        tables.pop(found, None)
        tables[name] = {}
    elif kind in (DDLType.RENAME_TABLE, DDLType.RENAME_TABLES):
        for old, new in renamed_tables(ddl.query):
            source = _find(tables, f"{old.schema or ddl.schema}.{old.table}")
            target = name if new.names(ddl.schema, ddl.table) else f"{new.schema or ddl.schema}.{new.table}"
            if source is not None:
                rows = tables.pop(source)
                tables.pop(_find(tables, target), None)
                tables[target] = rows
    elif found is not None:
        for change in column_changes(ddl.query):
            _change_columns(tables[found], change)
        retype_columns(tables[found], ddl.query)


def _change_columns(table: dict[tuple, dict], change: tuple) -> None:
    """One column change in every row; names compare as MySQL compares them, case aside."""
    verb, column, *rest = change
    for row in table.values():
        found = next((c for c in row if c.lower() == column.lower()), None)
        if verb == "add":
            row[column] = rest[0]
        elif verb == "drop" and found is not None:
            row.pop(found)
        elif verb == "rename" and found is not None:
            row[rest[0]] = row.pop(found)


def run_recover_ddl(tables: Tables, ddl: DDLEvent, dropped: dict) -> bool:
    """Keep a dropped table's rows (DROP TABLE; a CREATE of its name forgets them); bring them
    back under the name a RECOVER TABLE / FLASHBACK TABLE ... [TO new] gives. True when the DDL
    was a RECOVER (nothing else to run)."""
    from cdcwire.values.ddl_statements import recovered_table

    name = f"{ddl.schema}.{ddl.table}"
    if ddl.ddl_type == DDLType.DROP_TABLE and _find(tables, name) is not None:
        dropped[name.lower()] = tables[_find(tables, name)]
    elif ddl.ddl_type == DDLType.CREATE_TABLE:
        dropped.pop(name.lower(), None)
    elif ddl.ddl_type == DDLType.RECOVER_TABLE:
        old = recovered_table(ddl.query)
        old_name = f"{old.schema or ddl.schema}.{old.table}" if old is not None else name
        if old_name.lower() in dropped:
            tables[name] = dropped.pop(old_name.lower())
        return True
    return False


def run_partition_ddl(tables: Tables, ddl: DDLEvent, partitions: dict) -> bool:
    """Learn the table's partitioning from the DDL (CREATE / ALTER ... PARTITION BY, ADD, DROP,
    REORGANIZE PARTITION, renames, drops); run a TRUNCATE / DROP PARTITION: the rows whose
    partitioning column puts them in the partitions are gone (a table whose partitioning is
    unknown: :class:`ValueError`, a replay cannot tell its rows). True when the DDL was one of
    those two (nothing else to run)."""
    from cdcwire.values.ddl_statements import partition_change, partitioning_of

    name = f"{ddl.schema}.{ddl.table}"
    known = next((t for t in partitions if t.lower() == name.lower()), None)
    if ddl.ddl_type == DDLType.CREATE_TABLE:
        partitions.pop(known, None)
        if partitioning_of(ddl.query) is not None:
            partitions[name] = partitioning_of(ddl.query)
        return False
    if ddl.ddl_type in (DDLType.DROP_TABLE, DDLType.REMOVE_PARTITIONING):
        partitions.pop(known, None)
        return False
    if ddl.ddl_type in (DDLType.RENAME_TABLE, DDLType.RENAME_TABLES):
        for old, new in renamed_tables(ddl.query):
            source = next((t for t in partitions if t.lower() == f"{old.schema or ddl.schema}.{old.table}".lower()), None)
            if source is not None:
                partitions[name if new.names(ddl.schema, ddl.table) else f"{new.schema or ddl.schema}.{new.table}"] = (
                    partitions.pop(source))
        return False
    change = partition_change(ddl.query)
    if change is None:
        return False
    spec = partitions.get(known)
    if change[0] == "partition by":
        partitions.pop(known, None)
        if change[1] is not None:
            partitions[name] = change[1]
    elif change[0] == "add" and spec is not None:
        spec["parts"] = spec["parts"] + change[1]
    elif change[0] == "reorganize" and spec is not None:
        at = [i for i, p in enumerate(spec["parts"]) if p[0] in change[1]]
        spec["parts"] = spec["parts"][:at[0]] + change[2] + spec["parts"][at[-1] + 1:]
    elif change[0] in ("truncate", "drop"):
        if spec is None:
            raise ValueError(f"{name}: {ddl.query}: the table's partitioning is not known")
        gone = set(change[1])
        table = tables.get(_find(tables, name), {})
        for key in [k for k, row in table.items() if _partition_of(spec, row.get(spec["column"])) in gone | {"all"}
                    or "all" in gone]:
            del table[key]
        if change[0] == "drop":
            spec["parts"] = [p for p in spec["parts"] if p[0] not in gone]
        return True
    return False


def _partition_of(spec: dict, value) -> Optional[str]:
    """The partition a row whose partitioning column holds ``value`` is in."""
    from decimal import Decimal

    if value is not None and spec["expr"] == "year":
        value = int(str(value)[:4])

    def less(a, b) -> bool:
        return str(a) < b if isinstance(b, str) else Decimal(str(a)) < Decimal(str(b))

    def same(a, b) -> bool:
        if a is None or b is None:
            return a is None and b is None
        return str(a) == b if isinstance(b, str) else Decimal(str(a)) == Decimal(str(b))

    for name, bound in spec["parts"]:
        if spec["kind"] == "list":
            if any(same(value, v) for v in bound):
                return name
        elif value is None or bound is None or less(value, bound):
            return name
    return None


def retype_columns(table: dict[tuple, dict], query: str) -> None:
    """``MODIFY c TYPE`` / ``CHANGE a c TYPE``: every row's ``c`` converted as MySQL converts it
    (:func:`cdcwire.values.type_conversion.converted`); a value MySQL refuses stops the replay
    (:class:`ValueError`), as it stops a replay into MySQL."""
    from cdcwire.values.ddl_statements import column_changes as specs
    from cdcwire.values.type_conversion import converted

    for spec in specs(query):
        if spec.verb != "modify":
            continue
        for key, row in table.items():
            if spec.column in row:
                row[spec.column], taken = converted(row[spec.column], spec.type_text)
                if not taken:
                    raise ValueError(f"MODIFY {spec.column} {spec.type_text} refuses the row {key}")


def column_changes(query: str) -> list[tuple]:
    """The column changes of an ``ALTER TABLE``: ``("add", name, default)``, ``("drop", name)``,
    ``("rename", old, new)``, names as written (MySQL keeps a bare name's case); a MODIFY (values
    kept) and anything else give nothing."""
    toks = tokens(query)
    if len(toks) < 3 or not (toks[0].is_word("alter") and toks[1].is_word("table")):
        return []
    rest = toks[3:] if not (len(toks) > 4 and toks[3].text == ".") else toks[5:]
    out: list[tuple] = []
    for spec in _split(rest):
        words = [t.text if t.kind == "word" else "" for t in spec[:3]]
        if words[0] == "add" and not (words[1] in ("index", "key", "unique", "primary", "constraint", "partition",
                                                  "foreign", "fulltext", "check")):
            body = spec[2:] if words[1] == "column" else spec[1:]
            if body and body[0].kind == "punct":  # ADD COLUMN (a INT, b INT)
                out += [("add", s[0].name, _default(s)) for s in _split(body[1:-1])]
            elif body:
                out.append(("add", body[0].name, _default(body)))
        elif words[0] == "drop" and words[1] not in ("index", "key", "primary", "foreign", "partition", "check",
                                                     "constraint"):
            body = spec[2:] if words[1] == "column" else spec[1:]
            if body and body[0].is_word("if"):
                body = body[2:]
            out.append(("drop", body[0].name))
        elif words[0] == "rename" and words[1] == "column":
            out.append(("rename", spec[2].name, spec[4].name))
        elif words[0] == "change":
            body = spec[2:] if words[1] == "column" else spec[1:]
            if body[0].text.lower() != body[1].text.lower():
                out.append(("rename", body[0].name, body[1].name))
    return out


def _split(toks: list[Token]) -> list[list[Token]]:
    specs, depth = [[]], 0
    for t in toks:
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth -= 1
        elif depth == 0 and t.kind == "punct" and t.text == ",":
            specs.append([])
            continue
        specs[-1].append(t)
    return [s for s in specs if s]


def _default(spec: list[Token]):
    """The DEFAULT of a column definition as MySQL gives it to the rows before it: None
    without one (or DEFAULT NULL); an integer or text as written."""
    for i, t in enumerate(spec):
        if t.is_word("default") and i + 1 < len(spec):
            value = spec[i + 1]
            if value.kind == "punct" and value.text == "-" and i + 2 < len(spec):
                return -int(spec[i + 2].text)
            if value.kind == "string":
                return value.text
            if value.is_word("null"):
                return None
            return int(value.text) if value.text.isdigit() else value.text
    return None
