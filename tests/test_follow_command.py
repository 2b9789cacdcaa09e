"""``cdcwire follow`` and ``cdcwire.follow``: following a source while it is written.

The command runs as a subprocess against a real Kafka-protocol broker (fixtures/kafka_broker.py)
or a file:// directory, with a bounded writer thread in the test; it is stopped with SIGINT
or ends by itself (--count, --until).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Callable, Optional

import pytest

import cdcwire
from cdcwire.transports.data_loss import DataLossError
from cdcwire.sinks.sink import open_sink
from cdcwire import (
    Column, ColumnFlag as F, ColumnType as T, DDLEvent, DDLType, Event, Message, ResolvedEvent, RowChangedEvent,
    from_json, to_json,
)

POLL = "0.1"
TIMEOUT = 20.0


# --- events and what a follower must print ---------------------------------------------------


def row(ts: int, key: int, table: str = "t0") -> RowChangedEvent:
    return RowChangedEvent(
        commit_ts=ts, schema="app", table=table,
        columns=(Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, key), Column("v", T.VARCHAR, F.NULLABLE, f"v{key}")),
    )


def resolved_of(b: int) -> int:
    return (b + 1) * 1000 + 999


def batch_rows(b: int, rows: int = 12) -> list[Event]:
    """Batch ``b``: rows of three tables with commit ts (b+1)*1000 + i; batch 0 starts with a DDL."""
    base = (b + 1) * 1000
    events: list[Event] = [row(base + i, b * 100 + i, f"t{i % 3}") for i in range(rows)]
    if b == 0:
        events.insert(0, DDLEvent(commit_ts=base - 1, schema="app", table="t0", query="create table t0(id int)",
                                  ddl_type=DDLType.CREATE_TABLE))
    return events


def batch(b: int, rows: int = 12) -> list[Event]:
    return batch_rows(b, rows) + [ResolvedEvent(resolved_of(b))]


def expected_lines(uri: str, events: list[Event]) -> list[str]:
    """What unordered following prints for ``events``: each decoded event, a broadcast one once."""
    out: list[str] = []
    seen: set[str] = set()
    for event in cdcwire.decode(uri, cdcwire.encode(uri, events)):
        text = to_json(event)
        if not isinstance(event, RowChangedEvent):
            if text in seen:
                continue
            seen.add(text)
        out.append(text)
    return out


def write(uri: str, events: list[Event]) -> None:
    cdcwire.write(uri, cdcwire.encode(uri, events))


@pytest.fixture
def kafka_send():
    """``send = kafka_send(uri)``; ``send(events)`` encodes and delivers them. One producer per URI
    for the whole test: a new producer's first delivery to a partition costs about a second here."""
    writers: dict[str, object] = {}

    def sender(uri: str) -> Callable[[list], None]:
        if uri not in writers:
            sink = open_sink(uri)
            writers[uri] = sink.needs_transport().writer(sink.config)
        w = writers[uri]

        def send(items: list) -> None:
            messages = items if items and isinstance(items[0], Message) else cdcwire.encode(uri, items)
            w.write_all(messages)
            w.flush()

        return send

    yield sender
    for w in writers.values():
        w.close()


def writer_thread(work: Callable[[], None]) -> threading.Thread:
    t = threading.Thread(target=work, daemon=True)
    t.start()
    return t


def kafka_uri(kafka_broker, topic: str, **params: object) -> str:
    params.setdefault("partition_num", 3)
    return kafka_broker.uri(topic, partition="index-value", **params)


def file_uri(tmp_path, topic: str = "orders", protocol: str = "open-protocol", **params: str) -> str:
    pairs = [f"{name.replace('_', '-')}={value}" for name, value in params.items()]
    query = "&".join([f"protocol={protocol}", "partition=index-value", *pairs])
    return f"file://{tmp_path}/{topic}?{query}"


# --- the command as a subprocess -------------------------------------------------------------


