"""``spark.readStream.format("cdcwire-storage")``: a TiCDC storage-sink layout as a stream.

What the stream must promise: it gives what a batch read of the layout gives; files TiCDC
writes later (more files in a directory, a new partition directory, a new table version) come in
a later micro-batch, exactly once; rows past the checkpoint wait for a checkpoint that passes
them; a query restarted from its checkpoint re-plans an unfinished batch exactly and goes on;
``materialize_stream`` of a layout gives the tables an in-order replay gives.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.foundation.errors import CdcwireError
from cdcwire.spark.reader.storage_stream_source import StorageLayoutStreamReader
from test_spark_materialize_storage import (
    first_layout, materialized, replayed, second_files, third_files, uri_of,
)
from test_storage_read import CREATE_ORDERS, order, user


def stream(spark, uri: str, **options: str):
    cs.register_data_sources(spark)
    reader = spark.readStream.format("cdcwire-storage").option("source-uri", uri)
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader.load()


def run_available_now(df, checkpoint: Path, batches: dict[int, list[str]]) -> None:
    """Everything available now, each micro-batch's rows kept in ``batches`` by batch id."""
    def keep(batch, batch_id: int) -> None:
        batches[batch_id] = rows(batch)

    query = df.writeStream.foreachBatch(keep).option("checkpointLocation", str(checkpoint))
    query = query.trigger(availableNow=True).start()
    query.awaitTermination(300)
    assert not query.isActive, "an availableNow query ends by itself"
    if query.exception() is not None:
        raise query.exception()


def following(df, checkpoint: Path, batches: dict[int, list[str]]):
    """A running query, triggered every 200 ms, each micro-batch's rows kept in ``batches``;
    ``query.processAllAvailable()`` waits until it has read what the layout holds."""
    def keep(batch, batch_id: int) -> None:
        batches[batch_id] = rows(batch)

    query = df.writeStream.foreachBatch(keep).option("checkpointLocation", str(checkpoint))
    return query.trigger(processingTime="200 milliseconds").start()


def caught_up(query) -> None:
    query.processAllAvailable()
    if query.exception() is not None:
        raise query.exception()


def rows(df) -> list[str]:
    """The rows as sorted JSON texts: a multiset compared in Python (these frames are small)."""
    return sorted(json.dumps(r.asDict(recursive=True), sort_keys=True, default=str) for r in df.collect())


def resolved_ts(texts: list[str]) -> list[int]:
    return sorted(int(json.loads(t)["commit_ts"]) for t in texts if json.loads(t)["kind"] == "resolved")


def without_resolved(texts: list[str]) -> list[str]:
    return sorted(t for t in texts if json.loads(t)["kind"] != "resolved")


def users_ids(texts: list[str]) -> set[tuple[int, int]]:
    """(commit ts, id) of the users rows."""
    found = set()
    for t in texts:
        e = json.loads(t)
        if e["table"] == "users" and e["kind"] in ("insert", "update"):
            found.add((int(e["commit_ts"]), int(next(c["value"]["int"] for c in e["columns"] if c["name"] == "id"))))
    return found


def test_an_available_now_stream_gives_the_events_a_batch_read_gives(spark, tmp_path: Path) -> None:
    uri = uri_of(tmp_path / "layout")
    first_layout(tmp_path / "layout")
    batches: dict[int, list[str]] = {}
    run_available_now(stream(spark, uri), tmp_path / "ck", batches)
    assert [b for b in batches.values() if b] and sorted(sum(batches.values(), [])) == rows(cs.read(spark, uri))


