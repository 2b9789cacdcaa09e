"""TRUNCATE PARTITION and DROP PARTITION in ``materialize``: the rows of those partitions before
the DDL are gone, as a replay into MySQL leaves them.

Which rows a partition holds follows from the table's partitioning, which the stream says only
in DDLs: a ``CREATE TABLE ... PARTITION BY`` or ``ALTER TABLE ... PARTITION BY`` (RANGE on a
column or YEAR(column), RANGE COLUMNS, LIST, LIST COLUMNS on one column), then ``ADD``,
``DROP`` and ``REORGANIZE PARTITION``, renames and drops of the table. A run learns it from
its released DDLs in commit-ts order (:func:`learn`) on top of what earlier runs learnt (the
state's ``partitions``). A RANGE partition holds the values from the bound of the partition
before it (of those still there) up to its own, NULL in the first; a LIST partition its values.

For each partition truncate or drop at ts ``P`` a run applies:

- the run's row changes of the table before ``P`` whose row is in the partitions are left out
  (:func:`partition_images`); MySQL and TiDB require every unique key, the primary key
  included, to hold the partitioning column, so a key's partition never changes (an update
  moving a row to another partition changes its key: its old key's delete is kept);
- the rows an earlier run wrote lose those in the partitions (:meth:`PartitionWipe.arrow`, a
  pyarrow row filter applied per file as the column DDLs are, see :mod:`.column_ddls`).

A partition DDL on a table whose partitioning is not known (its CREATE TABLE came before the
changefeed, or a partitioning this reader does not take apart: HASH, KEY, other expressions)
cannot be applied: under ``apply`` or ``stop`` it is a :class:`CdcwireError` before anything is
written; ``skip-destructive`` skips it (the rows stay) and reports it. ``EXCHANGE PARTITION``
is not applied (reported): the rows of another table would have to move.
"""

from __future__ import annotations

import copy
import datetime
import decimal
from dataclasses import dataclass, field
from typing import Iterable, Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ...foundation.errors import CdcwireError
from ...values.ddl_statements import partition_change, partitioning_of, renamed_tables
from .ddl_facts import TS, ts_value, with_facts
from .table_renames import Rename
from .table_wipes import Wipe, wiped_spans

#: The partition DDLs whose rows a run removes.
PARTITION_WIPE_TYPES = ("TRUNCATE_TABLE_PARTITION", "DROP_TABLE_PARTITION")


@dataclass(frozen=True)
class PartitionWipe:
    """The rows of partitions ``parts`` of ``table`` removed at ``ts``; ``partitioning`` the
    table's at ``ts`` (:data:`cdcwire.values.ddl_statements.Partitioning`), None when unknown."""

    ts: int
    table: str
    parts: tuple
    partitioning: Optional[dict] = field(default=None, hash=False, compare=False)
    query: str = ""
    ddl_type: str = ""
    verb = "partition"  # beside the column changes of a table (see column_ddls.changed_arrow)

    def _ranges(self) -> list[tuple[Optional[object], Optional[object], bool]]:
        """(low bound or None, high bound or None, holds NULL) of each RANGE partition removed."""
        out, low = [], None
        names = {p.lower() for p in self.parts}
        for i, (name, bound) in enumerate(self.partitioning["parts"]):
            if name.lower() in names or "all" in names:
                out.append((low, bound, i == 0))
            low = bound
        return out

    def _listed(self) -> list:
        names = {p.lower() for p in self.parts}
        return [v for name, values in self.partitioning["parts"] if name.lower() in names or "all" in names
                for v in values]

    def contains(self, value) -> bool:
        """Whether a row whose partitioning column holds ``value`` (as a table holds it) is in the partitions."""
        key = _key(value, self.partitioning["expr"])
        if self.partitioning["kind"] == "list":
            return any(_same(key, v) for v in self._listed())
        if key is None:
            return any(null for _, _, null in self._ranges())
        return any((low is None or not _less(key, low)) and (high is None or _less(key, high))
                   for low, high, _ in self._ranges())

    def arrow(self, rows):
        """A file's rows of an earlier run without the rows in the partitions (pyarrow in, pyarrow out)."""
        import pyarrow as pa

        name = {c.lower(): c for c in rows.column_names}.get(self.partitioning["column"].lower())
        if name is None:
            return rows
        keep = [not self.contains(v) for v in rows.column(name).to_pylist()]
        return rows.filter(pa.array(keep, type=pa.bool_()))