class Following:
    """``cdcwire follow ARGS`` running; its stdout lines and stderr collected as they come."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cdcwire", "follow", "--poll-interval", POLL, *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.lines: list[str] = []
        self._err: list[str] = []
        self.started = threading.Event()
        self._threads = [
            threading.Thread(target=self._collect, args=(self.proc.stdout, self.lines), daemon=True),
            threading.Thread(target=self._collect, args=(self.proc.stderr, self._err), daemon=True),
        ]
        for t in self._threads:
            t.start()

    def _collect(self, stream, into: list[str]) -> None:
        for line in stream:
            into.append(line.rstrip("\n"))
            if into is self._err and line.startswith("cdcwire follow: following"):
                self.started.set()

    @property
    def stderr(self) -> str:
        return "\n".join(self._err)

    def wait_started(self) -> None:
        assert self.started.wait(TIMEOUT), f"no start line; stderr: {self.stderr}"

    def wait_for_lines(self, n: int, timeout: float = TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while len(self.lines) < n:
            assert self.proc.poll() is None, f"exited {self.proc.returncode}: {self.stderr}"
            assert time.monotonic() < deadline, f"{len(self.lines)} of {n} lines; stderr: {self.stderr}"
            time.sleep(0.02)

    def interrupt(self) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.finish()

    def finish(self, timeout: float = TIMEOUT) -> int:
        code = self.proc.wait(timeout=timeout)
        for t in self._threads:
            t.join(timeout=5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=5)


@pytest.fixture
def following():
    started: list[Following] = []

    def start(*args: str) -> Following:
        f = Following(*args)
        started.append(f)
        return f

    yield start
    for f in started:
        f.kill()


def assert_clean_end(f: Following, code: int, expected_code: int = 0) -> None:
    assert code == expected_code, f.stderr
    assert "Traceback" not in f.stderr


# --- Kafka ------------------------------------------------------------------------------------


def test_every_event_written_while_following_is_printed_once_and_sigint_ends_it_cleanly(
    kafka_broker, kafka_topic, following, kafka_send
):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0))  # the topic exists before the follower looks for it
    f = following(uri)
    f.wait_started()
    writer = writer_thread(lambda: [(send(batch(b)), time.sleep(0.1)) for b in range(1, 5)])
    expected = expected_lines(uri, [e for b in range(5) for e in batch(b)])
    f.wait_for_lines(len(expected))
    writer.join(TIMEOUT)
    code = f.interrupt()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected)
    summary = f.stderr.splitlines()[-1]
    assert summary.startswith("cdcwire follow: stopped by SIGINT: ")
    assert f"{len(expected)} event(s)" in summary
    assert f"resolved ts reached: {resolved_of(4)}" in summary
    assert f"{kafka_topic}/0=" in summary and f"{kafka_topic}/2=" in summary


def test_count_ends_it_after_that_many_events(kafka_broker, kafka_topic, following, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0) + batch(1))
    f = following(uri, "--count", "7")
    code = f.finish()
    assert_clean_end(f, code)
    assert len(f.lines) == 7
    assert "--count reached: 7 event(s)" in f.stderr


def test_until_ends_it_once_every_partition_passed_the_ts(kafka_broker, kafka_topic, following, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0) + batch(1) + batch(2))
    f = following(uri, "--until", str(resolved_of(1)))
    code = f.finish()
    assert_clean_end(f, code)
    assert "--until reached" in f.stderr
    assert Counter(f.lines) == Counter(expected_lines(uri, batch(0) + batch(1)))


def test_from_end_prints_only_what_is_written_after_it_started(kafka_broker, kafka_topic, following, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0))
    f = following(uri, "--from", "end")
    f.wait_started()
    send(batch(1))
    expected = expected_lines(uri, batch(1))
    f.wait_for_lines(len(expected))
    code = f.interrupt()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected)


def test_from_an_offset_starts_every_partition_there(kafka_broker, kafka_topic, following, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic, partition_num=2, max_batch_size=1)
    send = kafka_send(uri)
    send(batch(0, rows=20))
    ends = {p: cdcwire.read(uri, [p]) for p in (0, 1)}
    held = {p: len(list(messages)) for p, messages in ends.items()}
    f = following(uri, "--from", "3", "--raw")  # --raw: every copy, with its place
    f.wait_for_lines(sum(n - 3 for n in held.values()))
    code = f.interrupt()
    assert_clean_end(f, code)
    places = [(d["partition"], d["offset"]) for d in map(json.loads, f.lines)]
    for p in (0, 1):
        assert sorted(o for q, o in places if q == p) == list(range(3, held[p]))


def test_from_a_timestamp_starts_at_the_first_message_written_since(
    kafka_broker, kafka_topic, following, kafka_send
):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0))
    time.sleep(0.05)
    since = int(time.time() * 1000)
    time.sleep(0.05)
    send(batch(1))
    expected = expected_lines(uri, batch(1))
    f = following(uri, "--from", f"@{since}", "--until", str(resolved_of(1)))
    code = f.finish()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected)


def test_a_group_resumes_where_it_left_off(kafka_broker, kafka_topic, following, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    group = f"{kafka_topic}-group"
    send(batch(0) + batch(1))
    first = following(uri, "--group", group, "--until", str(resolved_of(1)))
    assert_clean_end(first, first.finish())
    assert Counter(first.lines) == Counter(expected_lines(uri, batch(0) + batch(1)))
    send(batch(2))
    second = following(uri, "--group", group, "--until", str(resolved_of(2)))
    assert_clean_end(second, second.finish())
    assert Counter(second.lines) == Counter(expected_lines(uri, batch(2)))


def test_ordered_output_is_in_commit_ts_order_with_replays_and_broadcast_copies_once(
    kafka_broker, kafka_topic, following, kafka_send
):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0))

    def produce() -> None:
        for b in range(1, 4):
            rows = cdcwire.encode(uri, batch_rows(b))
            send(rows)
            if b == 2:
                send(rows)  # sent again before its resolved ts: new messages, so (at least once) they come out
            send([ResolvedEvent(resolved_of(b))])
            if b == 2:
                send(rows)  # and after it
            time.sleep(0.1)

    f = following(uri, "--ordered")
    f.wait_started()
    writer = writer_thread(produce)
    writer.join(TIMEOUT)
    changes = expected_lines(uri, [e for b in range(4) for e in batch_rows(b)] + batch_rows(2))
    deadline = time.monotonic() + TIMEOUT
    while not (f.lines and from_json(f.lines[-1]) == ResolvedEvent(resolved_of(3))):
        assert time.monotonic() < deadline, f.stderr
        time.sleep(0.02)
    code = f.interrupt()
    assert_clean_end(f, code)
    events = [from_json(line) for line in f.lines]
    stamps = [e.commit_ts for e in events]
    assert stamps == sorted(stamps)
    assert Counter(line for line, e in zip(f.lines, events) if not isinstance(e, ResolvedEvent)) == Counter(changes)
    resolved = [e.ts for e in events if isinstance(e, ResolvedEvent)]
    assert len(resolved) == len(set(resolved)) and resolved[-1] == resolved_of(3)
    assert "replay(s) or broadcast copies left out" in f.stderr


def test_an_ordered_group_resumes_without_repeating_what_it_released(kafka_broker, kafka_topic, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    group = f"{kafka_topic}-group"
    send(batch(0) + batch(1))
    with cdcwire.follow(uri, group=group, ordered=True, until=resolved_of(1), poll_interval=0.05) as first:
        taken = [e for e in first if not isinstance(e, ResolvedEvent)]
    assert len(taken) == len(batch_rows(0)) + len(batch_rows(1))
    send(batch_rows(1))  # a producer that restarted sends batch 1 again
    send(batch(2))
    with cdcwire.follow(uri, group=group, ordered=True, until=resolved_of(2), poll_interval=0.05) as second:
        again = [e for e in second if not isinstance(e, ResolvedEvent)]
    assert again == sorted(cdcwire.decode(uri, cdcwire.encode(uri, batch_rows(2))), key=lambda e: e.commit_ts)


def test_leaving_the_with_block_commits_what_was_taken(kafka_broker, kafka_topic, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic, partition_num=1, max_batch_size=1)
    send = kafka_send(uri)
    group = f"{kafka_topic}-group"
    send(batch_rows(0, rows=10))
    with cdcwire.follow(uri, group=group, poll_interval=0.05) as events:
        first = []
        for event in events:
            first.append(event)
            if len(first) == 4:
                break
    with cdcwire.follow(uri, group=group, count=7, poll_interval=0.05) as events:
        rest = list(events)
    assert first + rest == cdcwire.decode(uri, cdcwire.encode(uri, batch_rows(0, rows=10)))


def test_from_an_iso_8601_time_starts_at_the_first_message_written_since(
    kafka_broker, kafka_topic, following, kafka_send
):
    from datetime import datetime, timezone

    uri = kafka_uri(kafka_broker, kafka_topic)
    send = kafka_send(uri)
    send(batch(0))
    time.sleep(0.05)
    since = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    time.sleep(0.05)
    send(batch(1))
    f = following(uri, "--from", since, "--exit-at-end")
    code = f.finish()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected_lines(uri, batch(1)))


def test_exit_at_end_ends_it_once_every_kafka_partition_is_read(kafka_broker, kafka_topic, following, kafka_send):
    uri = kafka_uri(kafka_broker, kafka_topic)
    kafka_send(uri)(batch(0) + batch(1))
    f = following(uri, "-e")
    code = f.finish()
    assert_clean_end(f, code)
    assert "the end of every partition reached" in f.stderr
    assert Counter(f.lines) == Counter(expected_lines(uri, batch(0) + batch(1)))


def produce_with_headers(kafka_broker, uri: str, headers: list) -> list[Message]:
    """The messages of batch 0 produced with ``headers`` (cdcwire's writer sends none)."""
    from confluent_kafka import Producer

    open_sink(uri).needs_transport().prepare_topic(open_sink(uri).config, open_sink(uri).topic)
    messages = cdcwire.encode(uri, batch(0))
    producer = Producer({"bootstrap.servers": kafka_broker.bootstrap})
    for m in messages:
        producer.produce(m.topic, m.value, m.key, partition=m.partition, headers=headers)
    assert producer.flush(10) == 0
    return messages


def test_raw_lines_carry_the_kafka_timestamp_and_headers(kafka_broker, kafka_topic, following):
    uri = kafka_uri(kafka_broker, kafka_topic)
    before = int(time.time() * 1000)
    produce_with_headers(kafka_broker, uri, [("trace", b"abc"), ("empty", None)])
    f = following(uri, "--raw", "-e")
    code = f.finish()
    assert_clean_end(f, code)
    lines = [json.loads(line) for line in f.lines]
    assert lines and all(d["headers"] == [["trace", "abc"], ["empty", None]] for d in lines)
    assert all(before - 1000 <= d["timestamp"] <= int(time.time() * 1000) for d in lines)


def test_inspect_raw_lines_carry_the_kafka_timestamp_and_headers(kafka_broker, kafka_topic, capsys):
    from cdcwire.cli import main

    uri = kafka_uri(kafka_broker, kafka_topic)
    messages = produce_with_headers(kafka_broker, uri, [("trace", b"\xff")])
    assert main(["inspect", "--raw", uri]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) >= len(messages)
    assert all(d["headers"] == [["trace", "\\xff"]] and isinstance(d["timestamp"], int) for d in lines)


def test_inspect_list_gives_each_kafka_partitions_watermarks_and_protocol(kafka_broker, kafka_topic, kafka_send, capsys):
    from cdcwire.cli import main

    uri = kafka_uri(kafka_broker, kafka_topic)
    kafka_send(uri)(batch(0))
    held = {p: len(list(cdcwire.read(uri, [p]))) for p in range(3)}
    assert main(["inspect", "--list", f"kafka://{kafka_broker.bootstrap}/{kafka_topic}", "--topics", kafka_topic]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"  topic {kafka_topic!r} with 3 partition(s):"
    for p in range(3):
        assert lines[2 + p].startswith(f"    partition {p}: low 0, high {held[p]}, messages {held[p]}, protocol ")
        assert "open-protocol" in lines[2 + p].split(", protocol ")[1].split(", ")


# --- file:// ----------------------------------------------------------------------------------


def test_a_file_source_is_followed_while_it_is_written(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="3")
    write(uri, batch(0))
    f = following(uri)
    f.wait_started()
    writer = writer_thread(lambda: [(write(uri, batch(b)), time.sleep(0.05)) for b in range(1, 5)])
    expected = expected_lines(uri, [e for b in range(5) for e in batch(b)])
    f.wait_for_lines(len(expected))
    writer.join(TIMEOUT)
    code = f.interrupt()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected)


def test_exit_at_end_ends_it_once_every_file_partition_is_read(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="3")
    write(uri, batch(0) + batch(1))
    f = following(uri, "--exit-at-end")
    code = f.finish()
    assert_clean_end(f, code)
    assert "cdcwire follow: the end of every partition reached: " in f.stderr
    assert Counter(f.lines) == Counter(expected_lines(uri, batch(0) + batch(1)))


def test_until_takes_an_iso_8601_time_as_well_as_a_tso(tmp_path, following):
    from cdcwire.foundation.time_points import parse_time

    second = [parse_time(f"2024-05-01T12:00:0{i}Z").tso for i in range(3)]
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, [e for ts in second for e in (row(ts, ts % 1000), ResolvedEvent(ts))])
    by_iso = following(uri, "--until", "2024-05-01T12:00:01Z")
    by_tso = following(uri, "--until", str(second[1]))
    by_ms = following(uri, "--until", f"@{second[1] >> 18}")
    for f in (by_iso, by_tso, by_ms):
        assert_clean_end(f, f.finish())
        assert "--until reached" in f.stderr
    assert by_iso.lines == by_tso.lines == by_ms.lines
    assert [json.loads(line).get("commit_ts", json.loads(line).get("ts")) for line in by_iso.lines] == [
        second[0], second[0], second[1], second[1]
    ]


