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
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional

from ...foundation.errors import CdcwireError
from ...values.ddl_statements import alter_table_change_types, column_changes
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


def check_policy(policy: str) -> None:
    if policy not in POLICIES:
        raise CdcwireError(f"unknown DDL policy {policy!r}: one of {', '.join(POLICIES)}")


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


def decide(ddls: Iterable, policy: str, release_ts: Optional[int]) -> tuple[dict[str, list[DDLOutcome]], set[int]]:
    """({table: the run's DDLs of it and what is done with each}, the commit ts of the DDLs the
    run applies) for DDL rows (``commit_ts``, ``schema``, ``table``, ``ddl_type``, ``query``;
    a copy seen again counts once) under ``policy``; ``release_ts``: the run's release point
    (None: everything is released). ``stop``: a :class:`CdcwireError` at the first DDL not applied."""
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
        elif policy == "skip-destructive" and _destructive(ddl_type, query):
            action = "skipped (policy skip-destructive)"
        elif _not_applied(ddl_type, query):
            if policy == "stop":
                raise CdcwireError(
                    f"{table}: DDL at commit ts {ts} is not applied by materialize ({ddl_type}: {query}); the run"
                    " stopped before writing anything (policy stop): run it downstream by hand and materialize into a"
                    " new output, or run again with --ddl-policy apply or skip-destructive"
                )
            action = "not applied"
        elif ddl_type in APPLIED:
            action = "applied"
            if policy == "skip-destructive" and any(c.verb == "modify" for c in column_changes(query)):
                action = "applied, values not converted to the new type (policy skip-destructive)"
            run_wipes.add(ts)
        else:
            action = "no effect on rows"
        per_table.setdefault(table, []).append(DDLOutcome(ts, ddl_type, query, action))
    return per_table, run_wipes
