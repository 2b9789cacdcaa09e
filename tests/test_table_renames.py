"""RENAME TABLE in materialize (cdcwire.spark.tables.table_renames): which name a row's table
ends with, and Delta directories moved through a journal that a killed run finishes."""

from __future__ import annotations

from pathlib import Path

import pytest

from cdcwire.spark.tables.table_renames import Rename, final_name, journal, make_moves, renamed_entries, renames_of


def ddl(ts: int, schema: str, table: str, query: str) -> dict:
    return {"commit_ts": ts, "schema": schema, "table": table, "query": query}


def test_a_rename_statement_gives_the_old_and_the_new_name_in_the_ddl_schema() -> None:
    assert renames_of([ddl(20, "app", "people", "RENAME TABLE users TO people")]) == [Rename(20, "app.users", "app.people")]


def test_a_ddl_seen_again_as_a_broadcast_copy_renames_once() -> None:
    copy = ddl(20, "app", "b", "RENAME TABLE a TO b")
    assert renames_of([copy, copy]) == [Rename(20, "app.a", "app.b")]


def test_the_new_name_takes_the_case_the_event_gives_it() -> None:
    assert renames_of([ddl(20, "App", "People", "rename table users to people")])[0].new == "App.People"


def test_other_statements_rename_nothing() -> None:
    assert renames_of([ddl(20, "app", "a", "ALTER TABLE a RENAME COLUMN x TO y"), ddl(21, "app", "a", "TRUNCATE a")]) == []


def test_a_row_before_a_chain_of_renames_ends_under_the_last_name() -> None:
    chain = [Rename(20, "app.a", "app.b"), Rename(30, "app.b", "app.c")]
    assert [final_name(chain, "app.a", 10), final_name(chain, "app.b", 25), final_name(chain, "app.c", 35)] == [
        "app.c", "app.c", "app.c"]


def test_a_row_after_a_rename_keeps_its_name() -> None:
    renames = [Rename(20, "app.a", "app.b")]
    assert final_name(renames, "app.a", 25) == "app.a"  # a new table app.a, created after the rename


def test_a_swap_at_one_commit_ts_swaps_the_tables() -> None:
    swap = renames_of([ddl(20, "app", "tmp", "RENAME TABLE a TO tmp"), ddl(20, "app", "a", "RENAME TABLE b TO a"),
                       ddl(20, "app", "b", "RENAME TABLE tmp TO b")])
    assert (final_name(swap, "app.a", 10), final_name(swap, "app.b", 10)) == ("app.b", "app.a")


def test_names_compare_without_case() -> None:
    assert final_name([Rename(20, "app.Users", "app.people")], "APP.users", 10) == "app.people"


def test_a_table_renamed_onto_a_taken_name_replaces_its_entry() -> None:
    assert renamed_entries({"app.a": 1, "app.b": 2, "app.c": 3}, {"app.a": "app.b"}) == {"app.b": 1, "app.c": 3}


def delta_tables(out: Path, *names: str) -> None:
    for name in names:
        (out / name / "_delta_log").mkdir(parents=True)
        (out / name / "owner").write_text(name)


def owners(out: Path) -> dict[str, str]:
    return {d.name: (d / "owner").read_text() for d in out.iterdir() if (d / "owner").exists()}


def test_delta_tables_swapped_move_each_directory_once(tmp_path: Path) -> None:
    delta_tables(tmp_path, "app.a", "app.b")
    make_moves(str(tmp_path), journal({"app.a": "app.b", "app.b": "app.a"}), lambda renaming: None)
    assert owners(tmp_path) == {"app.b": "app.a", "app.a": "app.b"}


def test_a_run_killed_after_the_first_phase_finishes_the_moves_from_its_journal(tmp_path: Path) -> None:
    delta_tables(tmp_path, "app.a", "app.b")
    saved: list[dict] = []

    def killed(renaming: dict) -> None:
        saved.append(renaming)
        raise KeyboardInterrupt  # the run dies right after it saved the journal's second phase

    with pytest.raises(KeyboardInterrupt):
        make_moves(str(tmp_path), journal({"app.a": "app.b", "app.b": "app.a"}), killed)
    assert owners(tmp_path) == {} and saved[0]["phase"] == 2
    make_moves(str(tmp_path), saved[0], lambda renaming: None)
    assert owners(tmp_path) == {"app.b": "app.a", "app.a": "app.b"}


def test_a_journal_made_again_from_its_first_phase_moves_nothing_twice(tmp_path: Path) -> None:
    delta_tables(tmp_path, "app.a")
    moves = journal({"app.a": "app.b"})
    make_moves(str(tmp_path), moves, lambda renaming: None)
    make_moves(str(tmp_path), moves, lambda renaming: None)  # killed before the state said the moves were made
    assert owners(tmp_path) == {"app.b": "app.a"}


def test_a_table_renamed_onto_a_dropped_tables_directory_replaces_it(tmp_path: Path) -> None:
    delta_tables(tmp_path, "app.a", "app.b")
    make_moves(str(tmp_path), journal({"app.a": "app.b"}), lambda renaming: None)
    assert owners(tmp_path) == {"app.b": "app.a"}