def test_a_time_that_is_no_time_form_is_a_one_line_error(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, batch(0))
    f = following(uri, "--until", "tomorrow")
    assert f.finish() == 2
    assert f.stderr == (
        "cdcwire follow: error: until 'tomorrow' is not a time: write a TSO, '@' and milliseconds since the epoch"
        " (@1714564800000) or ISO-8601 (2024-05-01T12:00:00Z)"
    )


def test_skip_damaged_reads_past_a_damaged_file_record(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, batch(0))
    part = tmp_path / "orders" / "0.cdcwire"
    data = bytearray(part.read_bytes())
    data[-2] ^= 0x01  # the last record (the resolved event) fails its CRC check
    part.write_bytes(bytes(data))
    strict = following(uri, "-e")
    assert strict.finish() == 2 and "skip-damaged=true" in strict.stderr
    skipping = following(uri, "-e", "--skip-damaged")
    assert_clean_end(skipping, skipping.finish())
    assert Counter(skipping.lines) == Counter(expected_lines(uri, batch_rows(0)))


def test_a_file_record_still_being_written_is_not_read_yet(tmp_path):
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, batch(0))
    part = tmp_path / "orders" / "0.cdcwire"
    whole = part.read_bytes()
    write(uri, batch(1))
    grown = part.read_bytes()
    part.write_bytes(grown[: len(whole) + 7])  # batch 1's first record, torn: a writer in the middle of it
    with cdcwire.follow(uri, poll_interval=0.05) as events:
        it = iter(events)
        got = [next(it) for _ in expected_lines(uri, batch(0))]
        part.write_bytes(grown)  # the rest arrives
        got += [next(it) for _ in expected_lines(uri, batch(1))]
    assert [to_json(e) for e in got] == expected_lines(uri, batch(0)) + expected_lines(uri, batch(1))


