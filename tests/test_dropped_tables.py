"""How long a dropped table is kept for a RECOVER TABLE, and which table a RECOVER / FLASHBACK
names (no Spark job)."""

from cdcwire.spark.tables.dropped_tables import KEEP_HOURS, expired, recovered_names
from cdcwire.spark.tables.table_state import TablesState

HOUR = 3_600_000 << 18  # an hour of commit-ts time


def test_a_flashback_to_a_new_name_recovers_the_named_table_under_the_events_name() -> None:
    assert recovered_names("FLASHBACK TABLE `t` TO `u`", "shop", "u") == ("shop.t", "shop.u")
    assert recovered_names("RECOVER TABLE app.t", "app", "t") == ("app.t", "app.t")
    assert recovered_names("RECOVER TABLE BY JOB 42", "shop", "t") == ("shop.t", "shop.t")


def test_a_dropped_table_is_kept_until_a_run_released_a_day_past_its_drop() -> None:
    state = TablesState("parquet", dropped={"shop.t-1": {"table": "shop.t", "ts": HOUR, "applied": 1,
                                                         "dir": "_cdcwire/dropped/shop.t-1"}})
    assert expired(state, [], set(), HOUR * (KEEP_HOURS + 1)) == [] and state.dropped
    assert expired(state, [], set(), HOUR * (KEEP_HOURS + 2)) == ["_cdcwire/dropped/shop.t-1"] and not state.dropped


def test_a_create_of_the_name_after_the_drop_ends_the_kept_copy() -> None:
    state = TablesState("parquet", dropped={"shop.t-5": {"table": "shop.t", "ts": 5, "applied": 1,
                                                         "dir": "_cdcwire/dropped/shop.t-5"}})
    create = {"commit_ts": 9, "schema": "shop", "table": "T", "ddl_type": "CREATE_TABLE", "query": "CREATE TABLE T (a INT)"}
    assert expired(state, [create], set(), None) == [] and state.dropped  # not applied by this run
    assert expired(state, [create], {9}, None) == ["_cdcwire/dropped/shop.t-5"]
