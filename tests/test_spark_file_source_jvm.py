"""The ``file://`` message source in the JVM (``io.cdcwire.spark.FramedFiles``) against the Python
data source it stands in for: on the JVM decoding tier, a read of clean partition files gives the
same messages and events from either source, ranges that start mid-file included; a damaged file
gives the Python reader's error, skipped stretches and rows (Java leaves the rest of the range to
it at the first irregular record); and a clean read plans no Python data source."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Message
from cdcwire import spark as cs
from cdcwire.foundation.errors import CdcwireError
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.file_source import REST_END
from cdcwire.spark.reader.message_source import READING_SETTING, framed_messages, reading_tier
from cdcwire.spark.reader.message_ranges import MessageRange, plan_message_ranges
from cdcwire.spark.reader.pinned_read import read_ranges
from cdcwire.testing.jvm_tiers import rows_in_order
from cdcwire.transports.file.offset_index import INTERVAL

from test_spark_java_encoding import every_kind_rows

#: A query per protocol whose Java decoder reads file:// messages.
PROTOCOLS = [
    "protocol=canal-json&partition-num=2",
    "protocol=craft&partition-num=2",
    "protocol=open-protocol&partition-num=2",
    "protocol=debezium&enable-tidb-extension=true&partition-num=2",
    "protocol=simple&partition-num=2",
]
SOURCES = ("python", "auto")


def on_source(spark, source: str, run):
    """``run()`` on the JVM decoding tier with ``file://`` messages read by ``source``
    (``python``: the data source in a Python worker; ``auto``: Java)."""
    spark.conf.set(READING_SETTING, source)
    try:
        return run()
    finally:
        spark.conf.unset(READING_SETTING)


def read_from_both_sources(spark, uri: str, **read) -> tuple[list, list]:
    """(the Python source's rows, the Java source's rows) of ``cs.read(spark, uri, topics="*", **read)``."""
    return tuple(on_source(spark, s, lambda: rows_in_order(cs.read(spark, uri, topics="*", **read))) for s in SOURCES)


def error_from_both_sources(spark, uri: str, ranges=None, **read) -> tuple[tuple, tuple]:
    """(class, text, notes) of the error each source's read of ``uri`` fails with: a read of its
    partitions as they are now, or of pinned ``ranges`` (whose planning reads no record)."""
    errors = []
    for source in SOURCES:
        def run():
            return (cs.read(spark, uri, topics="*", **read) if ranges is None else read_ranges(spark, uri, ranges)).collect()

        with pytest.raises(Exception) as failed:
            on_source(spark, source, run)
        with pytest.raises(CdcwireError) as caught:
            cs.raise_carried(failed.value)
        errors.append((type(caught.value), str(caught.value), getattr(caught.value, "__notes__", None)))
    return errors[0], errors[1]


def sink_of(tmp_path: Path, query: str, n: int = 40) -> str:
    uri = f"file://{tmp_path}/t?{query}"
    cdcwire.write(uri, cdcwire.encode(uri, every_kind_rows(n)))
    return uri


def values_sink(tmp_path: Path, count: int, query: str = "protocol=canal-json") -> tuple[str, Path]:
    """A one-partition canal-json sink of ``count`` row messages, and its partition file."""
    uri = f"file://{tmp_path}/t?{query}&partition-num=1"
    cdcwire.write(uri, list(cdcwire.encode(uri, every_kind_rows(count)))[:count])
    return uri, tmp_path / "t" / "0.cdcwire"


def record_bytes(path: Path) -> list[int]:
    """The byte each record of a clean partition file starts at."""
    data, at, starts = path.read_bytes(), 8, []
    while at < len(data):
        starts.append(at)
        klen, vlen = (int.from_bytes(data[at + i: at + i + 4], "big") for i in (0, 4))
        at += 12 + (0 if klen == 0xFFFFFFFF else klen) + (0 if vlen == 0xFFFFFFFF else vlen)
    return starts


def flip(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def test_the_java_source_reads_file_messages_where_the_session_has_the_jar(spark, tmp_path):
    uri = sink_of(tmp_path, PROTOCOLS[0], 2)
    assert reading_tier(open_sink(uri), spark) == ("jvm", "file:// partition files are read in the JVM")


def test_the_python_reading_setting_keeps_the_python_source_and_says_so(spark, tmp_path):
    uri = sink_of(tmp_path, PROTOCOLS[0], 2)
    assert on_source(spark, "python", lambda: reading_tier(open_sink(uri), spark)) == (
        "python", f"{READING_SETTING}=python")


@pytest.mark.parametrize("query", PROTOCOLS)
def test_clean_files_give_the_same_events_from_either_source(spark, tmp_path, query):
    uri = sink_of(tmp_path, query)
    python, java = read_from_both_sources(spark, uri)
    assert java == python
    assert len(java) == len(every_kind_rows(40))


def test_clean_files_give_the_same_messages_from_either_source(spark, tmp_path):
    uri = sink_of(tmp_path, PROTOCOLS[1], 300)
    sink = open_sink(uri)
    ranges = plan_message_ranges(sink, "*")
    java = framed_messages(spark, sink, ranges)
    python = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").option("output", "messages").load()
    assert java.filter(java[REST_END].isNotNull()).count() == 0
    assert rows_in_order(java.drop(REST_END)) == rows_in_order(python)


def test_a_range_starting_mid_file_reads_from_its_start(spark, tmp_path):
    uri, _ = values_sink(tmp_path, 50)
    python, java = read_from_both_sources(spark, uri, start_offset=17)
    assert java == python
    assert [r.offset for r in java][:1] == [17]


def test_a_range_starting_past_an_offset_index_entry_reads_from_its_start(spark, tmp_path):
    uri, path = values_sink(tmp_path, INTERVAL + 300)
    list(cdcwire.read(uri))  # a clean read from the start writes the partition's offset index
    assert (tmp_path / ".cdcwire" / "index" / "t" / "0.idx").is_file()
    python, java = read_from_both_sources(spark, uri, start_offset=INTERVAL + 250)
    assert java == python
    assert [r.offset for r in java] == list(range(INTERVAL + 250, INTERVAL + 300))


def test_a_flipped_crc_byte_fails_with_the_python_readers_error(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    flip(path, record_bytes(path)[12] + 9)
    python, java = error_from_both_sources(spark, uri)
    assert java == python
    assert "t/0: record 12 at byte" in java[1] and "fails its CRC check" in java[1]


def test_a_flipped_value_byte_is_skipped_as_the_python_reader_skips_it(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    flip(path, record_bytes(path)[7] + 40)
    python, java = read_from_both_sources(spark, f"{uri}&skip-damaged=true")
    assert java == python
    assert sorted({r.offset for r in java}) == [o for o in range(30) if o != 7]


def test_a_flipped_value_byte_before_a_mid_file_start_fails_as_in_python(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    flip(path, record_bytes(path)[3] + 40)
    python, java = error_from_both_sources(spark, uri, start_offset=10)
    assert java == python
    assert "t/0: record 3 at byte" in java[1]


def test_inserted_bytes_stop_a_skipping_read_with_the_python_readers_error(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    at = record_bytes(path)[20] + 30
    data = path.read_bytes()
    path.write_bytes(data[:at] + b"\x00inserted\x00" + data[at:])
    skipping = f"{uri}&skip-damaged=true"
    python, java = error_from_both_sources(spark, skipping, ranges=[MessageRange("t", 0, 0, 30)])
    assert java == python
    assert "may have held any number of records" in java[1]


def test_inserted_bytes_fail_a_strict_read_with_the_python_readers_error(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    at = record_bytes(path)[20] + 30
    data = path.read_bytes()
    path.write_bytes(data[:at] + b"\x00inserted\x00" + data[at:])
    python, java = error_from_both_sources(spark, uri, ranges=[MessageRange("t", 0, 5, 30)])
    assert java == python
    assert "t/0: record 20 at byte" in java[1]


def test_a_torn_tail_ends_the_read_as_in_python(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    data = path.read_bytes()
    path.write_bytes(data[: record_bytes(path)[29] + 20])
    python, java = read_from_both_sources(spark, uri)
    assert java == python
    assert sorted({r.offset for r in java}) == list(range(29))


def test_damage_at_the_end_is_skipped_as_the_python_reader_skips_it(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30)
    flip(path, path.stat().st_size - 3)
    python, java = read_from_both_sources(spark, f"{uri}&skip-damaged=true")
    assert java == python
    assert sorted({r.offset for r in java}) == list(range(29))


def test_a_damaged_message_read_permissively_gives_the_python_sources_rows(spark, tmp_path):
    uri = f"file://{tmp_path}/t?protocol=canal-json&partition-num=1"
    values = [m.value for m in cdcwire.encode(uri, every_kind_rows(5))]
    cdcwire.write(uri, [Message("t", 0, None, v) for v in values[:2] + [b"{not json"] + values[2:]])
    python, java = read_from_both_sources(spark, uri, permissive=True)
    assert java == python
    assert [r.offset for r in java if r._malformed is not None] == [2]


def python_workers_asked(spark, run) -> bool:
    """Whether ``run()`` asked Spark for a Python worker for its own functions: each Python
    function Spark runs carries the context's environment, and Spark keeps a worker factory per
    environment (``SparkEnv.pythonWorkers``, private: read by reflection), so a mark only this
    run's functions carry shows in that map exactly when one of them started a worker."""
    sc = spark.sparkContext
    mark = f"cdcwire-probe-{uuid.uuid4().hex}"
    sc.environment["CDCWIRE_TEST_PROBE"] = mark
    try:
        run()
    finally:
        del sc.environment["CDCWIRE_TEST_PROBE"]
    field = sc._jvm.java.lang.Class.forName("org.apache.spark.SparkEnv").getDeclaredField("pythonWorkers")
    field.setAccessible(True)
    return mark in field.get(sc._jsc.sc().env()).toString()