def test_a_topic_a_pattern_matches_later_is_picked_up(tmp_path, following):
    first, later = file_uri(tmp_path, "app_a", partition_num="1"), file_uri(tmp_path, "app_b", partition_num="1")
    write(first, batch(0))
    f = following(first, "--topics", "app_*")
    f.wait_started()
    write(later, batch(1))
    expected = expected_lines(first, batch(0)) + expected_lines(later, batch(1))
    f.wait_for_lines(len(expected))
    code = f.interrupt()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected)


def test_an_undecodable_message_stops_it_with_an_error_naming_its_place(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, batch(0))
    cdcwire.write(uri, [Message("orders", 0, b"not a key", b"not a value")])
    bad_offset = len(list(cdcwire.read(uri))) - 1
    f = following(uri)
    code = f.finish()
    assert code == 2
    assert f"orders/0/{bad_offset}" in f.stderr
    assert "Traceback" not in f.stderr
    assert len(f.lines) == len(expected_lines(uri, batch(0)))  # what came before it was printed


def test_skip_undecodable_goes_on_and_counts_it(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, batch(0))
    cdcwire.write(uri, [Message("orders", 0, b"not a key", b"not a value")])
    write(uri, batch(1))
    f = following(uri, "--skip-undecodable", "--until", str(resolved_of(1)))
    code = f.finish()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected_lines(uri, batch(0) + batch(1)))
    assert "1 undecodable message(s) skipped" in f.stderr


