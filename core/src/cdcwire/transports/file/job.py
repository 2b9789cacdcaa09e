"""``FileTransport.begin_write``: one all-or-nothing write spread over many tasks.

The driver's :class:`FileWriteJob` owns a staging area ``DIR/.cdcwire/staging/<job>``
(see :mod:`.staging`: publish or discard removes it, from any copy of the job; a
driver lost before either leaves garbage that later writers sweep once it is idle).
Each task writer stages into its own fresh attempt directory inside it and, on close,
hands back a receipt naming the attempt and the size of every file it staged.
``publish(receipts)`` publishes exactly those attempts through :mod:`.publish`
(all partitions at once, under their locks); attempts that failed or were retried are
never named, and go with the job's area. A task writer refuses a message for a partition
outside its topic's count (:mod:`.topics`) before staging it; the publish records
the count of a topic that has none.
"""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path
from typing import Optional, Sequence

from ...foundation.errors import TransportError
from ...model.message import Message
from ...foundation.redact import redact_url
from ...contract.transport import MessageWriter, StagedRun, WriteJob
from .framing import frame
from .locks import Key, PartitionLocks
from .paths import SUFFIX, os_errors, partition_number, partition_path, topic_dir
from .publish import Plan, publish, recover
from .staging import StagedFiles, StagingOwner, remove_area, staging_dir, sweep
from .topics import topic_count


class FileTaskWriter(MessageWriter):
    """Stages one task attempt's messages; ``receipt`` (set by ``close()``) says what it staged."""

    def __init__(self, directory: str, job: str, partition_num: Optional[int] = None) -> None:
        self.directory = directory
        self.job = job
        self.partition_num = partition_num
        self.attempt = uuid.uuid4().hex
        self._staged: Optional[StagedFiles] = None
        self._counts: dict[str, int] = {}
        self._allowed: set[Key] = set()

    def _files(self) -> StagedFiles:
        if self._staged is None:
            area = staging_dir(self.directory) / self.job / self.attempt
            try:
                area.mkdir()
            except FileNotFoundError:
                raise TransportError(
                    f"the staging area of write job {self.job} under {self.directory} is gone"
                    " (the job was published or discarded, or its driver ended)"
                ) from None
            except OSError as exc:
                raise TransportError(f"cannot stage under {area}: {exc.strerror or exc}") from None
            self._staged = StagedFiles(self.directory, area)
        return self._staged

    def _allow(self, key: Key) -> None:
        """First message for ``key``: refuse a partition outside the topic's count, before staging."""
        topic, partition = key
        partition_path(self.directory, topic, partition)  # a topic or partition that cannot be a file
        count = self._counts.get(topic)
        if count is None or partition >= count:
            with os_errors(f"cannot write {topic}/{partition} under {self.directory}"):
                known = topic_count(self.directory, topic, self.partition_num)
            self._counts[topic] = known.count
            if partition >= known.count:
                raise known.refuse(topic, partition, self.directory)
        self._allowed.add(key)

    def write(self, message: Message) -> None:
        key = (message.topic, message.partition)
        if key not in self._allowed:
            self._allow(key)
        self._files().write(message.topic, message.partition, frame(message.key, message.value))

    def write_values(self, topic: str, partition: int, values: Sequence[bytes]) -> None:
        """The run framed at once and staged in one write (see MessageWriter.write_values)."""
        if (topic, partition) not in self._allowed:
            self._allow((topic, partition))
        self._files().write(topic, partition, b"".join([frame(None, value) for value in values]))

    def take_staged(self, run: StagedRun) -> None:
        """A run framed and staged by Spark's Java tier (see StagedRun): its partition is checked
        as a message's is, then segment 0 is adopted as this writer's attempt and file, and a
        later segment appended to its file."""
        key = (run.topic, run.partition)
        if key not in self._allowed:
            self._allow(key)
        area = staging_dir(self.directory) / self.job / run.attempt
        if run.segment == 0:
            if self._staged is None:
                self.attempt = run.attempt
                self._staged = StagedFiles(self.directory, area)
            elif self.attempt != run.attempt:
                raise TransportError(f"{run} comes after this task writer staged attempt {self.attempt}")
            self._staged.adopt(key, run.size)
        else:
            self._files().append_piece(key, area / f".java-{run.segment}" / run.topic / f"{run.partition}{SUFFIX}", run.size)

    def flush(self) -> None:
        if self._staged is not None:
            self._staged.flush()

    def close(self) -> None:
        files = []
        if self._staged is not None:
            self._staged.close()
            files = [[t, p, self._staged.sizes[(t, p)]] for t, p in self._staged.keys()]
            self._staged = None  # closed: its files now belong to the receipt (an abort leaves them)
        self.receipt = json.dumps({"job": self.job, "attempt": self.attempt, "files": files})

    def abort(self) -> None:
        """Close and remove this attempt's staged files: no receipt will ever name them."""
        if self._staged is not None:
            staged, self._staged = self._staged, None
            try:
                staged.abort()
            finally:
                shutil.rmtree(staged.area, ignore_errors=True)


