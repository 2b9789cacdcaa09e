"""Nothing lost, nothing written twice: a failed write through Spark or the CLI publishes nothing on
``file://`` and its retry writes each event once; ``kafka://`` says it delivers at least once;
overwrite replaces (``file://``) or is refused (``kafka://``); an event the encoder refuses is
dead-lettered when there is a dead-letter directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.cli import main
from cdcwire.foundation.errors import CdcwireError, EncodeError
from cdcwire.model.event_json import read_jsonl
from cdcwire.model.message import Message
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.spark.pipeline import WriteSummary
from cdcwire.spark.writer.dead_letters import encode_refusing
from cdcwire.spark.writer.routing_counts import COUNTERS
from cdcwire.spark.writer.verify import compare
from cdcwire.sinks.sink import open_sink

from spark_cases import workload_file

SMALL_MESSAGES = "protocol=open-protocol&partition-num=2&max-message-bytes=65536&max-batch-size=16"


def _big_row(text_bytes: int, commit_ts: int = 470628591216885860, key: int = 987654) -> str:
    """An insert into shop.orders whose c_varchar holds ``text_bytes`` bytes (one line of event JSON)."""
    return json.dumps({
        "type": "row", "commit_ts": commit_ts, "schema": "shop", "table": "orders", "pre_columns": None,
        "columns": [
            {"name": "id", "type": "INT", "flags": 10, "value": key, "mysql_type": "int(11)"},
            {"name": "c_varchar", "type": "VARCHAR", "flags": 64, "value": "x" * text_bytes,
             "mysql_type": "varchar(255)"},
        ],
    })


def _with_big_row(tmp_path: Path, text_bytes: int, at_line: int = 150, events: int = 300) -> tuple[str, str]:
    """A workload file with one big row inserted at ``at_line``, and the same workload without it."""
    clean = workload_file(tmp_path, events=events, seed=4)
    lines = open(clean, encoding="utf-8").read().splitlines()
    lines.insert(at_line - 1, _big_row(text_bytes))
    path = tmp_path / f"with-big-row-{text_bytes}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path), clean


def _files_under(directory: Path) -> list[str]:
    if not directory.exists():
        return []
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


def _messages_under(uri: str) -> int:
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    return sum(1 for t in reader.topics() for p in reader.partitions(t) for _ in reader.read(t, p))


# --- the encoder's refusals, without Spark ------------------------------------------------------


def test_a_refused_event_is_set_aside_and_every_other_event_is_carried_once_in_order():
    config = parse_sink_uri(f"file:///tmp/unused/t?{SMALL_MESSAGES}")
    events = list(read_jsonl([_big_row(10, commit_ts=400 + i, key=i) for i in range(40)]))
    events[25] = next(read_jsonl([_big_row(100_000, commit_ts=425, key=25)]))
    refused: list[int] = []

    def refuse(seq, event, exc) -> None:
        refused.append(seq)

    payloads = list(encode_refusing(config, "t", 0, enumerate(events), refuse))
    assert refused == [25]
    assert sum(p.events for p in payloads) == 39
    decoded = cdcwire.decode(config, [Message("t", 0, p.key, p.value) for p in payloads])
    assert [e.commit_ts for e in decoded] == [400 + i for i in range(40) if i != 25]


def test_the_events_around_a_refused_one_stay_batched():
    config = parse_sink_uri(f"file:///tmp/unused/t?{SMALL_MESSAGES}")  # max-batch-size=16
    events = list(read_jsonl([_big_row(10, commit_ts=400 + i, key=i) for i in range(40)]))
    events[20] = next(read_jsonl([_big_row(100_000, commit_ts=420, key=20)]))
    payloads = list(encode_refusing(config, "t", 0, enumerate(events), lambda seq, event, exc: None))
    assert [p.events for p in payloads] == [16, 16, 7]


def test_without_a_refuser_the_encoders_error_propagates():
    config = parse_sink_uri(f"file:///tmp/unused/t?{SMALL_MESSAGES}")
    events = list(read_jsonl([_big_row(10), _big_row(100_000)]))
    with pytest.raises(EncodeError, match="max-message-bytes"):
        list(encode_refusing(config, "t", 0, enumerate(events), None))


def test_an_event_refused_in_two_partitions_counts_once_and_the_summary_reconciles():
    def row(topic, partition, fed, encoded, refused=None, **routing):
        counts = {name: routing.get(name, 0) for name in COUNTERS}
        return {"topic": topic, "partition": partition, "events": fed, "encoded": encoded,
                "messages": encoded, "bytes": 0, **counts, "receipt": None, "refused_rows": refused}

    rows = [  # one resolved event (input row 9) broadcast to two partitions, refused in both
        row("t", 0, fed=5, encoded=4), row("t", 1, fed=5, encoded=4),
        row(None, None, 0, 0, refused=[9]),
        row(None, None, 0, 0, refused=[9], events_in=9, routed=9, copies=10),
    ]
    summary = WriteSummary.from_results("file:///out/t", rows, seconds=1.0)
    assert (summary.events_encoded, summary.events_dead_lettered, summary.copies_dead_lettered) == (8, 1, 2)
    assert summary.reconciles, summary.report()


# --- cs.write --------------------------------------------------------------------------------


def test_a_write_failing_in_one_task_publishes_nothing_and_its_retry_writes_each_event_once(
    spark, tmp_path
):
    with_big, clean = _with_big_row(tmp_path, 100_000)
    uri = f"file://{tmp_path}/out/t?{SMALL_MESSAGES}"
    with pytest.raises(CdcwireError, match="max-message-bytes") as failure:
        cs.write(cs.read_events(spark, with_big), uri)
    assert "nothing was published" in " ".join(getattr(failure.value, "__notes__", []))
    assert _messages_under(uri) == 0
    events = cs.read_events(spark, clean)
    summary = cs.write(events, uri)
    assert summary.reconciles and summary.messages == _messages_under(uri)
    result = compare(events, cs.read(spark, uri), uri)
    assert result.equal and not result.duplicates, result


def test_with_a_dead_letter_directory_a_row_the_encoder_refuses_is_dead_lettered_and_the_rest_written(
    spark, tmp_path
):
    with_big, clean = _with_big_row(tmp_path, 100_000)
    uri = f"file://{tmp_path}/out/t?{SMALL_MESSAGES}"
    dead = tmp_path / "dead"
    summary = cs.write(cs.read_events(spark, with_big), uri, dead_letter=str(dead))
    assert (summary.events_in, summary.events_dead_lettered) == (301, 1)
    assert summary.reconciles, summary.report()
    (record,) = list(cs.read_dead_letters(dead))
    assert "max-message-bytes" in record["reason"] and "shop.orders@" in record["source"]
    assert len(json.loads(record["record"])["columns"][1]["value"]) == 100_000
    result = compare(cs.read_events(spark, clean), cs.read(spark, uri), uri)
    assert result.equal, result


def test_a_write_with_overwrite_twice_leaves_the_events_once(spark, tmp_path):
    events = cs.read_events(spark, workload_file(tmp_path, events=200, seed=9))
    uri = f"file://{tmp_path}/again/t?protocol=open-protocol&partition-num=2"
    for _ in range(2):
        cs.write(events, uri, overwrite=True)
    result = compare(events, cs.read(spark, uri), uri)
    assert result.equal and not result.duplicates, result


def test_a_file_write_summary_says_it_was_all_or_nothing(spark, tmp_path):
    events = cs.read_events(spark, workload_file(tmp_path, events=100))
    summary = cs.write(events, f"file://{tmp_path}/o/t?protocol=open-protocol")
    assert summary.all_or_nothing
    assert "delivery: all or nothing" in summary.report()


def test_a_kafka_write_summary_says_delivery_is_at_least_once(spark, tmp_path, kafka_broker, kafka_topic):
    events = cs.read_events(spark, workload_file(tmp_path, events=100))
    summary = cs.write(events, kafka_broker.uri(kafka_topic))
    assert not summary.all_or_nothing
    report = summary.report()
    assert "delivery: at least once" in report and "retried write sends them again" in report


# --- the data source ---------------------------------------------------------------------------


def test_data_source_overwrite_twice_leaves_the_events_once(spark, tmp_path):
    events = cs.read_events(spark, workload_file(tmp_path, events=300, seed=6))
    uri = f"file://{tmp_path}/ds/t?protocol=open-protocol&partition-num=2"
    laid, _ = cs.prepare(events, uri)
    for _ in range(2):
        laid.write.format("cdcwire").option("sink-uri", uri).mode("overwrite").save()
    result = compare(events, spark.read.format("cdcwire").option("source-uri", uri).load(), uri)
    assert result.equal and not result.duplicates, result


def test_data_source_overwrite_to_kafka_is_refused_pointing_at_append(spark, tmp_path):
    events = cs.read_events(spark, workload_file(tmp_path, events=50))
    uri = "kafka://127.0.0.1:9/t?protocol=craft"  # nothing listens: refused before any connection
    writer = events.coalesce(1).write.format("cdcwire").option("sink-uri", uri)
    with pytest.raises(Exception, match=r"kafka:// cannot overwrite.*mode\('append'\)"):
        writer.mode("overwrite").save()


def test_data_source_write_with_a_topic_partition_fed_by_two_input_partitions_publishes_nothing(
    spark, tmp_path
):
    events = cs.read_events(spark, workload_file(tmp_path, events=300, seed=6))
    uri = f"file://{tmp_path}/shared/t?protocol=open-protocol&partition-num=2"
    with pytest.raises(Exception, match="refused to publish"):
        events.repartition(3).write.format("cdcwire").option("sink-uri", uri).mode("append").save()
    assert _messages_under(uri) == 0


def test_kafka_data_source_refuses_a_second_input_partition_before_it_writes(
    spark, tmp_path, kafka_broker, kafka_topic
):
    events = cs.read_events(spark, workload_file(tmp_path, events=300, seed=6))
    uri = kafka_broker.uri(kafka_topic, partition_num=2)
    refused = r"fed from more than one input partition \(this task reads input partition [12]\)"
    with pytest.raises(Exception, match=refused):
        events.repartition(3).write.format("cdcwire").option("sink-uri", uri).mode("append").save()


# --- cdcwire run ---------------------------------------------------------------------------------


def test_run_with_dead_letter_sets_a_12mb_row_aside_and_writes_the_rest(spark, tmp_path, capsys):
    with_big, clean = _with_big_row(tmp_path, 12 * 1024 * 1024)
    uri = f"file://{tmp_path}/o/t?protocol=open-protocol&partition-num=2"
    dead = tmp_path / "dead"
    code = main(["run", "--input", with_big, "--sink-uri", uri, "--dead-letter", str(dead)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "events in: 301" in out and "dead-lettered: 1" in out and "(reconciled)" in out
    (record,) = list(cs.read_dead_letters(dead))
    assert "MessageTooLarge" in record["reason"] or "max-message-bytes" in record["reason"]
    result = compare(cs.read_events(spark, clean), cs.read(spark, uri), uri)
    assert result.equal, result


def test_run_without_dead_letter_fails_on_a_12mb_row_in_one_line_and_publishes_nothing(
    spark, tmp_path, capsys
):
    with_big, _ = _with_big_row(tmp_path, 12 * 1024 * 1024)
    out_dir = tmp_path / "o"
    code = main(["run", "--input", with_big, "--sink-uri", f"file://{out_dir}/t?protocol=open-protocol"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "max-message-bytes" in err and "nothing was published" in err
    assert not [name for name in _files_under(out_dir) if name.endswith(".cdcwire")]
