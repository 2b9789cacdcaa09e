"""cs.write_stream: a streaming event DataFrame written micro-batch by micro-batch through cs.write.

The input stream here is Parquet files of event frames appearing in a directory (Spark's
own file source), so these tests hold the sink to its contract whatever source feeds it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cdcwire import CdcwireError
from cdcwire import spark as cs
from spark_cases import check_order, workload_file

SINK = "file://{out}/events?protocol=open-protocol&partition-num=2"


def _chunks(tmp_path: Path, parts: int = 2, events: int = 600) -> list[str]:
    """One generated stream cut into ``parts`` JSON Lines files, in order: later chunks carry
    later commit ts, as a source's later micro-batches do."""
    lines = Path(workload_file(tmp_path, events=events, seed=11)).read_text().splitlines(keepends=True)
    size = -(-len(lines) // parts)
    paths = []
    for i in range(parts):
        path = tmp_path / f"chunk-{i}.jsonl"
        path.write_text("".join(lines[i * size:(i + 1) * size]))
        paths.append(str(path))
    return paths


def _add_chunk(spark, chunk: str, inbox: Path) -> int:
    """Append one chunk to the stream's input directory as a Parquet file of its event frame."""
    frame = cs.read_events(spark, chunk)
    frame.coalesce(1).write.mode("append").parquet(str(inbox))
    return frame.count()


def _stream(spark, inbox: Path):
    return spark.readStream.schema(cs.EVENT_SCHEMA).option("maxFilesPerTrigger", 1).parquet(str(inbox))


def _written_rows(spark, sink: str) -> list:
    return cs.read(spark, sink).where("kind IN ('insert', 'update', 'delete')").collect()


def test_each_micro_batch_is_dispatched_ordered_and_encoded_as_cs_write_does(spark, tmp_path) -> None:
    inbox, sink = tmp_path / "inbox", SINK.format(out=tmp_path / "out")
    sizes = [_add_chunk(spark, chunk, inbox) for chunk in _chunks(tmp_path)]
    batches: list[int] = []
    query = cs.write_stream(_stream(spark, inbox), sink, str(tmp_path / "ckpt"),
                            on_batch=lambda batch_id, summary: batches.append(summary.events_in))
    try:
        query.processAllAvailable()
    finally:
        query.stop()
    assert batches == sizes
    rows = cs.read(spark, sink).collect()
    check_order(rows)
    alone = SINK.format(out=tmp_path / "alone")
    cs.write(cs.read_events(spark, str(tmp_path / "chunk-*.jsonl")), alone)
    assert len(_written_rows(spark, sink)) == len(_written_rows(spark, alone))


def test_a_restarted_query_continues_from_its_checkpoint_and_writes_nothing_twice(spark, tmp_path) -> None:
    inbox, sink, checkpoint = tmp_path / "inbox", SINK.format(out=tmp_path / "out"), str(tmp_path / "ckpt")
    first_chunk, second_chunk = _chunks(tmp_path)
    _add_chunk(spark, first_chunk, inbox)
    first = cs.write_stream(_stream(spark, inbox), sink, checkpoint)
    first.processAllAvailable()
    first.stop()
    _add_chunk(spark, second_chunk, inbox)
    again = cs.write_stream(_stream(spark, inbox), sink, checkpoint)
    again.processAllAvailable()
    again.stop()
    alone = SINK.format(out=tmp_path / "alone")
    cs.write(cs.read_events(spark, str(tmp_path / "chunk-*.jsonl")), alone)
    assert len(_written_rows(spark, sink)) == len(_written_rows(spark, alone))


def test_a_query_killed_after_a_write_and_restarted_delivers_every_event_at_least_once(spark, tmp_path) -> None:
    inbox, sink, checkpoint = tmp_path / "inbox", SINK.format(out=tmp_path / "out"), str(tmp_path / "ckpt")
    _add_chunk(spark, _chunks(tmp_path, parts=1)[0], inbox)

    def killed(batch_id: int, summary) -> None:  # the batch is written, the checkpoint not yet told
        raise RuntimeError("killed between the write and the checkpoint")

    doomed = cs.write_stream(_stream(spark, inbox), sink, checkpoint, on_batch=killed)
    with pytest.raises(Exception, match="killed between"):
        doomed.processAllAvailable()
    doomed.stop()
    after_kill = len(_written_rows(spark, sink))
    assert after_kill > 0
    restarted = cs.write_stream(_stream(spark, inbox), sink, checkpoint)
    restarted.processAllAvailable()
    restarted.stop()
    assert len(_written_rows(spark, sink)) == 2 * after_kill  # the batch again, whole: at least once


def test_a_batch_frame_is_refused_with_a_pointer_to_cs_write(spark, tmp_path) -> None:
    frame = cs.read_events(spark, _chunks(tmp_path, parts=1)[0])
    with pytest.raises(CdcwireError, match="cs.write"):
        cs.write_stream(frame, SINK.format(out=tmp_path), str(tmp_path / "ckpt"))
