"""``cdcwire encode`` and ``cdcwire.write`` to ``file://`` are all or nothing per call: a call that
fails part way leaves nothing, so its retry writes each message once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import cdcwire
from cdcwire.cli import main
from cdcwire.model.event_json import to_json
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.workload import Workload
from cdcwire.sinks.sink import open_sink

URI_QUERY = "protocol=open-protocol&partition-num=2&max-message-bytes=65536"


def _big_row() -> str:
    """An insert whose message cannot fit in 64 KiB."""
    return json.dumps({
        "type": "row", "commit_ts": 470628591216885860, "schema": "shop", "table": "orders",
        "pre_columns": None,
        "columns": [
            {"name": "id", "type": "INT", "flags": 10, "value": 424242, "mysql_type": "int(11)"},
            {"name": "c_varchar", "type": "VARCHAR", "flags": 64, "value": "x" * 100_000,
             "mysql_type": "varchar(255)"},
        ],
    })


def _messages(uri: str) -> list[tuple[str, int, bytes, bytes]]:
    config = parse_sink_uri(uri)
    reader = open_sink(config).transport.reader(config)
    return [
        (m.topic, m.partition, m.key, m.value)
        for topic in reader.topics()
        for partition in reader.partitions(topic)
        for m in reader.read(topic, partition)
    ]


def test_an_encode_failing_at_event_31_leaves_nothing_and_its_retry_writes_each_message_once(
    tmp_path, capsys
):
    events = list(Workload(80, seed=3))
    lines = [to_json(e) for e in events]
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:30] + [_big_row()] + lines[30:]) + "\n", encoding="utf-8")
    uri = f"file://{tmp_path}/out/t?{URI_QUERY}"

    assert main(["encode", "--sink-uri", uri, str(bad)]) == 2
    assert "max-message-bytes" in capsys.readouterr().err
    assert _messages(uri) == []

    assert main(["encode", "--sink-uri", uri, str(good)]) == 0
    expected = [(m.topic, m.partition, m.key, m.value) for m in cdcwire.encode(uri, events)]
    assert sorted(_messages(uri)) == sorted(expected)


def test_a_write_whose_messages_fail_part_way_publishes_none_of_them(tmp_path):
    uri = f"file://{tmp_path}/out/t?{URI_QUERY}"
    messages = cdcwire.encode(uri, Workload(80, seed=3))

    def failing_at_31():
        yield from messages[:30]
        raise RuntimeError("the producer of message 31 failed")

    with pytest.raises(RuntimeError, match="message 31"):
        cdcwire.write(uri, failing_at_31())
    assert _messages(uri) == []
    assert cdcwire.write(uri, messages) == len(messages)
    assert len(_messages(uri)) == len(messages)


def test_nothing_of_a_failed_encode_is_left_in_the_sink_directory(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    lines = [to_json(e) for e in Workload(40, seed=3)] + [_big_row()]
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert main(["encode", "--sink-uri", f"file://{out}/t?{URI_QUERY}", str(bad)]) == 2
    files = [p.relative_to(out) for p in Path(out).rglob("*") if p.is_file()]
    visible = [f for f in files if not any(part.startswith(".") for part in f.parts)]
    assert visible == []