def test_a_clean_read_through_the_java_source_starts_no_python_worker(spark, tmp_path):
    uri = sink_of(tmp_path, PROTOCOLS[0], 20)
    assert not python_workers_asked(spark, lambda: cs.read(spark, uri, topics="*").collect())


def test_a_read_with_a_pending_message_starts_a_python_worker_and_keeps_its_order(spark, tmp_path):
    uri = f"file://{tmp_path}/t?protocol=canal-json&partition-num=1"
    values = [m.value for m in cdcwire.encode(uri, every_kind_rows(5))]
    cdcwire.write(uri, [Message("t", 0, None, v) for v in values[:7] + [b"{not json"] + values[7:]])
    rows: list = []
    assert python_workers_asked(spark, lambda: rows.extend(cs.read(spark, uri, permissive=True).collect()))
    assert [r.offset for r in rows] == sorted(r.offset for r in rows)
    assert on_source(spark, "python", lambda: cs.read(spark, uri, permissive=True).collect()) == rows


def test_the_python_source_starts_python_workers_for_the_same_read(spark, tmp_path):
    uri = sink_of(tmp_path, PROTOCOLS[0], 20)
    assert python_workers_asked(spark, lambda: on_source(spark, "python", lambda: cs.read(spark, uri, topics="*").collect()))


def test_a_stateful_protocols_damaged_file_is_skipped_as_the_python_reader_skips_it(spark, tmp_path):
    uri, path = values_sink(tmp_path, 30, query="protocol=simple")
    flip(path, record_bytes(path)[9] + 40)
    python, java = read_from_both_sources(spark, f"{uri}&skip-damaged=true")
    assert java == python
    assert 9 not in {r.offset for r in java} and len(java) > 0


def test_a_java_source_read_keeps_the_offset_index_as_the_python_reader_keeps_it(spark, tmp_path):
    uri, _ = values_sink(tmp_path, 2 * INTERVAL + 10)
    index = tmp_path / ".cdcwire" / "index" / "t" / "0.idx"
    on_source(spark, "python", lambda: cs.read(spark, uri).count())
    by_python = index.read_bytes()
    index.unlink()
    on_source(spark, "auto", lambda: cs.read(spark, uri).count())
    assert index.read_bytes() == by_python
