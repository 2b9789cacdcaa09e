"""Progress of ``cs.materialize`` / ``cdcwire materialize``: the run names its steps, the display
around it shows the step, the tables done of all, the events read with their rate and an
estimate of what is left, on one line, and sums up at the end."""

from __future__ import annotations

import io
import re
import shutil
import time

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.spark.runtime.progress import ProgressBar
from cdcwire.spark.runtime.run_steps import RunSteps, step
from cdcwire.spark.runtime.session_settings import session_settings
from cdcwire.spark.tables.table_apply import PLAN_SETTING

KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _source(tmp_path, tables=("orders", "items"), rows=20) -> str:
    events, ts = [], 10 << 18
    for table in tables:
        for key in range(rows):
            ts += 1 << 18
            events.append(RowChangedEvent(ts, "shop", table, (Column("id", ColumnType.BIGINT, KEY, key, "bigint(20)"),
                                                              Column("v", ColumnType.VARCHAR, 0, f"v{key}", "varchar(8)"))))
    uri = f"file://{tmp_path}/src/t?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    cdcwire.write(uri, cdcwire.encode(uri, [*events, ResolvedEvent(ts + 1)]))
    return uri


def test_a_step_line_shows_the_table_applied_events_read_their_rate_and_the_time_left() -> None:
    steps = RunSteps(started=0.0)
    steps.tell("staging events", now=1.0)
    steps.tell("deduplicating changes", events=45_000, now=8.0)
    steps.tell("applying shop.orders", done=0, total=12, now=10.0)
    steps.tell("applying shop.items", done=2, total=12, now=20.0)
    assert steps.text(now=20.0) == "applying shop.items (3/12), 45,000 events read (2,250/s), 2/12 tables applied, ~50s left"
    steps.tell("committing", done=12, total=12, now=40.0)
    assert steps.summary(now=50.0) == "45,000 events read (900/s), 12/12 tables applied"


def test_the_steps_keep_the_seconds_each_one_took() -> None:
    steps = RunSteps(started=0.0)
    steps.tell("staging events", now=1.0)
    steps.tell("applying shop.orders", done=0, total=2, now=4.0)
    steps.tell("staging events", now=5.0)  # a step told again adds up
    steps.end(now=7.5)
    steps.end(now=9.0)  # nothing open: nothing added
    assert steps.seconds == {"staging events": 5.5, "applying shop.orders": 1.0}


def test_around_materialize_the_display_names_each_step_and_ends_with_a_summary(spark, tmp_path) -> None:
    uri = _source(tmp_path)
    log = io.StringIO()
    with ProgressBar(spark, label="cdcwire materialize", out=log, plain_every=0.05):
        summary = cs.materialize(spark, uri, str(tmp_path / "tables"))
    lines = log.getvalue().splitlines()
    for shown in ("cdcwire materialize: staging events; ", "cdcwire materialize: deduplicating changes, ",
                  "cdcwire materialize: applying 2 tables in one Spark job, "):
        assert any(line.startswith(shown) for line in lines), (shown, lines)
    assert any(re.match(r"cdcwire materialize: applying 2 tables in one Spark job, \d+ events read \([\d,]+/s\),"
                        r" 0/2 tables applied", line) for line in lines), lines
    assert re.fullmatch(rf"cdcwire materialize: ended after [\d.]+s, {summary.events_read:,} events read"
                        r" \([\d,]+/s\), 2/2 tables applied", lines[-1]), lines[-1]


def test_with_a_plan_per_table_the_display_names_the_table_applied(spark, tmp_path) -> None:
    uri = _source(tmp_path)
    log = io.StringIO()
    with session_settings(spark, {PLAN_SETTING: "per-table"}):
        with ProgressBar(spark, label="cdcwire materialize", out=log, plain_every=0.05):
            cs.materialize(spark, uri, str(tmp_path / "tables"))
    lines = log.getvalue().splitlines()
    # the two tables are applied side by side: either may be the one shown (how a line counts the tables
    # applied and the time left: test_a_step_line_shows_the_table_applied_events_read_their_rate_and_the_time_left)
    assert any(re.match(r"cdcwire materialize: applying shop\.(orders|items) \(1/2\), \d+ events read \([\d,]+/s\),"
                        r" 0/2 tables applied", line) for line in lines), lines


def test_on_a_terminal_the_step_line_is_redrawn_in_place_and_the_summary_stays(spark) -> None:
    screen = _Terminal()
    with ProgressBar(spark, label="run", out=screen, every=0.01):
        step("applying shop.orders with a name long enough to need more than one screen line " * 2, done=0, total=2)
        time.sleep(0.3)
        step("committing", done=2, total=2)
    *redraws, summary = screen.getvalue().split("\r")
    width = shutil.get_terminal_size().columns
    assert redraws[1].startswith("run: applying shop.orders") and all(len(r) < width for r in redraws)
    assert re.fullmatch(r"run: ended after [\d.]+s, 2/2 tables applied\n", summary), summary


def test_a_step_told_after_the_display_ended_is_not_shown_by_it(spark) -> None:
    with ProgressBar(spark, label="run", out=io.StringIO()) as bar:
        step("staging events")
    step("committing")
    assert bar.steps.name == "staging events"


def test_the_materialize_command_ends_its_progress_with_the_events_read_and_tables_applied(spark, tmp_path, capsys) -> None:
    from cdcwire.cli import main

    assert main(["materialize", _source(tmp_path), "--out", str(tmp_path / "tables")]) == 0
    last = capsys.readouterr().err.splitlines()[-1]
    assert re.fullmatch(r"cdcwire materialize: ended after [\d.]+s, 41 events read \([\d,]+/s\), 2/2 tables applied", last), last
