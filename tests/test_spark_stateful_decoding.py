"""Spark reads of a protocol whose decoding is stateful (simple: a row needs its table's schema
from an earlier BOOTSTRAP or DDL of its partition) type the rows a Python read does, or fail
saying which rows they could not type; never drop them."""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.spark.reader.message_ranges import MessageRange, ranges_to_json
from cdcwire.spark.reader.range_decoding import decode_range
from cdcwire.workload import Workload


@pytest.fixture
def simple_topic(tmp_path) -> str:
    """Two partitions of a few tables, one BOOTSTRAP per table at each partition's start only."""
    uri = f"file://{tmp_path}/src/orders?protocol=simple&partition-num=2&send-bootstrap-interval-in-sec=0"
    cdcwire.write(uri, cdcwire.encode(uri, list(Workload(120, seed=7))))
    return uri


def python_rows(uri: str) -> list[tuple]:
    """(partition, commit ts, table, kind) of every row event a Python read gives, in order."""
    out = []
    for p in (0, 1):
        for e in cdcwire.decode(uri, cdcwire.read(uri, partitions=[p])):
            if isinstance(e, cdcwire.RowChangedEvent):
                out.append((p, e.commit_ts, e.table, e.kind))
    return out


def spark_rows(df) -> list[tuple]:
    rows = df.where("kind in ('insert', 'update', 'delete')").orderBy("partition", "offset").collect()
    return [(r["partition"], r["commit_ts"], r["table"], r["kind"]) for r in rows]


def test_a_spark_read_of_a_simple_topic_types_the_rows_a_python_read_does(spark, simple_topic):
    expected = python_rows(simple_topic)
    assert len(expected) > 100
    assert spark_rows(cs.read(spark, simple_topic)) == expected


