from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, ResolvedEvent, RowChangedEvent, to_json
from cdcwire.cli import main

PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


@pytest.fixture
def events_file(tmp_path):
    events = [RowChangedEvent(i, "test", "t1", (Column("id", ColumnType.INT, PK, i),)) for i in range(1, 7)]
    events.append(ResolvedEvent(10))
    path = tmp_path / "events.jsonl"
    path.write_text("".join(to_json(e) + "\n" for e in events))
    return path, events


def test_protocols_lists_each_protocol_with_its_distribution_and_version(capsys):
    assert main(["protocols"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["protocol", "aliases", "distribution", "version"]
    assert out[1].split() == ["echo-json", "echo", "cdcwire-echo-test", "1.0"]


def test_plugins_lists_what_each_distribution_registered(capsys):
    assert main(["plugins"]) == 0
    out = capsys.readouterr().out
    assert "cdcwire-echo-test 1.0 (echo-json): echo-json" in out
    assert "file://, kafka://" in out


def test_encode_prints_events_messages_and_bytes_per_partition(tmp_path, events_file, capsys):
    path, events = events_file
    uri = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=2&partition=index-value"
    assert main(["encode", "--sink-uri", uri, str(path)]) == 0
    out = capsys.readouterr().out
    assert "events in: 7  messages: 8" in out  # 6 rows + the resolved event in both partitions
    rows = [line.split() for line in out.splitlines() if line.startswith("orders")]
    assert [r[1] for r in rows] == ["0", "1"]
    assert sum(int(r[2]) for r in rows) == 8


def test_inspect_prints_one_decoded_event_per_line(tmp_path, events_file, capsys):
    path, events = events_file
    uri = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=1"
    main(["encode", "--sink-uri", uri, str(path)])
    capsys.readouterr()
    assert main(["inspect", "--raw", uri]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(d["partition"], d["offset"]) for d in lines] == [(0, i) for i in range(7)]
    assert [d.get("commit_ts", d.get("ts")) for d in lines] == [1, 2, 3, 4, 5, 6, 10]


def test_inspect_prints_event_json_lines_that_encode_reads_back(tmp_path, events_file, capsys):
    path, events = events_file
    uri = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=2"
    main(["encode", "--sink-uri", uri, str(path)])
    capsys.readouterr()
    assert main(["inspect", uri]) == 0
    printed = tmp_path / "inspected.jsonl"
    printed.write_text(capsys.readouterr().out)
    back = list(cdcwire.read_jsonl(open(printed, encoding="utf-8")))
    assert sorted(back, key=repr) == sorted(events, key=repr)  # the resolved event once, not per partition
    again = f"file://{tmp_path}/again/orders?protocol=echo-json&partition-num=2"
    assert main(["encode", "--sink-uri", again, str(printed)]) == 0


@pytest.fixture
def topic_rule_sink(tmp_path, events_file, capsys) -> tuple[str, list]:
    """A sink whose events a topic rule spread over topics (t_{table}, and the URI's for broadcasts)."""
    path, events = events_file
    base = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=1"
    main(["encode", "--sink-uri", base + "&topic-rule=t_{table}", str(path)])
    capsys.readouterr()
    return base, events


def test_inspect_reads_a_list_of_topics_or_every_topic(topic_rule_sink, capsys):
    base, events = topic_rule_sink
    assert main(["inspect", base, "--topics", "*"]) == 0
    every = capsys.readouterr().out.splitlines()
    assert len(every) == len(events)
    assert main(["inspect", base, "--topics", "orders,nothing-here"]) == 2  # a missing topic is an error


def test_inspect_reads_the_topics_a_pattern_matches(topic_rule_sink, capsys):
    base, events = topic_rule_sink
    assert main(["inspect", base, "--topics", "t_*"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(events)
    assert main(["inspect", base, "--topics", "x_*"]) == 2
    assert "no topic matches 'x_*'; the source holds orders, t_t1" in capsys.readouterr().err


def test_inspect_keeps_the_tables_a_filter_matches(tmp_path, events_file, capsys):
    path, events = events_file
    base = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=1"
    main(["encode", "--sink-uri", base, str(path)])
    capsys.readouterr()
    assert main(["inspect", base, "--tables", "nothing.here"]) == 0
    kinds = {json.loads(line)["type"] for line in capsys.readouterr().out.splitlines()}
    assert kinds == {"resolved"}


def test_inspect_can_skip_an_undecodable_message_and_count_it(tmp_path, events_file, capsys, caplog):
    path, events = events_file
    base = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=1"
    main(["encode", "--sink-uri", base, str(path)])
    cdcwire.write(base, [cdcwire.Message("orders", 0, None, b"not an event")])
    capsys.readouterr()
    assert main(["inspect", base]) == 2
    capsys.readouterr()
    assert main(["inspect", base, "--skip-undecodable"]) == 0
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == len(events)
    assert "skipped 1 undecodable message(s)" in err
    assert "skipped an undecodable message: orders/0/" in caplog.text  # logged with its place as it goes


def test_a_bad_sink_uri_is_a_one_line_error_and_exit_code_2(events_file, capsys):
    path, _ = events_file
    assert main(["encode", "--sink-uri", "file:///tmp/x/t?protocol=echo-json&max-batch-size=0", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cdcwire encode: error: parameter 'max-batch-size' must be >= 1")


def test_a_malformed_input_line_is_reported_with_its_number(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"resolved","ts":1}\n{"type":"resolved"}\n')
    assert main(["encode", "--sink-uri", f"file://{tmp_path}/o/t?protocol=echo-json", str(bad)]) == 2
    assert "line 2, field 'ts': is missing" in capsys.readouterr().err


def test_parameters_lists_shared_transport_and_codec_parameters(capsys):
    assert main(["parameters"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:]}
    assert "all sinks" in rows["partition-num"]
    assert "kafka://" in rows["sasl-password"]
    assert "protocol" in rows and "required" in rows["protocol"]


def test_parameters_markdown_marks_secrets(capsys):
    assert main(["parameters", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("| parameter | applies to | values | default | meaning |")
    assert "| `sasl-password` | kafka:// | str | none | SASL password (secret: never printed) |" in out


def test_encode_into_an_existing_file_topic_keeps_its_partition_count(tmp_path, events_file, capsys):
    path, _ = events_file
    first = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=5&partition=index-value"
    assert main(["encode", "--sink-uri", first, str(path)]) == 0
    again = f"file://{tmp_path}/out/orders?protocol=echo-json&partition=index-value"  # no partition-num
    capsys.readouterr()
    assert main(["encode", "--sink-uri", again, str(path)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[3:]]
    assert {int(r[1]) for r in rows} <= set(range(5)) and max(int(r[1]) for r in rows) >= 3


def test_encode_of_a_missing_file_is_one_line_naming_it_and_what_to_do(tmp_path, capsys):
    missing = tmp_path / "none.jsonl"
    assert main(["encode", "--sink-uri", f"file://{tmp_path}/o/t?protocol=echo-json", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == f"cdcwire encode: error: {missing}: no such file or directory: check the path\n"
    assert not (tmp_path / "o").exists()


def test_generate_into_a_missing_directory_is_one_line_naming_it(tmp_path, capsys):
    out = tmp_path / "no-such-dir" / "w.jsonl"
    assert main(["generate", "--events", "3", "--out", str(out)]) == 2
    assert capsys.readouterr().err == f"cdcwire generate: error: {out}: no such file or directory: check the path\n"


def test_run_with_a_missing_input_fails_before_spark_and_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "typo.jsonl"
    code = main(["run", "--input", str(missing), "--sink-uri", f"file://{tmp_path}/o/t?protocol=echo-json"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1
    assert f"--input {missing}: no such file or directory" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["run", "materialize", "demo"])
def test_every_spark_command_takes_master_driver_memory_and_repeated_conf(command):
    from cdcwire.cli import build_parser

    given = {"run": ["--input", "in.jsonl", "--sink-uri", "file:///tmp/o/t?protocol=echo-json"],
             "materialize": ["file:///tmp/s/t?protocol=echo-json", "--out", "/tmp/m"], "demo": []}[command]
    args = build_parser().parse_args([command, *given, "--master", "local[1]", "--driver-memory", "2g",
                                      "--conf", "spark.sql.shuffle.partitions=8", "--conf", "a.b=x=y"])
    assert (args.master, args.driver_memory) == ("local[1]", "2g")
    assert args.conf == [("spark.sql.shuffle.partitions", "8"), ("a.b", "x=y")]


def test_a_conf_without_a_value_is_a_one_line_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        main(["demo", "--conf", "spark.driver.memory"])
    assert done.value.code == 2
    assert "argument --conf: 'spark.driver.memory' is not KEY=VALUE" in capsys.readouterr().err


def test_encode_names_the_line_that_is_not_utf8(tmp_path, capsys):
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"type":"resolved","ts":1}\n{"type":"r\xe9solved","ts":2}\n')
    assert main(["encode", "--sink-uri", f"file://{tmp_path}/o/t?protocol=echo-json", str(path)]) == 2
    assert "line 2: not UTF-8 text" in capsys.readouterr().err


def test_a_reader_that_closes_the_pipe_early_ends_the_command_quietly(monkeypatch, capsys):
    """``cdcwire protocols | head -1``: the reader has what it wanted; no "Broken pipe" error."""
    import io
    import os

    read_end, write_end = os.pipe()
    os.close(read_end)
    closed_pipe = io.open(write_end, "w", buffering=1)
    monkeypatch.setattr("sys.stdout", closed_pipe)
    code = main(["protocols"])
    monkeypatch.undo()
    closed_pipe.close()  # what was left buffered goes nowhere, without a second error
    assert code == 0
    assert "Broken pipe" not in capsys.readouterr().err


def test_every_command_is_in_the_help():
    from cdcwire.cli import COMMANDS, build_parser

    text = build_parser().format_help()
    names = [module.__name__.rsplit(".", 1)[1].removesuffix("_command") for module in COMMANDS]
    assert names == [
        "protocols", "plugins", "parameters", "encode", "inspect", "follow", "generate", "run", "materialize", "demo",
    ]
    assert all(name in text for name in names)


def run_without(module: str, code: str) -> "subprocess.CompletedProcess[str]":
    """Run ``code`` in a fresh interpreter where ``module`` cannot be imported (as if its extra
    were not installed: ``sys.modules[name] = None`` makes Python refuse the import)."""
    import subprocess
    import sys

    prelude = f"import sys; sys.modules[{module!r}] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True)


def test_a_kafka_uri_without_the_kafka_extra_says_what_to_install():
    done = run_without(
        "confluent_kafka",
        "import cdcwire\n"
        "try:\n"
        "    cdcwire.write('kafka://127.0.0.1:9/t?protocol=open-protocol', [])\n"
        "except cdcwire.CdcwireError as exc:\n"
        "    print(exc)\n",
    )
    assert done.returncode == 0, done.stderr
    assert "pip install 'cdcwire[kafka]'" in done.stdout and "Traceback" not in done.stderr


def test_cdcwire_run_without_the_spark_extra_is_a_one_line_error():
    done = run_without(
        "pyspark",
        "from cdcwire.cli import main\n"
        "uri = 'file:///tmp/x/t?protocol=open-protocol'\n"
        "raise SystemExit(main(['run', '--input', 'in.jsonl', '--sink-uri', uri]))\n",
    )
    assert done.returncode == 2
    assert "pip install 'cdcwire[spark]'" in done.stderr and "Traceback" not in done.stderr


def test_version_prints_the_installed_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("cdcwire ")


def test_protocols_names_the_plugin_filter_that_let_none_load(monkeypatch, capsys):
    from cdcwire.contract.registry import PluginInfo, Registry
    from cdcwire.transports import builtin

    empty = Registry()
    empty.add_plugin(builtin, PluginInfo("builtin", "cdcwire", "test"))
    monkeypatch.setattr("cdcwire.sinks.installed._REGISTRY", empty)
    monkeypatch.setenv("CDCWIRE_PLUGINS", "nope")
    assert main(["protocols"]) == 1
    assert "CDCWIRE_PLUGINS='nope'" in capsys.readouterr().out


# --- one spelling per idea --------------------------------------------------------------------

READING_COMMANDS = ("inspect", "follow", "materialize", "run")


def command_help(name: str) -> str:
    from cdcwire.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices[name].format_help()


@pytest.mark.parametrize("name", READING_COMMANDS)
def test_every_reading_command_spells_topics_and_skip_damaged_the_same_way(name):
    text = command_help(name)
    assert "--topics TOPICS" in text
    assert "--skip-damaged" in text
    assert "--topic " not in text and "--topic\n" not in text  # the older spelling works but is not shown


@pytest.mark.parametrize("name", ["inspect", "follow", "materialize"])
def test_every_command_that_takes_a_source_uri_names_it_source_uri(name):
    usage = command_help(name).split("\n\n")[0]
    assert usage.rstrip().endswith("SOURCE_URI")
    assert "source_uri" not in command_help(name) and " uri\n" not in command_help(name)


def test_every_command_that_takes_a_time_names_the_three_forms():
    text = " ".join(command_help("follow").split())
    assert "--until TIME" in text and "[--from beginning|end|OFFSET|TIME]" in text
    assert text.count("'@' and milliseconds since the epoch") == 2
    assert text.count("ISO-8601") == 2


def test_the_older_topic_spelling_still_works(topic_rule_sink, capsys):
    base, events = topic_rule_sink
    assert main(["inspect", base, "--topic", "*"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(events)


# --- --skip-damaged, the flag of the URI parameter -----------------------------------------------


@pytest.fixture
def damaged_sink(tmp_path, events_file, capsys) -> str:
    """A one-partition file:// sink whose last record fails its CRC check."""
    path, _ = events_file
    base = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=1"
    main(["encode", "--sink-uri", base, str(path)])
    part = tmp_path / "out" / "orders" / "0.cdcwire"
    data = bytearray(part.read_bytes())
    data[-2] ^= 0x01
    part.write_bytes(bytes(data))
    capsys.readouterr()
    return base


def test_inspect_stops_at_a_damaged_record_and_says_how_to_skip_it(damaged_sink, capsys):
    assert main(["inspect", damaged_sink]) == 2
    assert "skip-damaged=true" in capsys.readouterr().err


def test_the_skip_damaged_flag_reads_past_a_damaged_record_as_the_uri_parameter_does(damaged_sink, capsys):
    assert main(["inspect", damaged_sink + "&skip-damaged=true"]) == 0
    by_parameter = capsys.readouterr().out
    assert main(["inspect", "--skip-damaged", damaged_sink]) == 0
    by_flag = capsys.readouterr().out
    assert by_flag == by_parameter
    assert len(by_flag.splitlines()) == 6  # the damaged last record (the resolved event) is skipped


def test_the_skip_damaged_flag_and_skip_damaged_false_in_the_uri_are_refused_together(damaged_sink, capsys):
    assert main(["inspect", "--skip-damaged", damaged_sink + "&skip-damaged=false"]) == 2
    assert capsys.readouterr().err == (
        "cdcwire inspect: error: --skip-damaged and the URI's skip-damaged=false disagree: drop one\n"
    )


def test_the_skip_damaged_flag_is_refused_for_a_kafka_source(capsys):
    assert main(["inspect", "--skip-damaged", "kafka://127.0.0.1:9/orders?protocol=echo-json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("cdcwire inspect: error: --skip-damaged reads file:// sources")
    assert len(err.splitlines()) == 1


# --- inspect: an offset range, a listing ----------------------------------------------------------


@pytest.fixture
def one_partition(tmp_path, events_file, capsys) -> str:
    """Seven messages at offsets 0..6 of orders/0: rows 1..6, then the resolved event 10."""
    path, _ = events_file
    base = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=1"
    main(["encode", "--sink-uri", base, str(path)])
    capsys.readouterr()
    return base


def raw_offsets(capsys) -> list[int]:
    return [json.loads(line)["offset"] for line in capsys.readouterr().out.splitlines()]


def test_inspect_from_and_to_read_an_offset_range(one_partition, capsys):
    assert main(["inspect", "--raw", "--from", "2", "--to", "5", one_partition]) == 0
    assert raw_offsets(capsys) == [2, 3, 4]


def test_inspect_from_minus_n_reads_the_last_n_messages(one_partition, capsys):
    assert main(["inspect", "--raw", "--from", "-2", one_partition]) == 0
    assert raw_offsets(capsys) == [5, 6]


def test_inspect_from_end_reads_nothing(one_partition, capsys):
    assert main(["inspect", "--from", "end", one_partition]) == 0
    assert capsys.readouterr().out == ""


def test_inspect_from_a_time_is_refused_and_says_what_reads_from_a_time(one_partition, capsys):
    assert main(["inspect", "--from", "2024-05-01T12:00:00Z", one_partition]) == 2
    err = capsys.readouterr().err
    assert "inspect --from takes an offset" in err and "cdcwire follow --from 2024-05-01T12:00:00Z" in err


def test_inspect_raw_from_a_file_source_has_no_kafka_timestamp_or_headers(one_partition, capsys):
    assert main(["inspect", "--raw", one_partition]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert "timestamp" not in first and "headers" not in first


def test_inspect_list_prints_topics_partitions_watermarks_and_the_protocol_guess(tmp_path, events_file, capsys):
    path, _ = events_file
    base = f"file://{tmp_path}/out/orders?protocol=echo-json&partition-num=2&partition=index-value"
    main(["encode", "--sink-uri", base, str(path)])
    cdcwire.write(f"file://{tmp_path}/out/junk?protocol=echo-json&partition-num=1",
                  [cdcwire.Message("junk", 0, None, b"not an event")])
    capsys.readouterr()
    assert main(["inspect", "--list", f"file://{tmp_path}/out/orders"]) == 0  # no protocol needed
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"source file://{tmp_path}/out/orders: 2 topic(s)"
    assert lines[1] == "  topic 'junk' with 1 partition(s):"
    assert lines[2] == "    partition 0: low 0, high 1, messages 1, protocol none of the installed"
    assert lines[3] == "  topic 'orders' with 2 partition(s):"
    assert [line.split(", protocol ")[1] for line in lines[4:]] == ["echo-json", "echo-json"]
    highs = [int(line.split("high ")[1].split(",")[0]) for line in lines[4:]]
    assert sum(highs) == 8  # 6 rows + the resolved event in both partitions


def test_the_skip_damaged_flag_on_run_needs_a_source_uri_as_input(tmp_path, events_file, capsys):
    path, _ = events_file
    sink = f"file://{tmp_path}/out/orders?protocol=echo-json"
    assert main(["run", "--input", str(path), "--sink-uri", sink, "--skip-damaged"]) == 2
    assert capsys.readouterr().err.startswith(
        f"cdcwire run: error: --skip-damaged reads file:// sources (only their records can be damaged); '{path}'"
    )


def test_a_uri_argument_is_read_from_an_environment_variable(tmp_path, events_file, capsys, monkeypatch):
    path, events = events_file
    monkeypatch.setenv("CDCWIRE_SINK", f"file://{tmp_path}/out/orders?protocol=echo-json")
    assert main(["encode", "--sink-uri", "env:CDCWIRE_SINK", str(path)]) == 0
    capsys.readouterr()
    assert main(["inspect", "env:CDCWIRE_SINK"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(events)


def test_a_uri_argument_is_read_from_a_file(tmp_path, events_file, capsys):
    path, events = events_file
    uri_file = tmp_path / "sink.uri"
    uri_file.write_text(f"file://{tmp_path}/out/orders?protocol=echo-json\n")
    assert main(["encode", "--sink-uri", f"@{uri_file}", str(path)]) == 0
    capsys.readouterr()
    assert main(["inspect", f"@{uri_file}"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(events)


@pytest.mark.parametrize("given, says", [
    ("env:CDCWIRE_NOT_SET", "environment variable 'CDCWIRE_NOT_SET' is not set"),
    ("@/nonexistent/sink.uri", "cannot read the URI from file '/nonexistent/sink.uri': No such file or directory"),
])
def test_a_uri_that_cannot_be_read_is_a_one_line_error_naming_where(given, says, capsys, monkeypatch):
    monkeypatch.delenv("CDCWIRE_NOT_SET", raising=False)
    with pytest.raises(SystemExit) as info:
        main(["inspect", given])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument SOURCE_URI: {says}" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["encode", "x.jsonl", "--sink-uri"], ["inspect"], ["follow"], ["run", "--input", "x", "--sink-uri"], ["materialize", "--out", "d"]])
def test_every_uri_argument_takes_env_and_file_forms(command, capsys, monkeypatch):
    monkeypatch.delenv("CDCWIRE_NOT_SET", raising=False)
    with pytest.raises(SystemExit):
        main([*command, "env:CDCWIRE_NOT_SET"])
    assert "environment variable 'CDCWIRE_NOT_SET' is not set" in capsys.readouterr().err


def test_the_spark_flags_in_every_spark_commands_help_are_the_readmes():
    from pathlib import Path

    from cdcwire.cli import build_parser

    readme = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    for command in ("run", "materialize", "demo"):
        text = sub.choices[command].format_help()
        for flag in ("--master", "--driver-memory SIZE", "--conf KEY=VALUE", "--verbose", "--quiet"):
            assert flag in text and f"`{flag}" in readme, (command, flag)
    assert "--driver-memory" in readme[readme.index("A job out of memory"):][:300]
