"""A write that runs out of room fails in one line, publishes nothing and gives back what it
took: its locks, its staged files, a claim-check object written aside. The next write works.

The small disk is a 2 MiB tmpfs the test mounts (it runs as root); where mounting is not
allowed, a 2 MiB file-size limit (``RLIMIT_FSIZE``, with ``SIGXFSZ`` ignored) stands in.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Message, TransportError
from cdcwire.large_messages.storage import Storage, StorageError
from cdcwire.sinks.sink import open_sink
from cdcwire.transports.file.paths import internal_dir

SMALL = 2 * 1024 * 1024
TOO_BIG = b"x" * (3 * 1000 * 1000)


@pytest.fixture
def small_disk():
    """A directory on which at most 2 MiB can be written; unmounted (or unlimited) after."""
    mount = Path(tempfile.mkdtemp(prefix="cdcwire-small-disk-"))
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SMALL}", "tmpfs", str(mount)], capture_output=True
    ).returncode == 0
    if mounted:
        try:
            yield mount
        finally:
            # lazily: a test that failed may still hold a file open there (a lock it leaked)
            subprocess.run(["umount", "-l", str(mount)], check=True)
            mount.rmdir()
        return
    limits = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (SMALL, limits[1]))
    try:
        yield mount
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, limits)
        signal.signal(signal.SIGXFSZ, handler)
        subprocess.run(["rm", "-rf", str(mount)], check=True)


def uri(disk: Path) -> str:
    return f"file://{disk}/sink/orders?protocol=echo-json&partition-num=2"


def leftovers(disk: Path) -> list[str]:
    """Every file under the sink's staging area and journal (what a failed write must not leave)."""
    found = []
    for part in ("staging", "journal"):
        root = internal_dir(disk / "sink", part)
        found += [str(p) for p in root.rglob("*") if p.is_file()] if root.is_dir() else []
    return found


def test_a_write_that_fills_the_disk_fails_in_one_line_saying_nothing_was_published(small_disk):
    with pytest.raises(TransportError) as failed:
        cdcwire.write(uri(small_disk), [Message("orders", 0, None, TOO_BIG)])
    text = str(failed.value)
    assert "\n" not in text and "orders/0" in text and text.endswith("nothing was published")
    assert os.strerror(28) in text or os.strerror(27) in text  # no space / file too large


def test_a_write_that_fills_the_disk_leaves_no_staged_files(small_disk):
    with pytest.raises(TransportError):
        cdcwire.write(uri(small_disk), [Message("orders", 0, None, b"small"), Message("orders", 1, None, TOO_BIG)])
    assert leftovers(small_disk) == []
    assert not (small_disk / "sink" / "orders").exists()  # not even the topic: nothing was published


def test_the_next_write_after_a_full_disk_works(small_disk):
    with pytest.raises(TransportError):
        cdcwire.write(uri(small_disk), [Message("orders", 0, None, b"y" * 1000)] * 3000)
    assert cdcwire.write(uri(small_disk), [Message("orders", 0, None, b"fits")]) == 1
    assert [m.value for m in cdcwire.read(uri(small_disk))] == [b"fits"]


def test_a_task_writer_that_fills_the_disk_removes_its_attempt(small_disk):
    sink = open_sink(uri(small_disk))
    job = sink.needs_transport().begin_write(sink.config, uri(small_disk))
    writer = job.task_writer()
    with pytest.raises(TransportError, match="nothing was published"):
        with writer:
            writer.write(Message("orders", 0, None, TOO_BIG))
    assert leftovers(small_disk) == [str(internal_dir(small_disk / "sink", "staging") / f"{job.job}.lock")]
    job.discard()
    assert leftovers(small_disk) == []


def test_a_claim_check_object_that_does_not_fit_leaves_no_file_behind(small_disk):
    storage = Storage.parse(f"file://{small_disk}/claim-check")
    with pytest.raises(StorageError, match="cannot write big.json"):
        storage.put("big.json", TOO_BIG)
    assert list((small_disk / "claim-check").iterdir()) == []
    storage.put("small.json", b"fits")
    assert storage.get("small.json") == b"fits"