def _key(value, expr: str):
    if value is None:
        return None
    if expr == "year":
        if isinstance(value, (datetime.date, datetime.datetime)):
            return value.year
        return int(str(value)[:4])
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, datetime.date):
        return value.isoformat()
    return value


def _less(a, b) -> bool:
    if isinstance(b, str):
        return str(a) < b
    return decimal.Decimal(str(a)) < decimal.Decimal(str(b))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(b, str):
        return str(a) == b
    try:
        return decimal.Decimal(str(a)) == decimal.Decimal(str(b))
    except decimal.InvalidOperation:
        return False


def _find(known: dict, name: str) -> Optional[str]:
    return next((k for k in known if k.lower() == name.lower()), None)


def learn(ddls: Iterable, known: dict, release_ts: Optional[int]) -> tuple[dict, list[PartitionWipe]]:
    """(the partitioning of each table after the DDL rows released, ``release_ts`` None: all;
    the partition truncates and drops among them, each with the partitioning at its ts) from the
    DDL rows (``commit_ts``, ``schema``, ``table``, ``ddl_type``, ``query``; a copy seen again
    counts once) and what earlier runs learnt (``known``, left unchanged)."""
    known = copy.deepcopy(known)
    wipes: list[PartitionWipe] = []
    seen: set[tuple[int, str]] = set()
    for row in sorted(ddls, key=lambda r: int(r["commit_ts"])):
        ts, query, kind = int(row["commit_ts"]), row["query"] or "", row["ddl_type"] or ""
        if (ts, query) in seen or (release_ts is not None and ts > release_ts):
            continue
        seen.add((ts, query))
        schema = row["schema"] or ""
        name = f"{schema}.{row['table'] or ''}"
        found = _find(known, name)
        if kind == "CREATE_TABLE":
            known.pop(found, None)
            learnt = partitioning_of(query)
            if learnt is not None:
                known[name] = learnt
        elif kind == "DROP_TABLE":
            known.pop(found, None)
        elif kind == "DROP_SCHEMA":
            for table in [t for t in known if t.split(".", 1)[0].lower() == schema.lower()]:
                del known[table]
        elif kind in ("RENAME_TABLE", "RENAME_TABLES"):
            for old, new in renamed_tables(query):
                source = _find(known, f"{old.schema or schema}.{old.table}")
                target = name if new.names(schema, row["table"] or "") else f"{new.schema or schema}.{new.table}"
                if source is not None:
                    moved = known.pop(source)
                    known.pop(_find(known, target), None)
                    known[target] = moved
        else:
            change = partition_change(query)
            if change is None:
                continue
            current = known.get(found) if found is not None else None
            if change[0] in ("truncate", "drop"):
                wipes.append(PartitionWipe(ts, name, tuple(change[1]), copy.deepcopy(current), query, kind))
                if change[0] == "drop" and current is not None:
                    dropped = {p.lower() for p in change[1]}
                    current["parts"] = [p for p in current["parts"] if p[0].lower() not in dropped]
            elif change[0] == "add" and current is not None:
                names = {p[0].lower() for p in current["parts"]}
                if change[1] is None:
                    known.pop(found)
                else:
                    current["parts"] += [p for p in change[1] if p[0].lower() not in names]
            elif change[0] == "reorganize" and current is not None:
                old = [i for i, p in enumerate(current["parts"]) if p[0].lower() in {n.lower() for n in change[1]}]
                if change[2] is None or not old:
                    known.pop(found)
                else:
                    current["parts"][old[0]:old[-1] + 1] = change[2]
            elif change[0] in ("remove", "partition by"):
                known.pop(found, None)
                if change[0] == "partition by" and change[1] is not None:
                    known[name] = change[1]
    return known, wipes


