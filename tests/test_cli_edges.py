"""The CLI's edges as a user meets them: a topic that is not there, a path where a URI belongs, a
misspelt protocol, and what ``--placed`` (once ``--raw``) gives. Each runs the command as typed."""

from __future__ import annotations

import json

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, RowChangedEvent
from cdcwire.cli import main

ROW = RowChangedEvent(
    commit_ts=415508878783938562, schema="app", table="t",
    columns=(Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1), Column("v", T.VARCHAR, F.NULLABLE, "a")),
)


def written(tmp_path, topic: str = "orders") -> str:
    uri = f"file://{tmp_path}/{topic}?protocol=open-protocol"
    cdcwire.write(uri, cdcwire.encode(uri, [ROW]))
    return uri


def test_follow_to_the_end_of_a_file_topic_that_does_not_exist_is_an_error(tmp_path, capsys):
    written(tmp_path)
    assert main(["follow", "-e", f"file://{tmp_path}/ordres?protocol=open-protocol"]) == 2
    err = capsys.readouterr().err
    assert "error: topic 'ordres' does not exist" in err and "check the name" in err


def test_follow_to_the_end_of_a_kafka_topic_that_does_not_exist_is_an_error(kafka_broker, kafka_topic, capsys):
    assert main(["follow", "-e", kafka_broker.uri(kafka_topic)]) == 2
    err = capsys.readouterr().err
    assert f"error: topic {kafka_topic!r} does not exist" in err and "check the name" in err


def test_inspect_of_a_file_path_says_it_is_a_file_and_how_to_read_one(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "garbage.bin").write_bytes(b"\x00\x01")
    try:
        main(["inspect", "garbage.bin"])
    except SystemExit as exc:
        assert exc.code == 2
    err = capsys.readouterr().err
    assert "'garbage.bin' is a file, not a source URI" in err and "file:///DIR/TOPIC?protocol=NAME" in err
    assert "unknown protocol" not in err


def test_inspect_of_a_partition_file_gives_the_uri_that_reads_it(tmp_path, capsys):
    written(tmp_path)
    try:
        main(["inspect", str(tmp_path / "orders" / "0.cdcwire")])
    except SystemExit as exc:
        assert exc.code == 2
    assert f"read it as file://{tmp_path}/orders?protocol=NAME --partition 0" in capsys.readouterr().err


def test_a_misspelt_protocol_gets_a_did_you_mean(tmp_path, capsys):
    written(tmp_path)
    assert main(["inspect", f"file://{tmp_path}/orders?protocol=canal_json"]) == 2
    assert "unknown protocol 'canal_json'; did you mean 'canal-json'?" in capsys.readouterr().err


def test_inspect_placed_gives_each_decoded_event_with_its_place(tmp_path, capsys):
    uri = f"file://{tmp_path}/orders?protocol=open-protocol"
    [message] = cdcwire.encode(uri, [ROW])
    cdcwire.write(uri, [message])
    assert main(["inspect", "--placed", uri]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[0])
    assert (line["topic"], line["partition"], line["offset"]) == ("orders", message.partition, 0)
    assert cdcwire.from_json(json.dumps({k: v for k, v in line.items() if k not in ("topic", "partition", "offset")})) == ROW
