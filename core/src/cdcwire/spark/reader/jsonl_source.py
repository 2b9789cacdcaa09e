"""Event JSON Lines as an event DataFrame: the ``cdcwire-events`` Python data source.

Files are cut into chunks of about ``chunk-bytes`` at line ends; the driver counts
the lines before each chunk (a fast byte scan), so every executor knows the
line numbers of its chunk and a malformed line is reported as ``FILE:LINE``.
``mode=FAILFAST`` (default) fails on the first malformed line;
``mode=PERMISSIVE`` keeps it as a row with ``_malformed`` set.
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceReader, InputPartition

from ...foundation.errors import EventJSONError
from ...model.event_json import from_json
from ..rows.arrow_events import events_to_batch, events_to_permissive_batch
from ..runtime.job_errors import carried_to_driver
from ..rows.schema import EVENT_SCHEMA, PERMISSIVE_EVENT_SCHEMA

CHUNK_BYTES = 32 << 20
BATCH_ROWS = 4096
_SCAN = 8 << 20


@dataclass(frozen=True)
class LineChunk(InputPartition):
    path: str
    start: int
    end: int
    first_line: int


def input_files(path: str) -> list[str]:
    """A file, the ``.jsonl``/``.json`` files of a directory, or a glob."""
    if os.path.isdir(path):
        files = sorted(p for p in glob.glob(os.path.join(path, "*")) if p.endswith((".jsonl", ".json")))
    elif any(ch in path for ch in "*?["):
        files = sorted(glob.glob(path))
    else:
        files = [path]
    missing = [f for f in files if not os.path.isfile(f)]
    if not files or missing:
        raise EventJSONError(f"no event JSON Lines file at {missing[0] if missing else path}")
    return files


def line_chunks(path: str, chunk_bytes: int = CHUNK_BYTES) -> list[LineChunk]:
    """Chunks of ``path`` cut after a newline, each with the number of its first line."""
    size = os.path.getsize(path)
    chunks: list[LineChunk] = []
    with open(path, "rb") as f:
        start, line = 0, 1
        while start < size:
            end = min(size, start + chunk_bytes)
            if end < size:
                f.seek(end)
                rest = f.readline()
                end += len(rest)
            chunks.append(LineChunk(path, start, end, line))
            f.seek(start)
            left = end - start
            while left > 0:
                block = f.read(min(_SCAN, left))
                line += block.count(b"\n")
                left -= len(block)
            start = end
    return chunks


def read_chunk(chunk: LineChunk, permissive: bool) -> Iterator[pa.RecordBatch]:
    """Parse one chunk into event batches (with ``_malformed`` rows when permissive)."""
    name = os.path.basename(chunk.path)
    events: list = []
    malformed: list = []
    with open(chunk.path, "rb") as f:
        f.seek(chunk.start)
        pos, number = chunk.start, chunk.first_line
        while pos < chunk.end:
            raw = f.readline()
            if not raw:
                break
            pos += len(raw)
            if raw.strip():
                try:
                    event = from_json(raw.decode("utf-8"), number)
                    events.append(event)
                    malformed.append(None)
                except (EventJSONError, UnicodeDecodeError) as exc:
                    where = f"{chunk.path}:{number}"
                    if not permissive:
                        raise EventJSONError(f"{where}: {exc}") from None
                    events.append(None)
                    text = raw.decode("utf-8", errors="replace").rstrip("\n")
                    malformed.append({"source": f"{name}:{number}", "reason": str(exc), "text": text})
                if len(events) >= BATCH_ROWS:
                    yield _batch(events, malformed, permissive)
                    events, malformed = [], []
            number += 1
    if events:
        yield _batch(events, malformed, permissive)


def _batch(events: list, malformed: list, permissive: bool) -> pa.RecordBatch:
    return events_to_permissive_batch(events, malformed) if permissive else events_to_batch(events)


class EventLinesReader(DataSourceReader):
    def __init__(self, path: str, permissive: bool, chunk_bytes: int) -> None:
        self.path = path
        self.permissive = permissive
        self.chunk_bytes = chunk_bytes

    def partitions(self) -> list[LineChunk]:
        chunks = [c for f in input_files(self.path) for c in line_chunks(f, self.chunk_bytes)]
        return chunks or [LineChunk(self.path, 0, 0, 1)]

    def read(self, partition: LineChunk) -> Iterator[pa.RecordBatch]:
        if partition.end > partition.start:
            with carried_to_driver("reading event JSON Lines"):  # see job_errors
                yield from read_chunk(partition, self.permissive)


class EventLinesDataSource(DataSource):
    """``spark.read.format("cdcwire-events").option("mode", "PERMISSIVE").load(PATH)``."""

    @classmethod
    def name(cls) -> str:
        return "cdcwire-events"

    def _permissive(self) -> bool:
        mode = str(self.options.get("mode", "FAILFAST")).upper()
        if mode not in ("FAILFAST", "PERMISSIVE"):
            raise EventJSONError(f"option mode must be FAILFAST or PERMISSIVE, got {mode!r}")
        return mode == "PERMISSIVE"

    def schema(self):
        return PERMISSIVE_EVENT_SCHEMA if self._permissive() else EVENT_SCHEMA

    def reader(self, schema) -> EventLinesReader:
        path = self.options.get("path")
        if not path:
            raise EventJSONError("the cdcwire-events source needs a path: .load(PATH)")
        return EventLinesReader(path, self._permissive(), int(self.options.get("chunk-bytes", CHUNK_BYTES)))