def applied_wipes(wipes: list[PartitionWipe], run_ddls: set[int]) -> list[PartitionWipe]:
    """The partition wipes the run applies (their commit ts among ``run_ddls``, the DDLs the
    policy applies); one whose table's partitioning is not known is a :class:`CdcwireError`."""
    out = []
    for wipe in wipes:
        if wipe.ts not in run_ddls:
            continue
        if wipe.partitioning is None:
            raise CdcwireError(
                f"{wipe.table}: DDL at commit ts {wipe.ts} is not applied by materialize ({wipe.ddl_type}:"
                f" {wipe.query}): the table's partitioning is not known from the DDLs seen (its CREATE TABLE came"
                " before the changefeed, or it is partitioned by HASH, KEY or an expression), so the rows of"
                ' the partition cannot be told; run with ddl_policy="skip-destructive", which keeps the rows and'
                " reports it, or materialize from a changefeed that starts before the CREATE TABLE"
            )
        out.append(wipe)
    return out


#: A wipe's partitions as tests of a row's partitioning value: "null" (NULL), "eq" (a LIST value,
#: text ``t1`` or number ``n1``), "range" (from ``t1``/``n1`` up to ``t2``/``n2``, either absent
#: when neither is given; NULL too where ``nul``: the first RANGE partition).
_TEST = "struct<k: string, n1: decimal(38,18), t1: string, n2: decimal(38,18), t2: string, nul: boolean>"
_FACT = f"struct<after: {TS}, before: {TS}, column: string, year: boolean, tests: array<{_TEST}>>"


def _bound(bound) -> tuple[Optional[decimal.Decimal], Optional[str]]:
    if bound is None:
        return None, None
    if isinstance(bound, str):
        return None, bound
    return decimal.Decimal(str(bound)), None


def _tests(wipe: PartitionWipe) -> list[tuple]:
    if wipe.partitioning["kind"] == "list":
        return [("null", None, None, None, None, False) if v is None else ("eq", *_bound(v), None, None, False)
                for v in wipe._listed()]
    return [("range", *_bound(low), *_bound(high), null) for low, high, null in wipe._ranges()]


def _let(value: Column, body) -> Column:
    """``body(x)`` with ``x`` bound to ``value``, computed once: an expression naming a value
    several times otherwise repeats its code at each place (the code of one stage is bounded)."""
    return F.get(F.transform(F.array(value), body), 0)


def _partition_value(image: Column, fact: Column) -> Column:
    """(``text``, ``number``) of a row image's partitioning column (the fact's), both null when
    the image or the value is null."""
    def of(v: Column) -> Column:
        number = F.when(fact["year"], F.substring(v["string"], 1, 4).try_cast("int").cast("decimal(38,18)")).otherwise(
            F.coalesce(v["int"].cast("decimal(38,18)"), v["uint"].cast("decimal(38,18)"),
                       v["string"].try_cast("decimal(38,18)"), v["double"].try_cast("decimal(38,18)")))
        text = F.coalesce(v["string"], v["int"].cast("string"), v["uint"].cast("string"), v["double"].cast("string"))
        return F.struct(text.alias("text"), number.alias("number"))

    return _let(F.get(F.filter(image, lambda c: F.lower(c["name"]) == fact["column"]), 0)["value"], of)