def test_ordered_is_refused_up_front_for_avro(tmp_path, following):
    uri = file_uri(
        tmp_path, "t", protocol="avro", **{"schema-registry": "http://127.0.0.1:9", "topic-rule": "tidb_{schema}_{table}"}
    )
    f = following(uri, "--ordered")
    code = f.finish()
    assert code == 2
    assert "protocol 'avro' sends no resolved events" in f.stderr
    assert "cannot be merged in commit-ts order" in f.stderr
    assert "Traceback" not in f.stderr


def test_a_group_is_refused_for_a_file_source(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="1")
    write(uri, batch(0))
    f = following(uri, "--group", "g")
    assert f.finish() == 2
    assert "file:// has no consumer groups or message times, so a consumer group (group=, --group) cannot be used" in f.stderr
    assert "Traceback" not in f.stderr


# --- every installed protocol (the decoding is the codecs') --------------------------------


def protocol_uri(tmp_path, protocol: str, request) -> tuple[str, Optional[str]]:
    """A file:// URI for ``protocol`` and the topics to follow (avro: one topic per table)."""
    if protocol == "avro":
        registry = request.getfixturevalue("schema_registry")
        return file_uri(
            tmp_path, "t", protocol="avro", partition_num="1",
            **{"schema-registry": registry.url, "topic-rule": "tidb_{schema}_{table}"},
        ), "tidb_app_*"
    extra = {"enable-tidb-extension": "true"} if protocol in ("canal-json", "debezium") else {}  # debezium decodes only with it
    return file_uri(tmp_path, protocol=protocol, partition_num="3", **extra), None


