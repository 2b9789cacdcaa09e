"""What ``materialize`` does with each DDL of a run, under a policy, as Flink CDC's
``schema.change.behavior`` decides for its sinks.

- ``apply`` (the default): the tables a replay leaves. TRUNCATE TABLE, DROP TABLE and DROP
  DATABASE empty or remove tables (:mod:`.table_wipes`), RENAME TABLE(S) moves them
  (:mod:`.table_renames`), CREATE TABLE / CREATE DATABASE need nothing (a created table
  starts empty), ADD / DROP / RENAME / MODIFY COLUMN change the rows (:mod:`.column_ddls`),
  TRUNCATE / DROP PARTITION remove a partition's rows where the partitioning is known
  (:mod:`.partition_ddls`; unknown: an error); DDLs that change no row (indexes, comments,
  placement, ADD / REORGANIZE PARTITION, repartitioning, ...) need nothing; RECOVER /
  FLASHBACK TABLE bring back a dropped table the output still keeps (:mod:`.dropped_tables`).
- ``skip-destructive``: as ``apply``, but the DDLs that remove rows or values (truncate, drop
  table, drop database, drop column, partition truncates, drops and exchanges) are skipped:
  the rows stay, and the summary names each one skipped; a MODIFY converts no value.
- ``stop``: as ``apply`` until a DDL that is not applied (EXCHANGE PARTITION, RECOVER
  DATABASE, FLASHBACK CLUSTER, a multi-schema change with one among its changes): the run stops before it writes
  anything, naming the table, the DDL and its commit ts.

Under ``apply`` the DDLs this version does not run (the ``stop`` list) are reported as not
applied, never silently taken for done.

Beside the behaviour, lists of DDL kinds narrow what is applied, as Flink CDC's
``include.schema.changes`` / ``exclude.schema.changes``: a kind is TiDB's DDL type as the
summary prints it (``TRUNCATE_TABLE``, ``DROP_COLUMN``; globs such as ``DROP_*``). A DDL left
out by the lists is skipped under every behaviour (``stop`` does not stop at it) and reported;
a multi-schema change is left out when one of its changes is. RENAME TABLE(S) is always
applied (an include list need not name it) and cannot be excluded: the rows after a rename
carry the new name, so the old table could never be written again.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Iterable, Optional, Sequence, Union

from ...foundation.errors import CdcwireError
from ...values.ddl_statements import alter_table_change_types, column_changes
from ...values.type_codes import DDLType
from .partition_ddls import PARTITION_WIPE_TYPES
from .table_renames import RENAME_TYPES
from .table_wipes import WIPE_TYPES

POLICIES = ("apply", "skip-destructive", "stop")

#: Removing rows or values: skipped under ``skip-destructive``.
DESTRUCTIVE = (*WIPE_TYPES, "DROP_COLUMN", "DROP_COLUMNS", *PARTITION_WIPE_TYPES, "EXCHANGE_TABLE_PARTITION")
#: Applied by a run (see the module doc).
APPLIED = (*WIPE_TYPES, *RENAME_TYPES, "CREATE_TABLE", "CREATE_TABLES", "CREATE_SCHEMA", "ADD_COLUMN", "ADD_COLUMNS",
           "MODIFY_COLUMN", "DROP_COLUMN", "DROP_COLUMNS", "MULTI_SCHEMA_CHANGE", *PARTITION_WIPE_TYPES, "RECOVER_TABLE")
#: Changing rows in a way a run does not apply: reported; ``stop`` stops at them.
NOT_APPLIED = ("EXCHANGE_TABLE_PARTITION", "RECOVER_SCHEMA", "FLASHBACK_CLUSTER")


@dataclass(frozen=True, slots=True)
class DDLOutcome:
    """One DDL of a run and what the run did with it: ``action`` "applied", "no effect on rows",
    "skipped (policy skip-destructive)", "not applied" or "waits for a resolved ts past it"."""

    ts: int
    ddl_type: str
    query: str
    action: str


@dataclass(frozen=True, slots=True)
class DDLPolicy:
    """What a run does with its DDLs, read once from ``materialize``'s arguments: the behaviour
    (one of :data:`POLICIES`) and the kinds it includes (empty: every kind) and excludes."""

    behavior: str = "apply"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

    def leaves_out(self, kinds: Sequence[str]) -> bool:
        """True when one of a DDL's kinds is not included, or excluded (renames never are)."""
        return any(not self._keeps(kind) for kind in kinds if kind not in RENAME_TYPES)

    def _keeps(self, kind: str) -> bool:
        included = not self.include or any(fnmatchcase(kind, p) for p in self.include)
        return included and not any(fnmatchcase(kind, p) for p in self.exclude)

    def __str__(self) -> str:
        lists = [f"{name} {','.join(kinds)}" for name, kinds in (("include", self.include), ("exclude", self.exclude))
                 if kinds]
        return "; ".join([self.behavior, *lists])


