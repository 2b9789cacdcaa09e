"""An incremental read of a long ``file://`` partition: its last 10%, without and with the offset index.

One partition of ``--records`` records (~500-byte values, as a canal-json message is): the
``watermarks()`` a run plans with, then a read of the last 10% from its offset, first with no
offset index (both walk every record from the start of the file), then after a whole read has
written the index (:mod:`cdcwire.transports.file.offset_index`). On a shared machine only the
ratio means something: the goal is a read that costs what it reads, not what lies before it.

    .venv/bin/python benchmarks/file_offset_seek.py [--records 275000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import cdcwire
from cdcwire import Message
from cdcwire.transports.file.offset_index import index_path
from cdcwire.transports.file.transport import FileReader


def last_tenth(directory: str, records: int) -> tuple[float, float]:
    """Seconds of watermarks() and of reading the last 10% of partition 0 from its offset."""
    reader = FileReader(directory)
    t = time.perf_counter()
    high = reader.watermarks("o", 0)[1]
    marks = time.perf_counter() - t
    t = time.perf_counter()
    read = sum(1 for _ in reader.read("o", 0, high - records // 10, high))
    assert read == records // 10
    return marks, time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=275_000, help="records in the partition (1M events over 4 partitions: ~275k)")
    records = parser.parse_args().records
    directory = tempfile.mkdtemp()
    try:
        uri = f"file://{directory}/o?protocol=canal-json&partition-num=1"
        cdcwire.write(uri, (Message("o", 0, b"k%d" % i, os.urandom(250).hex().encode()) for i in range(records)))
        walk = last_tenth(directory, records)
        index_path(directory, "o", 0).unlink(missing_ok=True)  # the walk above wrote entries up to where it read
        sum(1 for _ in FileReader(directory).read("o", 0))  # a first run's whole read writes the index
        indexed = last_tenth(directory, records)
        print(f"{records:,} records; reading the last {records // 10:,}:")
        for label, (marks, read) in (("walk from the start", walk), ("offset index", indexed)):
            print(f"  {label:<20} watermarks {marks:7.3f}s  read {read:7.3f}s  total {marks + read:7.3f}s")
        print(f"  the index's total is {sum(indexed) / sum(walk):.3f}x the walk's")
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    main()