@pytest.mark.parametrize("protocol", cdcwire.protocols())
def test_every_installed_protocol_is_followed(tmp_path, request, protocol):
    uri, topics = protocol_uri(tmp_path, protocol, request)
    events = batch(0) + batch(1)
    write(uri, events)
    expected = expected_lines(uri, events)
    with cdcwire.follow(uri, topics=topics, count=len(expected), poll_interval=0.05) as follower:
        got = [to_json(e) for e in follower]
    assert Counter(got) == Counter(expected)


@pytest.mark.parametrize("protocol", [p for p in cdcwire.protocols() if p != "avro"])
def test_every_protocol_with_resolved_events_is_followed_in_commit_ts_order(tmp_path, request, protocol):
    uri, topics = protocol_uri(tmp_path, protocol, request)
    write(uri, batch(0) + batch(1))
    with cdcwire.follow(uri, topics=topics, ordered=True, until=resolved_of(1), poll_interval=0.05) as follower:
        got = list(follower)
    changes = [from_json(line) for line in expected_lines(uri, batch_rows(0) + batch_rows(1))]
    assert got == sorted(changes, key=lambda e: e.commit_ts) + [ResolvedEvent(resolved_of(1))]


# --- data loss: a topic deleted and written again ----------------------------------------------


def follow_then_recreate(tmp_path, **options: object):
    """Follow a file topic through four batches, then delete it and write one batch again (its
    offsets restart below where the follower is); the follower and its iterator."""
    import shutil

    uri = file_uri(tmp_path, partition_num="3")
    for b in range(4):
        write(uri, batch(b))
    follower = cdcwire.follow(uri, poll_interval=0.05, **options)
    placed = follower.placed()
    for _ in expected_lines(uri, [e for b in range(4) for e in batch(b)]):
        next(placed)
    shutil.rmtree(tmp_path / "orders")
    write(uri, batch(7))
    threading.Timer(TIMEOUT, follower.stop).start()  # a follower that saw nothing would wait: not for ever
    return uri, follower, placed


