"""``cs.read`` of a TiCDC storage-sink layout: the same events as ``cdcwire.read_storage``, read on
the executors one table partition per task, with each event's file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.spark.format import register_data_sources
from cdcwire.spark.reader.storage_source import StorageLayoutDataSource
from cdcwire.spark.runtime.job_errors import cdcwire_error_in
from cdcwire.transports.storage.layout import read_checkpoint
from cdcwire.transports.storage.location import StorageLocation
from cdcwire.transports.storage.places import LayoutError
from cdcwire.workload import Workload
from storage_layout import Layout
from test_storage_read import CSV, reference_layout


def test_the_reference_layout_reads_in_spark_as_in_python(spark, tmp_path: Path) -> None:
    uri = reference_layout(tmp_path).uri(**CSV)
    rows = cs.read(spark, uri).collect()
    placed = list(cdcwire.read_storage_placed(uri))
    assert sorted((r["topic"], r["offset"], r["kind"], int(r["commit_ts"])) for r in rows) == sorted(
        (p.place.path, p.place.line or 0, getattr(p.event, "kind", None) or ("ddl" if isinstance(p.event, cdcwire.DDLEvent)
                                                                                else "resolved"), p.event.commit_ts)
        for p in placed
    )


def test_the_read_is_pinned_at_the_checkpoint_it_saw(spark, tmp_path: Path) -> None:
    layout = reference_layout(tmp_path)
    df = cs.read(spark, layout.uri(**CSV))
    before = df.count()
    layout.checkpoint(10**9)  # TiCDC moves on: eve (260) and the schema of version 300 complete
    assert df.count() == before and cs.read(spark, layout.uri(**CSV)).count() == before + 2


def test_a_damaged_line_fails_the_spark_read_naming_it(spark, tmp_path: Path) -> None:
    layout = reference_layout(tmp_path)
    [path] = tmp_path.glob("app/users/200/*/CDC000002.csv")
    path.write_bytes(path.read_bytes().replace(b'"dee",40', b'"dee"'))
    with pytest.raises(Exception) as info:  # Spark's exception, the task's error carried in it
        cs.read(spark, layout.uri(**CSV)).collect()
    err = cdcwire_error_in(info.value)
    assert isinstance(err, LayoutError) and str(err).startswith(f"{path.relative_to(tmp_path)}:2: 6 fields")


def test_a_table_filter_keeps_its_tables_events_and_reads_no_other_tables_files(spark, tmp_path: Path) -> None:
    layout = reference_layout(tmp_path)
    [damaged] = tmp_path.glob("app/users/200/*/CDC000002.csv")
    damaged.write_bytes(b"not csv of users\r\n")  # read, it would fail the job
    rows = cs.read(spark, layout.uri(**CSV), tables="app.orders").collect()
    assert sorted((r["kind"], r["table"], int(r["commit_ts"])) for r in rows) == [
        ("ddl", "orders", 105), ("insert", "orders", 115), ("insert", "orders", 130), ("resolved", None, 250)]


def _by_tier(spark, uri: str, tier: str) -> list:
    register_data_sources(spark)
    checkpoint = read_checkpoint(StorageLocation.parse(uri).storage)
    df = (spark.read.format("cdcwire-storage").option("source-uri", uri).option("checkpoint", str(checkpoint))
          .option("csv-tier", tier).load())
    return sorted((r.asDict(recursive=True) for r in df.collect()),
                  key=lambda r: (r["topic"], r["offset"], r["kind"], r["commit_ts"]))


def test_both_csv_tiers_give_the_same_rows_in_spark(spark, tmp_path: Path) -> None:
    uri = Layout(tmp_path).uri(**{"include-commit-ts": "true", "output-old-value": "true"})
    cdcwire.write_storage(uri, Workload(80, seed=3))
    fast = _by_tier(spark, uri, "fast")
    assert len(fast) > 60 and fast == _by_tier(spark, uri, "reference")


def test_an_unknown_csv_tier_is_a_one_line_error(spark, tmp_path: Path) -> None:
    uri = reference_layout(tmp_path).uri(**CSV)
    with pytest.raises(Exception) as info:
        _by_tier(spark, uri, "quick")
    assert "option csv-tier must be one of fast, reference, got 'quick'" in str(info.value)


def test_a_checkpoint_option_past_2_64_is_a_one_line_error(tmp_path: Path) -> None:
    source = StorageLayoutDataSource({"source-uri": reference_layout(tmp_path).uri(**CSV), "checkpoint": str(1 << 64)})
    with pytest.raises(cdcwire.SinkURIError, match=r"option checkpoint must be a ts \(digits, at most 2\^64-1\), got '18446744073709551616'"):
        source.reader(None)
