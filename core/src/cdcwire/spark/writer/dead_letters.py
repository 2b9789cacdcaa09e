"""Dead letters: records a write cannot take, each kept with its reason and place, so that the
rest of the job proceeds (without a dead-letter directory the first fails the job instead).

Where they come from: the routing stage rejects malformed records and events the dispatch
rules cannot place (:class:`RejectedRecords`); the encoding stage refuses events the encoder
cannot carry, a row over ``max-message-bytes`` or a value the protocol cannot hold
(:class:`RefusedEvents`, :func:`encode_refusing`). The place is the record's source
(``events.jsonl:17``, ``topic/partition/offset``) when the input knows it, else the input
row's sequence number (:func:`input_row`).

How they are written: executors write JSON Lines to ``DIR/part-<stage>-<write>-<partition>.jsonl``:
``{"source": "events.jsonl:17", "reason": "...", "record": "<the raw text or event JSON>"}``.
A Spark task may run more than once (a retry, a recomputed stage, a speculative
copy), so a task writes to a hidden temporary file and renames it to the name
keyed by its partition only once its input is done: the name then holds exactly
one attempt's records, a later attempt replaces them rather than adding to them,
and a failed attempt leaves only a temporary file, which readers skip
(:func:`read_dead_letters`, ``cs.read_dead_letters``).

Refused events: an encoder is a generator over one topic-partition's events, and an
``EncodeError`` ends it, together with the events it had taken but not yet put into a
message. So the stream keeps the events taken and not yet carried (a payload says how
many it carries, in order); after a refusal each of those is tried alone, the ones
refused alone are dead-lettered, and a fresh encoder takes the others again, in their
order, followed by the rest of the stream. A failure that no event explains alone (none
of them is refused by itself) is raised: dead-lettering is for events, not for a codec's
trouble.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
from collections import deque
from decimal import Decimal
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator, Optional

import pyarrow as pa

from ...api.codec_calls import encoder_for
from ...foundation.errors import CdcwireError, EncodeError
from ...model.event_json import to_json
from ...model.events import Event, ResolvedEvent
from ...model.message import Payload
from ...sinks.sink import Sink


class DeadLetterWriter:
    """One task attempt's dead letters. Opened lazily: a task with nothing to dead-letter
    writes nothing. ``publish()`` once the task's input is done; ``discard()`` on failure."""

    def __init__(self, directory: str, name: str, attempt: int) -> None:
        self.path = Path(directory) / name
        self.temporary = Path(directory) / f".{name}.{attempt}.tmp"
        self._file: Optional[IO[str]] = None
        self.count = 0

    def write(self, source: str, reason: str, record: str) -> None:
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.temporary, "w", encoding="utf-8")
        self._file.write(json.dumps({"source": source, "reason": reason, "record": record}, ensure_ascii=False))
        self._file.write("\n")
        self.count += 1

    def publish(self) -> None:
        """Make this attempt's records the partition's dead letters (none: remove an earlier attempt's)."""
        if self._file is None:
            self.path.unlink(missing_ok=True)
            return
        self._close()
        os.replace(self.temporary, self.path)

    def discard(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self.temporary.unlink(missing_ok=True)

    def _close(self) -> None:
        assert self._file is not None
        self._file.flush()
        os.fsync(self._file.fileno())
        self._file.close()
        self._file = None


def read_dead_letters(directory: str | Path) -> Iterator[dict]:
    """Every dead-lettered record under ``directory`` (temporary files of unfinished attempts skipped)."""
    for path in sorted(Path(directory).glob("part-*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)


_ROW_BITS = 33  # monotonically_increasing_id: input partition index above bit 33, row number below


def input_row(seq: int) -> str:
    """Where a row with no known source is, from its ``_cdc_seq``."""
    return f"input row {seq} (input partition {seq >> _ROW_BITS}, row {seq & ((1 << _ROW_BITS) - 1)})"


def row_text(batch: pa.RecordBatch, row: int) -> str:
    """A row of an event batch as JSON text: the record of a row that is not an event."""
    return json.dumps(batch.slice(row, 1).to_pylist()[0], default=_plain, ensure_ascii=False)


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return str(value)


class RejectedRecords:
    """One routing task's rejected records; ``count`` of those dead-lettered."""

    def __init__(self, dead_letter: Optional[DeadLetterWriter]) -> None:
        self.dead_letter = dead_letter
        self.count = 0

    @classmethod
    def for_task(cls, directory: Optional[str], write_id: str, task: Any) -> "RejectedRecords":
        """``task``: the TaskContext (None outside Spark). The file is named by the write and the
        task's partition, so that any attempt of the task writes the same name."""
        if not directory:
            return cls(None)
        partition = task.partitionId() if task is not None else 0
        attempt = task.taskAttemptId() if task is not None else 0
        return cls(DeadLetterWriter(directory, f"part-route-{write_id}-{partition:05d}.jsonl", attempt))

    def take(self, source: str, reason: str, record: str, failure: str) -> None:
        """Dead-letter the record, or raise ``failure`` when there is no dead-letter path."""
        if self.dead_letter is None:
            raise CdcwireError(failure)
        self.dead_letter.write(source, reason, record)
        self.count += 1

    def publish(self) -> None:
        if self.dead_letter is not None:
            self.dead_letter.publish()

    def discard(self) -> None:
        if self.dead_letter is not None:
            self.dead_letter.discard()


#: ``(input row, event, error)`` of a refused event copy: dead-letter it, or raise.
Refuse = Callable[[int, Event, EncodeError], None]


def encode_refusing(
    sink: Sink,
    topic: str,
    partition: int,
    events: Iterable[tuple[int, Event]],
    refuse: Optional[Refuse],
) -> Iterator[Payload]:
    """The payloads of one topic-partition's ``(input row, event)`` stream, in order; an event the
    encoder refuses goes to ``refuse`` (None: the ``EncodeError`` propagates)."""
    if refuse is None:
        yield from encoder_for(sink, topic, partition).encode(event for _, event in events)
        return
    source = iter(events)
    replay: list[tuple[int, Event]] = []
    while True:
        taken: deque[tuple[int, Event]] = deque()  # fed to the encoder, not yet in a yielded payload
        fed = _feed(itertools.chain(replay, source), taken)
        try:
            for payload in encoder_for(sink, topic, partition).encode(fed):
                for _ in range(min(payload.events, len(taken))):
                    taken.popleft()
                yield payload
            return
        except EncodeError as exc:
            failure = exc
        replay = []
        for seq, event in taken:
            try:
                for _ in encoder_for(sink, topic, partition).encode([event]):
                    pass
            except EncodeError as exc:
                refuse(seq, event, exc)
                continue
            replay.append((seq, event))
        if len(replay) == len(taken):
            raise failure  # no event of the failed message is refused alone: not an event's fault


def _feed(items: Iterator[tuple[int, Event]], taken: deque[tuple[int, Event]]) -> Iterator[Event]:
    for item in items:
        taken.append(item)
        yield item[1]


class RefusedEvents:
    """One encoding task's refused event copies: dead-lettered (``rows``: their input rows), or
    raised when the write has no dead-letter directory."""

    def __init__(self, dead_letter: Optional[DeadLetterWriter]) -> None:
        self.dead_letter = dead_letter
        self.rows: list[int] = []

    @classmethod
    def for_task(cls, directory: Optional[str], write_id: str, task: Any) -> "RefusedEvents":
        """``task``: the TaskContext (None outside Spark); every attempt of a task writes one name."""
        if not directory:
            return cls(None)
        partition = task.partitionId() if task is not None else 0
        attempt = task.taskAttemptId() if task is not None else 0
        return cls(DeadLetterWriter(directory, f"part-encode-{write_id}-{partition:05d}.jsonl", attempt))

    def refuser(self, topic: str, partition: int) -> Optional[Refuse]:
        """What :func:`encode_refusing` calls for a refused event of this topic-partition."""
        if self.dead_letter is None:
            return None
        writer = self.dead_letter

        def refuse(seq: int, event: Event, exc: EncodeError) -> None:
            reason = f"cannot encode it for {topic}/{partition}: {exc}"
            writer.write(f"{input_row(seq)}, {_place(event)}", reason, to_json(event))
            self.rows.append(seq)

        return refuse

    def publish(self) -> None:
        if self.dead_letter is not None:
            self.dead_letter.publish()

    def discard(self) -> None:
        if self.dead_letter is not None:
            self.dead_letter.discard()


def _place(event: Event) -> str:
    if isinstance(event, ResolvedEvent):
        return f"resolved@{event.ts}"
    return f"{event.schema}.{event.table}@{event.commit_ts}"
