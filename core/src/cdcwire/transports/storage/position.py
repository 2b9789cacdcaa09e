"""Where a read of a storage-sink layout stopped, so the next read lists the layout again and reads
only what is new: the checkpoint it read up to, and per data directory the last file it read.

A data directory is named by its index file's path (``app/users/200/2026-11-25/meta/CDC.index``:
one per table version, partition, date and writer), the place TiCDC itself names the
directory's last file in. Files are written whole before their index names them and are never
rewritten, so a later read starts at the last file read (its rows up to the old checkpoint are
already taken; rows past it, written since, are not) and at the first file of any new directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ...model.validation import U64_MAX


@dataclass(frozen=True, slots=True)
class LayoutPosition:
    """``checkpoint``: the ts read up to; ``files``: (index file path, index of the last data file
    read there), sorted by path."""

    checkpoint: int
    files: tuple[tuple[str, int], ...] = ()

    @classmethod
    def of(cls, checkpoint: int, files: Mapping[str, int]) -> "LayoutPosition":
        return cls(checkpoint, tuple(sorted(files.items())))

    def last_read(self) -> dict[str, int]:
        """Index file path -> the index of the last data file read under it."""
        return dict(self.files)

    def to_doc(self) -> dict[str, Any]:
        """The JSON document (a materialize state's ``layout`` field, a data source option)."""
        return {"checkpoint": self.checkpoint, "files": dict(self.files)}

    @classmethod
    def from_doc(cls, doc: Any) -> "LayoutPosition":
        """The position a document of :meth:`to_doc` holds; ValueError saying what is wrong."""
        if not isinstance(doc, dict) or set(doc) != {"checkpoint", "files"}:
            raise ValueError('not {"checkpoint": ts, "files": {index file path: last file index read}}')
        checkpoint, files = doc["checkpoint"], doc["files"]
        if type(checkpoint) is not int or not 0 <= checkpoint <= U64_MAX:
            raise ValueError(f"checkpoint {checkpoint!r} is not a ts (an integer 0..2^64-1)")
        if not isinstance(files, dict) or not all(
            isinstance(k, str) and k.endswith(".index") and type(v) is int and 0 <= v <= U64_MAX
            for k, v in files.items()
        ):
            raise ValueError("files is not an object of index file path: last file index read (an integer"
                             " 0..2^64-1)")
        return cls.of(checkpoint, files)

