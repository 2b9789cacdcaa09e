"""Column selectors on the Spark write path: the routing stage drops the columns in Arrow, and
what the sink gets is what ``cdcwire.encode`` gives for the same events."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.dispatch import ColumnSelectorError
from cdcwire.model.event_json import read_jsonl
from cdcwire.sinks.sink import open_sink
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.spark.writer.encoding import EncodingTask, encode_routed
from cdcwire.spark.writer.routing import RoutePlan
from cdcwire.workload import Workload

from spark_cases import TaskAttempt, routing_input, run_routing_task, shuffled, workload_file

RULES = """
[[dispatchers]]
matcher = ["shop.*"]
partition = "index-value"

[[dispatchers]]
matcher = ["test.*"]
partition = "columns"
columns = ["c_int"]

[[column-selectors]]
matcher = ["shop.orders"]
columns = ["ID", "c_dec*", "c_varchar"]

[[column-selectors]]
matcher = ["shop.*", "test.*"]
columns = ["*", "!c_json", "!c_added_*", "!c_*blob"]
"""


def rules_uri(tmp_path: Path, query: str, rules: str = RULES) -> str:
    path = tmp_path / "rules.toml"
    path.write_text(rules)
    return f"file://{tmp_path}/out/t?{query}&partition-num=3&dispatch-rules={path}"


def by_partition(messages) -> dict:
    out = defaultdict(list)
    for m in messages:
        out[(m.topic, m.partition)].append((m.key, m.value))
    return dict(out)


def test_a_spark_write_with_column_selectors_gives_the_messages_cdcwire_encode_gives(spark, tmp_path):
    path = workload_file(tmp_path, events=400, seed=11)
    uri = rules_uri(tmp_path, "protocol=craft")  # craft: a columnar encoder, and no wall-clock time in messages
    summary = cs.write(cs.read_events(spark, path), uri)
    assert summary.reconciles
    with open(path, encoding="utf-8") as f:
        expected = cdcwire.encode(uri, list(read_jsonl(f)))
    assert by_partition(cdcwire.read(uri)) == by_partition(expected)
    orders = [e for e in cdcwire.decode(uri, expected) if getattr(e, "table", "") == "orders" and hasattr(e, "image")]
    assert orders and all([c.name for c in e.image] == ["id", "c_decimal", "c_varchar"] for e in orders)


def _routed_and_encoded(tmp_path: Path, uri: str, events: list, monkeypatch, dead_letter=None) -> list:
    """What one routing task and the encoding tasks make of ``events`` (no Spark session)."""
    topic = parse_sink_uri(uri).topic
    plan = RoutePlan(uri, {topic: 3}, tuple((topic, p) for p in range(3)), (0, 1, 2), dead_letter)
    routed = run_routing_task(plan, [routing_input(events)], TaskAttempt(0, attempt=0), monkeypatch)
    config = parse_sink_uri(uri)
    job = open_sink(config).transport.begin_write(config, uri)
    try:
        list(encode_routed(EncodingTask(job, uri), iter(shuffled(routed))))
    finally:
        job.discard()
    return routed


def test_a_selector_dropping_a_handle_key_fails_the_spark_write_even_with_a_dead_letter_path(tmp_path, monkeypatch):
    rules = '[[column-selectors]]\nmatcher = ["shop.*"]\ncolumns = ["c_varchar"]\n'
    uri = rules_uri(tmp_path, "protocol=open-protocol", rules)
    events = list(Workload(60, seed=3))
    with pytest.raises(ColumnSelectorError) as local:
        cdcwire.encode(uri, events)
    with pytest.raises(ColumnSelectorError) as remote:
        _routed_and_encoded(tmp_path, uri, events, monkeypatch, dead_letter=str(tmp_path / "dead"))
    assert str(remote.value) == str(local.value) and "drops handle-key column 'id'" in str(local.value)


def test_a_selector_keeping_no_column_of_a_keyless_row_fails_the_routing_stage_as_encode_does(tmp_path, monkeypatch):
    rules = '[[column-selectors]]\nmatcher = ["app.logs"]\ncolumns = ["other"]\n'
    uri = rules_uri(tmp_path, "protocol=open-protocol", rules)
    line = (Column("line", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "x"),)
    events = [RowChangedEvent(7, "app", "logs", line)]
    with pytest.raises(ColumnSelectorError) as local:
        cdcwire.encode(uri, events)
    with pytest.raises(ColumnSelectorError) as remote:
        _routed_and_encoded(tmp_path, uri, events, monkeypatch)
    assert str(remote.value) == str(local.value)