def test_a_topic_recreated_under_a_follower_stops_it_naming_partition_and_offsets(tmp_path):
    _, follower, placed = follow_then_recreate(tmp_path)
    with pytest.raises(DataLossError, match=r"orders/\d: the stored offset \d+ is past the partition's end \d+"):
        next(placed)
    follower.close()


def test_with_data_loss_accepted_a_recreated_topic_is_followed_from_its_earliest(tmp_path, caplog):
    uri, follower, placed = follow_then_recreate(tmp_path, fail_on_data_loss=False)
    expected = expected_lines(uri, batch(7))
    with follower:
        got = [to_json(next(placed).event) for _ in expected]
    assert Counter(got) == Counter(expected)
    assert "the loss is accepted" in caplog.text


def test_the_command_takes_fail_on_data_loss_false(tmp_path, following):
    uri = file_uri(tmp_path, partition_num="3")
    write(uri, batch(0))
    f = following(uri, "--from", "1000", "--fail-on-data-loss", "false")
    f.wait_for_lines(len(expected_lines(uri, batch(0))))
    code = f.interrupt()
    assert_clean_end(f, code)


def keyless_row(ts: int) -> RowChangedEvent:
    return RowChangedEvent(commit_ts=ts, schema="app", table="log", columns=(Column("v", T.VARCHAR, F.NULLABLE, "same"),))


@pytest.mark.parametrize("protocol", [p for p in cdcwire.protocols() if p != "avro"])
def test_identical_rows_of_a_keyless_table_all_come_out_ordered(tmp_path, request, protocol):
    uri, topics = protocol_uri(tmp_path, protocol, request)
    twice, four_times = [keyless_row(1000)] * 2, [keyless_row(1001)] * 4
    write(uri, twice + [ResolvedEvent(1000)])
    write(uri, four_times + [ResolvedEvent(1001)])
    with cdcwire.follow(uri, topics=topics, ordered=True, until=1001, poll_interval=0.05) as follower:
        got = [e for e in follower if isinstance(e, RowChangedEvent)]
    assert [e.commit_ts for e in got] == [1000] * 2 + [1001] * 4


def test_a_topic_that_does_not_exist_yet_reads_as_empty_until_it_appears(tmp_path):
    uri = file_uri(tmp_path, "later", partition_num="2")
    with cdcwire.follow(uri, count=len(expected_lines(uri, batch(0))), poll_interval=0.05) as follower:
        writer = writer_thread(lambda: (time.sleep(0.2), write(uri, batch(0))))
        got = [to_json(e) for e in follower]
    writer.join(TIMEOUT)
    assert Counter(got) == Counter(expected_lines(uri, batch(0)))


def test_follow_on_a_topic_not_created_yet_waits_for_it(tmp_path, following):
    uri = file_uri(tmp_path, "later", partition_num="1")
    f = following(uri)
    f.wait_started()
    write(uri, batch(0))
    expected = expected_lines(uri, batch(0))
    f.wait_for_lines(len(expected))
    code = f.interrupt()
    assert_clean_end(f, code)
    assert Counter(f.lines) == Counter(expected) and "does not exist" not in f.stderr