class FileWriteJob(WriteJob):
    """See the module docstring. Picklable: it carries the URI, the directory and the job id."""

    all_or_nothing = True

    def __init__(
        self, sink_uri: str, directory: str, overwrite: bool = False, partition_num: Optional[int] = None
    ) -> None:
        self.sink_uri = sink_uri
        self.directory = directory
        self.overwrite = overwrite
        #: The URI's ``partition-num`` (None: not given): the count a topic without one gets.
        self.partition_num = partition_num
        self.job = f"job-{uuid.uuid4().hex}"
        with os_errors(f"cannot begin a write to {directory}"):
            Path(directory).mkdir(parents=True, exist_ok=True)
            sweep(directory)
            recover(Path(directory), PartitionLocks(directory))
            self._owner: Optional[StagingOwner] = StagingOwner(directory, self.job)

    def __getstate__(self) -> dict:
        names = ("sink_uri", "directory", "overwrite", "partition_num", "job")
        return {name: self.__dict__[name] for name in names}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update({"partition_num": None, **state})
        self._owner = None  # the driver's copy owns the staging area

    def __repr__(self) -> str:
        mode = ", overwrite" if self.overwrite else ""
        return f"FileWriteJob({redact_url(self.sink_uri)!r}, {self.job}{mode})"

    def task_writer(self) -> FileTaskWriter:
        return FileTaskWriter(self.directory, self.job, self.partition_num)

    def staging_area(self) -> str:
        """The job's staging area: each task attempt stages in a fresh directory inside it."""
        return str(staging_dir(self.directory) / self.job)

    def _plan(self, receipts: Sequence[str]) -> Plan:
        plan = Plan(overwrite=self.overwrite, partition_num=self.partition_num)
        area = staging_dir(self.directory) / self.job
        for receipt in receipts:
            try:
                r = json.loads(receipt)
                attempt, files = r["attempt"], r["files"]
                if r["job"] != self.job:
                    raise ValueError(f"it belongs to job {r['job']}")
            except (ValueError, KeyError, TypeError) as exc:
                raise TransportError(
                    f"{self!r}: a receipt it cannot use ({exc}): {receipt[:200]!r}"
                ) from None
            staged = StagedFiles(self.directory, area / attempt)
            for topic, partition, size in files:
                path = staged.path((topic, partition))
                actual = path.stat().st_size if path.exists() else None
                if actual != size:
                    raise TransportError(
                        f"{self!r}: staged file {path} holds {actual} bytes, its task wrote {size};"
                        " nothing was published"
                    )
                plan.sources.setdefault((topic, partition), []).append(path)
        if self.overwrite:
            for topic in sorted({t for t, _ in plan.sources}):
                d = topic_dir(self.directory, topic)
                existing = [partition_number(p) for p in d.iterdir()] if d.is_dir() else []
                plan.remove += [
                    (topic, p) for p in existing if p is not None and (topic, p) not in plan.sources
                ]
        return plan

    def publish(self, receipts: Sequence[str]) -> None:
        locks = PartitionLocks(self.directory)
        try:
            with os_errors(f"cannot publish to {self.directory}"):
                plan = self._plan(receipts)
                locks.acquire_all(plan.keys())
                publish(self.directory, plan, locks)
        finally:
            locks.release_all()
        self.discard()

    def discard(self) -> None:
        if self._owner is not None:
            self._owner.remove()
            self._owner = None
        else:  # a copy (Spark may commit or abort in another process than the one that began)
            remove_area(self.directory, self.job)