def _in_partitions(value: Column, fact: Column) -> Column:
    """True where a partitioning value (:func:`_partition_value`) is in the fact's partitions,
    as :meth:`PartitionWipe.contains` tells a stored row's."""
    text, number = value["text"], value["number"]
    is_null = text.isNull()

    def at_least(t: Column, n: Column) -> Column:
        return F.when(t.isNotNull(), text >= t).when(n.isNotNull(), number >= n).otherwise(F.lit(True))

    def below(t: Column, n: Column) -> Column:
        return F.when(t.isNotNull(), text < t).when(n.isNotNull(), number < n).otherwise(F.lit(True))

    def holds(t: Column) -> Column:
        term = (F.when(t["k"] == "null", is_null)
                .when(t["k"] == "eq", F.when(t["t1"].isNotNull(), text == t["t1"]).otherwise(number == t["n1"]))
                .otherwise((~is_null & at_least(t["t1"], t["n1"]) & below(t["t2"], t["n2"])) | (t["nul"] & is_null)))
        return F.coalesce(term, F.lit(False))

    return F.exists(fact["tests"], holds)


def partition_images(events: DataFrame, wipes: list[PartitionWipe], renames: list[Rename]) -> DataFrame:
    """Row events without the changes each wipe removes (the table's before its ts, in its
    partitions; names as the events carry them, followed back through the run's renames); an
    update moving a row out of a removed partition into another keeps only its old key's delete.
    The wipes come as facts per table name (:mod:`.ddl_facts`), applied in their order by one
    expression, the same for one partition DDL or hundreds."""
    if not wipes:
        return events
    facts: dict[tuple[str, str], list[tuple]] = {}
    for wipe in wipes:
        tests = _tests(wipe)
        column, year = wipe.partitioning["column"].lower(), wipe.partitioning["expr"] == "year"
        for name, after, before in wiped_spans(Wipe(wipe.ts, wipe.table, "truncate"), renames):
            schema, table = name.lower().split(".", 1)
            facts.setdefault((schema, table), []).append((ts_value(after), ts_value(before), column, year, tests))
    events = with_facts(events, facts, ("schema", "table"), _FACT, "_cdc_parts")
    ts, has_old, has_new = F.col("commit_ts"), F.col("pre_columns").isNotNull(), F.col("columns").isNotNull()

    def found(fact: Column) -> Column:  # per wipe: whether it applies to the row, and holds its new, old image
        def holds(image: Column) -> Column:
            return F.coalesce(F.when(image.isNotNull(), _in_partitions(_partition_value(image, fact), fact)), F.lit(False))

        mine = (ts < fact["before"]) & (fact["after"].isNull() | (ts > fact["after"]))
        return F.struct(F.coalesce(mine, F.lit(False)).alias("mine"), holds(F.col("columns")).alias("new"),
                        holds(F.col("pre_columns")).alias("old"))

    def step(state: Column, hit: Column) -> Column:  # the wipes in order; a row made a delete has no new image
        new = hit["new"] & ~state["deleted"]
        gone = hit["mine"] & (((~has_new | state["deleted"]) & hit["old"]) | (new & (~has_old | hit["old"])))
        deleted = hit["mine"] & new & has_old & ~hit["old"]
        return F.struct((state["gone"] | gone).alias("gone"), (state["deleted"] | deleted).alias("deleted"))

    start = F.struct(F.lit(False).alias("gone"), F.lit(False).alias("deleted"))
    outcome = F.aggregate(F.transform("_cdc_parts", found), start, step)  # null for the rows of tables without wipes
    # computed once, in a generator: a filter on it would be pushed below its projection, its code copied there
    events = events.withColumn("_cdc_parts", F.explode(F.filter(F.array(outcome),
                                                                lambda o: ~F.coalesce(o["gone"], F.lit(False)))))
    deleted = F.coalesce(F.col("_cdc_parts")["deleted"], F.lit(False))
    return events.withColumns({
        "kind": F.when(deleted, F.lit("delete")).otherwise(F.col("kind")),
        "columns": F.when(deleted, F.lit(None)).otherwise(F.col("columns")),
    }).drop("_cdc_parts")
