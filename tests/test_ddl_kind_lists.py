"""``materialize``'s include / exclude lists of DDL kinds (Flink CDC's ``include.schema.changes``
/ ``exclude.schema.changes``), decided without Spark: what each DDL of a run gets."""

from __future__ import annotations

import pytest

from cdcwire.foundation.errors import CdcwireError
from cdcwire.spark.tables.ddl_policy import decide, policy_of


def ddl(ts: int, kind: str, query: str, table: str = "t") -> dict:
    return {"commit_ts": ts, "schema": "shop", "table": table, "ddl_type": kind, "query": query}


TRUNCATE = ddl(10, "TRUNCATE_TABLE", "TRUNCATE TABLE t")
ADD = ddl(11, "ADD_COLUMN", "ALTER TABLE t ADD COLUMN a INT")
DROP = ddl(12, "DROP_COLUMN", "ALTER TABLE t DROP COLUMN a")


def actions(policy, *ddls) -> list[tuple[str, str]]:
    outcomes, _ = decide(list(ddls), policy, None)
    return [(d.ddl_type, d.action) for d in outcomes["shop.t"]]


def test_an_excluded_kind_is_skipped_and_reported_and_the_others_applied() -> None:
    policy = policy_of("apply", exclude="TRUNCATE_TABLE")
    assert actions(policy, TRUNCATE, ADD) == [
        ("TRUNCATE_TABLE", "skipped (its kind is left out by the include / exclude lists)"), ("ADD_COLUMN", "applied")]


def test_an_excluded_ddl_is_not_among_the_commit_ts_the_run_applies() -> None:
    _, applied = decide([TRUNCATE, ADD], policy_of(exclude=["truncate_table"]), None)
    assert applied == {11}


def test_only_the_included_kinds_are_applied() -> None:
    assert actions(policy_of(include="ADD_*"), TRUNCATE, ADD, DROP) == [
        ("TRUNCATE_TABLE", "skipped (its kind is left out by the include / exclude lists)"),
        ("ADD_COLUMN", "applied"),
        ("DROP_COLUMN", "skipped (its kind is left out by the include / exclude lists)"),
    ]


def test_a_glob_excludes_every_kind_it_matches() -> None:
    assert [a for _, a in actions(policy_of(exclude="DROP_*"), ADD, DROP)] == [
        "applied", "skipped (its kind is left out by the include / exclude lists)"]


def test_a_multi_schema_change_is_left_out_when_one_of_its_changes_is() -> None:
    multi = ddl(13, "MULTI_SCHEMA_CHANGE", "ALTER TABLE t ADD COLUMN b INT, DROP COLUMN a")
    assert actions(policy_of(exclude="DROP_COLUMN"), multi) == [
        ("MULTI_SCHEMA_CHANGE", "skipped (its kind is left out by the include / exclude lists)")]


def test_stop_does_not_stop_at_a_ddl_the_lists_leave_out() -> None:
    exchange = ddl(14, "EXCHANGE_TABLE_PARTITION", "ALTER TABLE t EXCHANGE PARTITION p0 WITH TABLE t2")
    with pytest.raises(CdcwireError, match="not applied by materialize"):
        decide([exchange], "stop", None)
    assert actions(policy_of("stop", exclude="EXCHANGE_TABLE_PARTITION"), exchange) == [
        ("EXCHANGE_TABLE_PARTITION", "skipped (its kind is left out by the include / exclude lists)")]


def test_a_pattern_that_names_no_ddl_kind_is_refused_saying_what_kinds_are() -> None:
    with pytest.raises(CdcwireError, match=r"exclude_ddls: 'TRUNCAT_TABLE' names no DDL kind; kinds are TiDB's DDL"):
        policy_of(exclude="TRUNCAT_TABLE")


def test_renames_cannot_be_excluded() -> None:
    with pytest.raises(CdcwireError, match="RENAME_TABLE cannot be left out"):
        policy_of(exclude="RENAME_*")


def test_renames_are_applied_under_an_include_list_that_does_not_name_them() -> None:
    rename = ddl(15, "RENAME_TABLE", "RENAME TABLE t TO u")
    assert actions(policy_of(include="TRUNCATE_TABLE"), rename) == [("RENAME_TABLE", "applied")]


def test_the_policy_prints_its_lists_in_the_summary_line() -> None:
    assert str(policy_of("skip-destructive", include="*", exclude="ADD_INDEX,DROP_INDEX")) == \
        "skip-destructive; include *; exclude ADD_INDEX,DROP_INDEX"