def test_files_written_after_a_batch_come_in_the_next_batch_exactly_once(spark, tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)
    batches: dict[int, list[str]] = {}
    query = following(stream(spark, uri), tmp_path / "ck", batches)
    try:
        caught_up(query)
        second_files(ticdc)  # more files in a directory, a new partition directory, the checkpoint at 290
        caught_up(query)
        third_files(ticdc)  # a new table version with an ADD COLUMN, the checkpoint at 350
        caught_up(query)
    finally:
        query.stop()
    streamed = [batches[i] for i in sorted(batches)]
    assert [resolved_ts(b) for b in streamed] == [[250], [290], [350]]  # one micro-batch per checkpoint
    assert without_resolved(sum(streamed, [])) == without_resolved(rows(cs.read(spark, uri)))
    assert any('"table": "orders"' in t and "app/orders/105/62/" in t for t in streamed[1])  # the new partition
    ddls = [json.loads(t) for t in streamed[2] if json.loads(t)["kind"] == "ddl"]
    assert [(int(d["commit_ts"]), d["query"]) for d in ddls] == [(310, "ALTER TABLE users ADD COLUMN email VARCHAR(40)")]


def test_rows_past_the_checkpoint_come_only_after_the_checkpoint_passes_them(spark, tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)  # eve (260) is written, the checkpoint is at 250
    batches: dict[int, list[str]] = {}
    query = following(stream(spark, uri), tmp_path / "ck", batches)
    try:
        caught_up(query)
        assert (260, 5) not in users_ids(sum(batches.values(), []))
        ticdc.layout.checkpoint(270)  # no new file: the checkpoint passes eve
        caught_up(query)
    finally:
        query.stop()
    last = batches[max(batches)]
    assert users_ids(last) == {(260, 5)} and resolved_ts(last) == [270]


def test_a_query_restarted_from_its_checkpoint_replans_its_unfinished_batch_and_goes_on(spark, tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)
    first: dict[int, list[str]] = {}
    run_available_now(stream(spark, uri), tmp_path / "ck", first)
    for name in ("0", ".0.crc"):  # batch 0 planned, its end recorded, but never committed
        (tmp_path / "ck" / "commits" / name).unlink()
    second_files(ticdc)  # TiCDC writes on meanwhile
    again: dict[int, list[str]] = {}
    run_available_now(stream(spark, uri), tmp_path / "ck", again)
    assert sorted(again) == [0, 1] and again[0] == first[0]  # the same files, nothing of the new ones
    assert without_resolved(again[0] + again[1]) == without_resolved(rows(cs.read(spark, uri)))


def test_partitions_are_a_pure_function_of_the_two_offsets(tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)
    reader = StorageLayoutStreamReader({"source-uri": uri})
    start = reader.initialOffset()
    end = reader.latestOffset(start, None)
    planned = reader.partitions(start, end)
    second_files(ticdc)
    third_files(ticdc)
    assert reader.partitions(start, end) == planned and reader.latestOffset(start, None) != end
    assert reader.partitions(end, end) == []


def test_an_unmoved_checkpoint_keeps_the_offset_without_listing(tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)
    reader = StorageLayoutStreamReader({"source-uri": uri})
    end = reader.latestOffset(reader.initialOffset(), None)
    ticdc.file("app/users/200", [user(300, 8, "gil", 20)])  # written, but the checkpoint has not moved
    shutil.rmtree(root / "app" / "orders")  # a listing would now miss these directories
    assert reader.latestOffset(end, None) == end


def test_starting_offsets_latest_gives_only_what_comes_after_the_checkpoint(spark, tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)
    batches: dict[int, list[str]] = {}
    query = following(stream(spark, uri, startingOffsets="latest"), tmp_path / "ck", batches)
    try:
        caught_up(query)
        assert sum(batches.values(), []) == []
        second_files(ticdc)
        caught_up(query)
    finally:
        query.stop()
    streamed = sum(batches.values(), [])
    assert users_ids(streamed) == {(260, 5), (270, 3), (280, 6)} and resolved_ts(streamed) == [290]


def test_a_table_filter_gives_only_its_tables_events(spark, tmp_path: Path) -> None:
    uri = uri_of(tmp_path / "layout")
    first_layout(tmp_path / "layout")
    batches: dict[int, list[str]] = {}
    run_available_now(stream(spark, uri, tables="app.orders"), tmp_path / "ck", batches)
    tables = {json.loads(t)["table"] for t in sum(batches.values(), []) if json.loads(t)["kind"] != "resolved"}
    assert tables == {"orders"}