def test_pinned_ranges_splitting_a_simple_partition_are_read_as_one_range_in_order(spark, simple_topic):
    ends = {p: cdcwire.read(simple_topic, partitions=[p]) for p in (0, 1)}
    ends = {p: sum(1 for _ in messages) for p, messages in ends.items()}
    pieces = [MessageRange("orders", p, start, end)
              for p in (0, 1) for start, end in ((0, ends[p] // 2), (ends[p] // 2, ends[p]))]
    df = (spark.read.format("cdcwire").option("source-uri", simple_topic)
          .option("ranges", ranges_to_json(pieces)).load())
    assert spark_rows(df) == python_rows(simple_topic)


def test_a_spark_read_starting_after_the_bootstraps_fails_naming_the_rows_it_cannot_type(spark, simple_topic):
    expected = r"never typed: no DDL or BOOTSTRAP message of that table came \(the first row at orders/[01]/5\)"
    with pytest.raises(Exception, match=expected):
        cs.read(spark, simple_topic, offsets={"orders/0": 5, "orders/1": 5}).count()


def bootstrap_offsets(uri: str) -> dict[str, set[int]]:
    """The offsets of the BOOTSTRAP messages of each "topic/partition"."""
    out: dict[str, set[int]] = {}
    for p in (0, 1):
        for m in cdcwire.read(uri, partitions=[p]):
            if json.loads(m.value)["type"] == "BOOTSTRAP":
                out.setdefault(f"orders/{p}", set()).add(m.offset)
    return out


def test_a_stream_types_the_rows_of_micro_batches_without_a_bootstrap_as_a_python_read_does(
    spark, simple_topic, tmp_path
):
    df = (spark.readStream.format("cdcwire").option("source-uri", simple_topic)
          .option("maxOffsetsPerTrigger", "100").load())
    query = (df.writeStream.format("memory").queryName("simple_capped")
             .option("checkpointLocation", str(tmp_path / "ck")).trigger(availableNow=True).start())
    query.awaitTermination(120)
    assert not query.isActive and query.exception() is None
    # later micro-batches have no BOOTSTRAP in their ranges: their rows are typed all the same
    booted = bootstrap_offsets(simple_topic)
    ranges = [(json.loads(p["sources"][0]["startOffset"] or "null") or {}, json.loads(p["sources"][0]["endOffset"]))
              for p in query.recentProgress if p["numInputRows"]]
    assert len(ranges) >= 2
    without = [(start, end) for start, end in ranges
               if not any(start.get(k, 0) <= o < end[k] for k in booted for o in booted[k] if k in end)]
    assert without, "a micro-batch whose range holds no BOOTSTRAP"
    assert spark_rows(spark.table("simple_capped")) == python_rows(simple_topic)


def test_a_range_decoded_from_an_earlier_offset_gives_its_own_rows_typed_and_no_earlier_event(simple_topic):
    # offsets 20..50 of partition 0 hold no BOOTSTRAP: alone they cannot be typed
    assert not {o for o in bootstrap_offsets(simple_topic)["orders/0"] if o >= 20}
    batches = list(decode_range(simple_topic, MessageRange("orders", 0, 20, 50, decode_from=0)))
    offsets = [o for b in batches for o in b.column("offset").to_pylist()]
    assert offsets and min(offsets) >= 20 and max(offsets) < 50
    rows = [(0, ts, table, kind) for b in batches
            for ts, table, kind, offset in zip(*(b.column(c).to_pylist() for c in ("commit_ts", "table", "kind", "offset")))
            if kind in ("insert", "update", "delete")]
    whole = [(0, e.commit_ts, e.table, e.kind) for e in cdcwire.decode(simple_topic, cdcwire.read(simple_topic, partitions=[0]))
             if isinstance(e, cdcwire.RowChangedEvent)]
    row_messages = [m for m in cdcwire.read(simple_topic, partitions=[0])
                    if 20 <= m.offset < 50 and json.loads(m.value)["type"] in ("INSERT", "UPDATE", "DELETE")]
    assert len(rows) == len(row_messages) > 0
    start = whole.index(rows[0])
    assert whole[start:start + len(rows)] == rows  # typed as the whole partition's reader types them


def test_a_stream_decodes_at_most_schema_lookback_messages_before_each_micro_batch(simple_topic):
    from cdcwire.spark.reader.stream_source import MessageEventsStreamReader

    start = {"orders/0": 40, "orders/1": 5, "schemasFrom": {"orders/0": 0, "orders/1": 0}}
    end = {"orders/0": 60, "orders/1": 9, "schemasFrom": {"orders/0": 0, "orders/1": 0}}
    reader = MessageEventsStreamReader({"source-uri": simple_topic, "schemaLookbackMessages": "10"})
    assert [(r.partition, r.start, r.decode_from) for r in reader.partitions(start, end)] == [(0, 40, 30), (1, 5, 0)]
    exact = MessageEventsStreamReader({"source-uri": simple_topic, "schemaLookbackMessages": "all"})
    assert [r.decode_from for r in exact.partitions(start, end)] == [0, 0]


def test_a_schema_lookback_that_is_no_number_is_refused_naming_the_option(simple_topic):
    from cdcwire.spark.reader.stream_source import MessageEventsStreamReader

    with pytest.raises(cdcwire.CdcwireError, match="option schemaLookbackMessages must be a positive number"):
        MessageEventsStreamReader({"source-uri": simple_topic, "schemaLookbackMessages": "lots"})


def test_a_permissive_read_gives_the_valid_parked_rows_and_the_bad_one_malformed_at_its_own_offset(spark, tmp_path):
    """Five rows before their table's BOOTSTRAP, the third with a FLOAT "abc": the four valid ones
    come out (placed at the BOOTSTRAP that typed them), the bad one is malformed at offset 2."""
    uri = f"file://{tmp_path}/parked/t?protocol=simple&partition-num=1"
    written = cdcwire.encode(uri, [cdcwire.RowChangedEvent(10 + i, "s", "t", (
        cdcwire.Column("id", cdcwire.ColumnType.INT, cdcwire.ColumnFlag.HANDLE_KEY | cdcwire.ColumnFlag.PRIMARY_KEY,
                       i, "int(11)"),
        cdcwire.Column("f", cdcwire.ColumnType.FLOAT, cdcwire.ColumnFlag.NULLABLE, 1.5, "float"),
    )) for i in range(5)])
    bootstrap, *inserts = (json.loads(m.value) for m in written)
    inserts[2]["data"]["f"] = "abc"
    cdcwire.write(uri, [cdcwire.Message("t", 0, None, json.dumps(m).encode()) for m in [*inserts, bootstrap]])
    rows = cs.read(spark, uri, permissive=True).orderBy("offset", "commit_ts").collect()
    assert [(r["offset"], r["commit_ts"]) for r in rows if r["_malformed"] is None] == [(5, 10), (5, 11), (5, 13), (5, 14)]
    (bad,) = [r for r in rows if r["_malformed"] is not None]
    assert bad["offset"] == 2 and "must be a number as a string, got 'abc'" in bad["_malformed"]["reason"]


def python_read(uri: str) -> tuple[list[tuple], list[int], str]:
    """What the plain decode path makes of a topic: (offset, commit ts, table, kind) of each row
    (placed at the message that gave it), the offsets of the messages refused, and the error
    the end of the input raised ('' if none)."""
    from cdcwire.api.codec_calls import decoder_for
    from cdcwire.foundation.errors import DecodeError, HeldRowsRefused

    decoder, rows, refused = decoder_for(uri), [], []
    for m in cdcwire.read(uri):
        try:
            events = decoder.decode(m)
        except HeldRowsRefused as exc:
            events = exc.events
            refused.extend(held.offset for held, _ in exc.refused)
        except DecodeError:
            events = []
            refused.append(m.offset)
        rows.extend((m.offset, e.commit_ts, e.table, e.kind) for e in events if isinstance(e, cdcwire.RowChangedEvent))
    try:
        decoder.finish()
    except DecodeError as exc:
        return rows, sorted(refused), str(exc)
    return rows, sorted(refused), ""


def test_spoiled_simple_streams_read_in_spark_as_the_plain_decode_path_reads_them(spark, tmp_path):
    """A small Spark sample of the simple fuzz (plugins/simple/tests/test_decode_fuzz.py): streams
    of generated events with messages spoiled, one topic; a permissive Spark read gives the rows
    and malformed offsets the plain decode path gives, or fails as it does at the end."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from cdcwire.testing.conformance import round_trip
    from cdcwire.testing.decode_fuzz import spoiled
    from cdcwire.testing.strategies import event_batches

    runs = iter(range(100))

    @settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.lists(event_batches(max_size=4), min_size=6, max_size=6), st.data())
    def check(streams, data):
        uri = f"file://{tmp_path}/fuzz{next(runs)}/t?protocol=simple&partition-num=1"
        spoilt = [cdcwire.Message("t", 0, m.key, data.draw(spoiled(m.value, True)))
                  for events in streams for m in round_trip(uri, events)[0]]
        cdcwire.write(uri, spoilt)
        rows, refused, ended = python_read(uri)
        print(f"simple Spark sample: {len(spoilt)} messages, {len(refused)} refused, {len(rows)} rows,"
              f" end: {ended[:60] or 'clean'}")
        df = cs.read(spark, uri, permissive=True)
        if ended:
            with pytest.raises(Exception, match="never typed"):
                df.count()
            return
        got = df.orderBy("offset").collect()
        assert sorted((r["offset"], r["commit_ts"], r["table"], r["kind"]) for r in got
                      if r["_malformed"] is None and r["kind"] in ("insert", "update", "delete")) == sorted(rows)
        assert sorted(r["offset"] for r in got if r["_malformed"] is not None) == refused

    check()
