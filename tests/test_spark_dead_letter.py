"""Malformed input records: fail the job with their place, or go to the dead-letter path."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F

from cdcwire import CdcwireError
from cdcwire import spark as cs
from cdcwire.model.message import Message
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.spark.rows.arrow_events import events_to_batch
from cdcwire.spark.writer.dead_letters import DeadLetterWriter
from cdcwire.spark.writer.routing import RoutePlan
from cdcwire.spark.rows.schema import ARROW_EVENT_SCHEMA
from cdcwire.spark.writer.verify import compare
from cdcwire.workload import Workload
from cdcwire.sinks.sink import open_sink

from spark_cases import TaskAttempt, routing_input, run_routing_task, workload_file


def _with_bad_lines(tmp_path, bad: dict[int, str]) -> str:
    good = open(workload_file(tmp_path, events=400, seed=3), encoding="utf-8").read().splitlines()
    for line_number, text in sorted(bad.items()):
        good.insert(line_number - 1, text)
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(good) + "\n", encoding="utf-8")
    return str(path)


BAD = {
    5: '{"type":"row","commit_ts":1,"schema":"s","table":"t"}',
    50: "not json at all",
    123: '{"type":"resolved","ts":-4}',
}


def test_malformed_line_fails_the_job_with_file_and_line(spark, tmp_path):
    path = _with_bad_lines(tmp_path, BAD)
    with pytest.raises(CdcwireError, match=r"mixed\.jsonl:5: line 5"):
        cs.write(cs.read_events(spark, path), f"file://{tmp_path}/out/t?protocol=open-protocol")


def test_dead_letter_takes_malformed_lines_and_the_rest_arrives(spark, tmp_path):
    path = _with_bad_lines(tmp_path, BAD)
    dead = tmp_path / "dead"
    uri = f"file://{tmp_path}/out/t?protocol=open-protocol"
    events = cs.read_events(spark, path, permissive=True)
    summary = cs.write(events, uri, dead_letter=str(dead))
    assert summary.events_in == 403
    assert summary.events_dead_lettered == 3
    assert summary.reconciles
    records = sorted(cs.read_dead_letters(dead), key=lambda r: int(r["source"].rpartition(":")[2]))
    assert [r["source"] for r in records] == ["mixed.jsonl:5", "mixed.jsonl:50", "mixed.jsonl:123"]
    assert "columns" in records[0]["reason"] and records[1]["record"] == "not json at all"
    good = events.where(F.col("_malformed").isNull()).drop("_malformed")
    result = compare(good, cs.read(spark, uri), uri)
    assert result.equal, result


def _parquet_with_bad_rows(tmp_path) -> str:
    """Generated events as Parquet, as a user's own job might write them, with three bad rows:
    an unknown kind (row 3), a delete that carries a new image (row 7) and an unknown column
    type (row 11). Column type names are lower case, which is fine."""
    rows = events_to_batch(list(Workload(40, seed=8))).to_pylist()
    for row in rows:
        for column in row["columns"] or ():
            column["type"] = column["type"].lower()
    rows[3]["kind"] = "upsert"
    delete = next(i for i, r in enumerate(rows) if r["kind"] == "delete" and i > 5)
    rows[delete]["columns"] = rows[delete]["pre_columns"]
    insert = next(i for i, r in enumerate(rows) if r["kind"] == "insert" and i > delete)
    rows[insert]["columns"][1]["type"] = "VARCHAR2"
    path = tmp_path / "events.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=ARROW_EVENT_SCHEMA), path)
    return str(path)


def test_bad_rows_of_a_parquet_input_go_to_the_dead_letter_path_with_their_reason(spark, tmp_path):
    dead = tmp_path / "dead"
    events = cs.read_events(spark, _parquet_with_bad_rows(tmp_path)).coalesce(1)
    summary = cs.write(events, f"file://{tmp_path}/out/t?protocol=craft", dead_letter=str(dead))
    assert summary.events_dead_lettered == 3 and summary.reconciles
    records = sorted(cs.read_dead_letters(dead), key=lambda r: int(r["source"].split()[2]))
    assert records[0]["source"] == "input row 3 (input partition 0, row 3)"
    assert "unknown event kind 'upsert'" in records[0]["reason"]
    assert "kind 'delete' needs pre_columns and no columns" in records[1]["reason"]
    assert "unknown type 'VARCHAR2'" in records[2]["reason"]
    assert '"kind": "upsert"' in records[0]["record"]


def test_a_bad_row_of_a_parquet_input_fails_the_job_naming_row_and_reason(spark, tmp_path):
    events = cs.read_events(spark, _parquet_with_bad_rows(tmp_path)).coalesce(1)
    # the first bad row that a task meets: on the JVM routing tier the check runs after the shuffle,
    # so it may be any of the input's three bad rows, each named with its own reason
    bad_row = (r"(3 .*unknown event kind 'upsert'|\d+ .*kind 'delete' needs pre_columns and no columns"
               r"|\d+ .*unknown type 'VARCHAR2')")
    with pytest.raises(CdcwireError, match=rf"malformed input record at input row {bad_row}"):
        cs.write(events, f"file://{tmp_path}/out/t?protocol=craft")


def test_an_event_the_dispatch_rules_cannot_place_goes_to_the_dead_letter_path(spark, tmp_path):
    """partition=columns on c_varchar: the app.files table has no such column."""
    dead = tmp_path / "dead"
    events = cs.read_events(spark, workload_file(tmp_path, events=400, seed=3))
    uri = f"file://{tmp_path}/out/t?protocol=open-protocol&partition=columns&partition-columns=c_varchar"
    summary = cs.write(events, uri, dead_letter=str(dead))
    files_rows = events.where((F.col("table") == "files") & F.col("kind").isin("insert", "update", "delete")).count()
    assert files_rows > 0 and summary.events_dead_lettered == files_rows and summary.reconciles
    records = list(cs.read_dead_letters(dead))
    assert all(r["source"].startswith("app.files@") and "c_varchar" in r["reason"] for r in records)
    assert '"table":"files"' in records[0]["record"]


def test_an_undecodable_source_message_goes_to_the_dead_letter_path_with_its_offset(spark, tmp_path):
    source = f"file://{tmp_path}/in/t?protocol=open-protocol&partition-num=1"
    cs.write(cs.read_events(spark, workload_file(tmp_path, events=200, seed=3)), source)
    corrupt_offset = cs.read(spark, source).agg(F.max("offset")).first()[0] + 1
    config = parse_sink_uri(source)
    with open_sink(config).transport.writer(config) as writer:
        writer.write(Message("t", 0, b"not a key", b"not a value"))
    dead = tmp_path / "dead"
    back = cs.without_broadcast_copies(cs.read(spark, source, permissive=True))
    summary = cs.write(back, f"file://{tmp_path}/out/t?protocol=craft", dead_letter=str(dead))
    assert summary.events_dead_lettered == 1 and summary.reconciles
    [record] = cs.read_dead_letters(dead)
    assert record["source"] == f"t/0/{corrupt_offset}" and record["reason"]


def test_an_undecodable_source_message_fails_the_read_naming_its_offset(spark, tmp_path):
    source = f"file://{tmp_path}/in/t?protocol=open-protocol&partition-num=1"
    config = parse_sink_uri(source)
    with open_sink(config).transport.writer(config) as writer:
        writer.write(Message("t", 0, b"not a key", b"not a value"))
    with pytest.raises(Exception, match="t/0/0"):
        cs.read(spark, source).count()


def test_dead_letter_readers_skip_an_unfinished_attempt(tmp_path):
    writer = DeadLetterWriter(str(tmp_path), "part-route-w-00000.jsonl", attempt=7)
    writer.write("events.jsonl:3", "bad", "{}")
    assert list(cs.read_dead_letters(tmp_path)) == []  # the task has not finished its input
    writer.publish()
    assert [r["source"] for r in cs.read_dead_letters(tmp_path)] == ["events.jsonl:3"]


def test_a_failed_routing_attempt_leaves_no_dead_letters_and_retries_replace_each_other(tmp_path, monkeypatch):
    dead = tmp_path / "dead"
    uri = f"file://{tmp_path}/out?protocol=open-protocol&partition-num=1"
    plan = RoutePlan(uri, {"out": 1}, (("out", 0),), (0,), str(dead))
    bad = {"source": "events.jsonl:3", "reason": "not json", "text": "{"}
    batch = routing_input(list(Workload(50, seed=2)), malformed={2: bad})

    def executor_lost_after_the_first_batch():
        yield batch
        raise RuntimeError("executor lost")

    with pytest.raises(RuntimeError):
        run_routing_task(plan, executor_lost_after_the_first_batch(), TaskAttempt(0, attempt=0), monkeypatch)
    assert list(cs.read_dead_letters(dead)) == []
    run_routing_task(plan, [batch], TaskAttempt(0, attempt=1), monkeypatch)
    run_routing_task(plan, [batch], TaskAttempt(0, attempt=2), monkeypatch)  # a speculative copy
    assert [r["source"] for r in cs.read_dead_letters(dead)] == ["events.jsonl:3"]


def _row_line(column: str) -> str:
    key = '{"name":"id","type":"INT","flags":11,"value":1}'
    return '{"type":"row","commit_ts":1,"schema":"s","table":"t","columns":[%s,%s]}' % (key, column)


VALUE_RULES = {
    7: _row_line('{"name":"d","type":"DOUBLE","value":%s}' % ("9" * 401)),
    60: _row_line('{"name":"v","type":"VARCHAR","value":"a\\ud800b"}'),
    99: _row_line('{"name":"n","type":"TINYINT","value":300}'),
    200: _row_line('{"name":"x","type":"DATE","flags":1,"value":"2024-13-45","value":"2024-01-01"}'),
}


def test_lines_breaking_value_rules_are_dead_lettered_with_reason_and_place(spark, tmp_path):
    # a 401-digit DOUBLE was an OverflowError, a lone surrogate an Arrow UnicodeEncodeError:
    # each failed the whole job
    path = _with_bad_lines(tmp_path, VALUE_RULES)
    dead = tmp_path / "dead"
    events = cs.read_events(spark, path, permissive=True)
    summary = cs.write(events, f"file://{tmp_path}/out/t?protocol=open-protocol", dead_letter=str(dead))
    assert summary.events_dead_lettered == 4 and summary.reconciles
    records = sorted(cs.read_dead_letters(dead), key=lambda r: int(r["source"].rpartition(":")[2]))
    assert [r["source"] for r in records] == [f"mixed.jsonl:{n}" for n in (7, 60, 99, 200)]
    reasons = [r["reason"] for r in records]
    assert "field 'columns[1].value'" in reasons[0] and "outside the range of DOUBLE" in reasons[0]
    assert "lone surrogate '\\ud800'" in reasons[1]
    assert "300 is outside -128..127, the range of TINYINT" in reasons[2]
    assert "key 'value' appears twice" in reasons[3]


def test_a_line_breaking_a_value_rule_fails_the_job_with_a_one_line_error(spark, tmp_path):
    path = _with_bad_lines(tmp_path, {60: VALUE_RULES[60]})
    words = r"mixed\.jsonl:60: line 60, field 'columns\[1\]\.value': holds a lone surrogate"
    with pytest.raises(CdcwireError, match=words):
        cs.write(cs.read_events(spark, path), f"file://{tmp_path}/out/t?protocol=open-protocol")


def _parquet_breaking_value_rules(tmp_path) -> str:
    """Generated events as Parquet with three inserts that Arrow carries but the event model
    refuses: TINYINT 300 (row a), a NaN DOUBLE (row b) and a column named twice (row c)."""
    rows = events_to_batch(list(Workload(40, seed=8))).to_pylist()
    inserts = [i for i, r in enumerate(rows) if r["kind"] == "insert"][:3]
    value = {"int": None, "uint": None, "double": None, "string": None, "binary": None}
    bad = [
        {"name": "bad", "type": "TINYINT", "flags": 0, "value": {**value, "int": 300}},
        {"name": "bad", "type": "DOUBLE", "flags": 0, "value": {**value, "double": float("nan")}},
        dict(rows[inserts[2]]["columns"][0]),
    ]
    for i, column in zip(inserts, bad):
        rows[i]["columns"].append({"mysql_type": None, **column})
    path = tmp_path / "values.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=ARROW_EVENT_SCHEMA), path)
    return str(path)


def test_parquet_rows_breaking_value_rules_go_to_the_dead_letter_path_with_their_reason(spark, tmp_path):
    dead = tmp_path / "dead"
    events = cs.read_events(spark, _parquet_breaking_value_rules(tmp_path)).coalesce(1)
    summary = cs.write(events, f"file://{tmp_path}/out/t?protocol=craft", dead_letter=str(dead))
    assert summary.events_dead_lettered == 3 and summary.reconciles
    records = sorted(cs.read_dead_letters(dead), key=lambda r: int(r["source"].split()[2]))
    reasons = [r["reason"] for r in records]
    assert "column 'bad' has a bad value: 300 is outside -128..127, the range of TINYINT" in reasons[0]
    assert "column 'bad' has a bad value: a value of a DOUBLE column must be finite" in reasons[1]
    assert "appears twice in the image" in reasons[2]
    assert all(r["source"].startswith("input row ") for r in records)