def policy_of(behavior: Union[str, DDLPolicy] = "apply", include: Union[str, Sequence[str], None] = None,
              exclude: Union[str, Sequence[str], None] = None) -> DDLPolicy:
    """The :class:`DDLPolicy` of ``materialize``'s arguments; kinds as a list or comma-separated
    text. A :class:`CdcwireError` for an unknown behaviour, a pattern that names no DDL kind (a
    typo would otherwise leave out nothing, silently) or an exclusion that matches a rename."""
    if isinstance(behavior, DDLPolicy):
        return behavior
    if behavior not in POLICIES:
        raise CdcwireError(f"unknown DDL policy {behavior!r}: one of {', '.join(POLICIES)}")
    policy = DDLPolicy(behavior, _patterns(include, "include_ddls"), _patterns(exclude, "exclude_ddls"))
    renames = [k for k in RENAME_TYPES if any(fnmatchcase(k, p) for p in policy.exclude)]
    if renames:
        raise CdcwireError(
            f"{renames[0]} cannot be left out of a run's DDLs: the rows after a rename carry the new name, so the old"
            " table would never be written again; exclude narrower kinds than the pattern that matched it"
        )
    return policy


def _patterns(kinds: Union[str, Sequence[str], None], argument: str) -> tuple[str, ...]:
    if kinds is None:
        return ()
    texts = kinds.split(",") if isinstance(kinds, str) else list(kinds)
    patterns = tuple(t.strip().upper() for t in texts if t.strip())
    for pattern in patterns:
        if not any(fnmatchcase(kind, pattern) for kind in DDLType.__members__):
            raise CdcwireError(
                f"{argument}: {pattern!r} names no DDL kind; kinds are TiDB's DDL types as the run's summary prints"
                " them (TRUNCATE_TABLE, DROP_TABLE, ADD_COLUMN, DROP_COLUMN, MODIFY_COLUMN, TRUNCATE_TABLE_PARTITION,"
                " ...), globs such as DROP_* match several"
            )
    return patterns


def _kinds(ddl_type: str, query: str) -> list[str]:
    """The kinds a DDL is made of: a multi-schema change's each change (a change this version
    cannot read counts as a RECOVER would: not applied), any other DDL itself."""
    if ddl_type != "MULTI_SCHEMA_CHANGE":
        return [ddl_type]
    return [k.name if k is not None else "RECOVER_TABLE" for k in alter_table_change_types(query)] or ["RECOVER_TABLE"]


def _not_applied(ddl_type: str, query: str) -> bool:
    return any(k in NOT_APPLIED for k in _kinds(ddl_type, query))


def _destructive(ddl_type: str, query: str) -> bool:
    return any(k in DESTRUCTIVE for k in _kinds(ddl_type, query))


def decide(ddls: Iterable, policy: Union[str, DDLPolicy],
           release_ts: Optional[int]) -> tuple[dict[str, list[DDLOutcome]], set[int]]:
    """({table: the run's DDLs of it and what is done with each}, the commit ts of the DDLs the
    run applies) for DDL rows (``commit_ts``, ``schema``, ``table``, ``ddl_type``, ``query``;
    a copy seen again counts once) under ``policy``; ``release_ts``: the run's release point
    (None: everything is released). ``stop``: a :class:`CdcwireError` at the first DDL not applied."""
    policy = policy_of(policy)
    seen: set[tuple[int, str]] = set()
    per_table: dict[str, list[DDLOutcome]] = {}
    run_wipes: set[int] = set()
    for row in sorted(ddls, key=lambda r: int(r["commit_ts"])):
        ts, ddl_type, query = int(row["commit_ts"]), row["ddl_type"] or "", row["query"] or ""
        if (ts, query) in seen:
            continue
        seen.add((ts, query))
        table = f"{row['schema'] or ''}.{row['table']}" if row["table"] else f"{row['schema'] or ''}"
        if ddl_type in RENAME_TYPES:  # renames move the tables of earlier runs at once (see table_renames)
            action = "applied"
        elif release_ts is not None and ts > release_ts:
            action = "waits for a resolved ts past it"
        elif policy.leaves_out([ddl_type, *_kinds(ddl_type, query)]):
            action = "skipped (its kind is left out by the include / exclude lists)"
        elif policy.behavior == "skip-destructive" and _destructive(ddl_type, query):
            action = "skipped (policy skip-destructive)"
        elif _not_applied(ddl_type, query):
            if policy.behavior == "stop":
                raise CdcwireError(
                    f"{table}: DDL at commit ts {ts} is not applied by materialize ({ddl_type}: {query}); the run"
                    " stopped before writing anything (policy stop): run it downstream by hand and materialize into a"
                    " new output, or run again with --ddl-policy apply or skip-destructive"
                )
            action = "not applied"
        elif ddl_type in APPLIED:
            action = "applied"
            if policy.behavior == "skip-destructive" and any(c.verb == "modify" for c in column_changes(query)):
                action = "applied, values not converted to the new type (policy skip-destructive)"
            run_wipes.add(ts)
        else:
            action = "no effect on rows"
        per_table.setdefault(table, []).append(DDLOutcome(ts, ddl_type, query, action))
    return per_table, run_wipes
