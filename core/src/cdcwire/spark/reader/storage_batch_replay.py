"""The replay of a storage layout with csv files read by the fast tier: the reference replay's
rules (:class:`cdcwire.transports.storage.replay.Replayer`) applied to a file's batch at once.

A file the fast tier takes gives one batch of its rows that the rules give; a file it refuses
(:mod:`cdcwire.spark.reader.storage_csv_batches`) is read by the reference tier and its events
go through the reference rules, on the same memory: each table's newest commit ts and the rows
given at it are kept as events (:class:`~cdcwire.transports.storage.replay.Dedup`), as the
reference replay keeps them, so the two kinds of file mix in any order.

The rules per batch, as the reference applies them row by row: rows past the checkpoint or at
or below ``after`` are left; a row below the newest commit ts given before it (of its table and
partition) is a replay; a row at that ts is a replay when an equal row was given at it, in an
earlier file (compared as events) or earlier in this file (compared by their typed values, one
group-by over the rows whose ts repeats).
"""

from __future__ import annotations

from typing import Iterator, Union

import numpy as np
import pyarrow as pa

from ...transports.storage.layout import DirItem
from ...transports.storage.replay import Dedup, PlacedEvent, Replayer, csv_file_events, item_specs
from ..rows.arrow_events import batch_to_events
from .storage_csv_batches import FileRows, csv_file_rows


class BatchReplayer(Replayer):
    """A :class:`Replayer` whose csv rows come as record batches (one per data file the fast
    tier takes) and as placed events (the files it does not).

    The rows given at a table's newest commit ts are kept as batches until a comparison needs
    them as events (a refused file, or a file whose rows start at that ts): building events
    is the costly part, and most reads never need them."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.unseen: dict[tuple, list[pa.RecordBatch]] = {}

    def _seen(self, key: tuple, dedup: Dedup) -> set:
        """``dedup.seen``, with the rows kept as batches for it made events."""
        for batch in self.unseen.pop(key, ()):
            dedup.seen.update(batch_to_events(batch))
        return dedup.seen

    def _rows(self, item: DirItem, checkpoint: int, after: int) -> Iterator[Union[PlacedEvent, pa.RecordBatch]]:
        if self.location.protocol != "csv":
            yield from super()._rows(item, checkpoint, after)
            return
        unread = self.unread(item, after)
        specs = item_specs(self.location, item)
        version, partition = item.directory.version, item.directory.partition
        for path in unread:
            data = self.location.storage.get(path)
            rows = csv_file_rows(data, path, specs, self.options, version, partition)
            if rows is None:
                for key in list(self.unseen):
                    self._seen(key, self.dedups[key])
                yield from self.replayed(csv_file_events(path, data, specs, self.options, version, partition),
                                         checkpoint, after)
                continue
            batch = self._given(rows, path, checkpoint, after)
            if batch.num_rows:
                yield batch
        self.mark_read(unread)

    def _given(self, rows: FileRows, path: str, checkpoint: int, after: int) -> pa.RecordBatch:
        """The rows of one file that the replay rules give, the memory updated as the reference's."""
        ts = rows.ts
        self.file_ts[path] = max(self.file_ts.get(path, -1), int(ts.max()))
        if not self.exact_ts:
            return rows.batch
        keep = ts <= np.uint64(checkpoint)
        if after >= 0:
            keep &= ts > np.uint64(after)
        at = np.flatnonzero(keep)
        if len(at) == 0:
            return rows.batch.slice(0, 0)
        key = (rows.schema, rows.table, rows.table_id)
        dedup = self.dedups.setdefault(key, Dedup())
        kept_ts = ts[at]
        newest = np.maximum.accumulate(kept_ts)
        before = np.concatenate(([kept_ts[0]], newest[:-1]))
        if dedup.ts >= 0:
            before = np.maximum(before, np.uint64(dedup.ts))
        stale = kept_ts < before
        if dedup.ts < 0:
            stale[0] = False
        at, kept_ts = at[~stale], kept_ts[~stale]
        at = at[~_repeated(rows, at, kept_ts)]
        kept_ts = ts[at]
        if dedup.ts >= 0:
            earlier = kept_ts == np.uint64(dedup.ts)
            if earlier.any():
                events = batch_to_events(rows.batch.take(pa.array(at[earlier])))
                given = self._seen(key, dedup)
                seen = np.array([e in given for e in events])
                drop = np.zeros(len(at), dtype=bool)
                drop[np.flatnonzero(earlier)[seen]] = True
                at, kept_ts = at[~drop], kept_ts[~drop]
        if len(at) == 0:
            return rows.batch.slice(0, 0)
        final = int(kept_ts.max())
        last = rows.batch.take(pa.array(at[kept_ts == np.uint64(final)]))
        if final > dedup.ts:
            dedup.ts, dedup.seen = final, set()
            self.unseen[key] = [last]
        else:
            self.unseen.setdefault(key, []).append(last)
        return rows.batch.take(pa.array(at))


def _repeated(rows: FileRows, at: np.ndarray, kept_ts: np.ndarray) -> np.ndarray:
    """Which of the rows ``at`` equal an earlier one of them at the same ts (those are replays)."""
    out = np.zeros(len(at), dtype=bool)
    if len(np.unique(kept_ts)) == len(kept_ts):
        return out
    keys = rows.keys.at(at)
    keys["row"] = pa.array(np.arange(len(at)))
    table = pa.table(keys)
    names = [n for n in keys if n != "row"]
    firsts = table.group_by(names, use_threads=False).aggregate([("row", "min")]).column("row_min")
    out[:] = True
    out[firsts.to_numpy()] = False
    return out