def test_materialize_stream_of_a_layout_equals_an_in_order_replay(spark, tmp_path: Path) -> None:
    root, out = tmp_path / "layout", tmp_path / "tables"
    ticdc, uri = first_layout(root), uri_of(root)
    query = cs.materialize_stream(stream(spark, uri), uri, str(out), str(tmp_path / "ck"),
                                  trigger={"processingTime": "200 milliseconds"})
    try:
        caught_up(query)
        assert materialized(out, "parquet") == replayed(uri)
        second_files(ticdc)  # a replayed file going on, a new partition directory, rows past the checkpoint
        third_files(ticdc)  # a new table version adding a column, a delete in a partition
        caught_up(query)
        assert materialized(out, "parquet") == replayed(uri)
    finally:
        query.stop()


def test_materialize_stream_of_a_csv_layout_without_commit_ts_is_refused_naming_the_parameter(spark, tmp_path):
    uri = f"local://{tmp_path}/layout?protocol=csv"
    cdcwire.write_storage(uri, [CREATE_ORDERS, order(115, 7, 61)])
    with pytest.raises(CdcwireError, match="needs each row's commit ts.*give include-commit-ts=true"):
        cs.materialize_stream(stream(spark, uri), uri, str(tmp_path / "tables"), str(tmp_path / "ck"))


def test_an_option_of_topics_is_refused_naming_the_options_a_layout_stream_takes(spark, tmp_path: Path) -> None:
    uri = uri_of(tmp_path / "layout")
    first_layout(tmp_path / "layout")
    with pytest.raises(Exception, match=r"format\('cdcwire-storage'\) has no option 'maxoffsetspertrigger'; it takes"
                                        r" source-uri, startingOffsets, tables"):
        run_available_now(stream(spark, uri, maxOffsetsPerTrigger="10"), tmp_path / "ck", {})


def test_a_batch_option_is_refused_saying_where_a_stream_starts(spark, tmp_path: Path) -> None:
    uri = uri_of(tmp_path / "layout")
    first_layout(tmp_path / "layout")
    with pytest.raises(Exception, match=r"option 'since' is for batch reads of a storage-sink layout; a stream starts"
                                        r" where startingOffsets says"):
        run_available_now(stream(spark, uri, since='{"checkpoint": 1, "files": {}}'), tmp_path / "ck", {})


def test_a_checkpoint_that_moved_back_fails_the_query_saying_to_start_afresh(spark, tmp_path: Path) -> None:
    root = tmp_path / "layout"
    ticdc, uri = first_layout(root), uri_of(root)
    query = following(stream(spark, uri), tmp_path / "ck", {})
    try:
        caught_up(query)
        ticdc.layout.checkpoint(200)  # written again from scratch, or another changefeed's
        with pytest.raises(Exception, match=r"checkpoint 200 is behind 250, which an earlier read reached: the layout"
                                            r" was written again \(or is another changefeed's\); read it with a new"
                                            r" checkpointLocation"):
            query.awaitTermination(120)
    finally:
        query.stop()


def test_a_csv_layout_without_commit_ts_is_refused_by_the_stream_naming_the_parameter(tmp_path: Path) -> None:
    with pytest.raises(CdcwireError, match=r"a stream of a storage-sink layout needs each row's commit ts.*"
                                           r"give include-commit-ts=true"):
        StorageLayoutStreamReader({"source-uri": f"local://{tmp_path}?protocol=csv"})


def test_a_starting_offset_other_than_earliest_or_latest_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(CdcwireError, match=r"^option startingOffsets of a storage-sink layout is earliest or latest;"
                                           r" got '\{\"app\": 1\}'$"):
        StorageLayoutStreamReader({"source-uri": uri_of(tmp_path), "startingOffsets": '{"app": 1}'})
