"""Events the encoder refuses (a row over ``max-message-bytes``, a value the protocol cannot carry):
with a dead-letter directory each goes there with its reason and place, and its partition goes on.

An encoder is a generator over one topic-partition's events, and an ``EncodeError``
ends it, together with the events it had taken but not yet put into a message. So
the stream keeps the events taken and not yet carried (a payload says how many it
carries, in order); after a refusal each of those is tried alone, the ones refused
alone are dead-lettered, and a fresh encoder takes the others again, in their order,
followed by the rest of the stream. A failure that no event explains alone (none of
them is refused by itself) is raised: dead-lettering is for events, not for a codec's
trouble.

Without a dead-letter directory the first refusal fails the job, as before.
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any, Callable, Iterable, Iterator, Optional

from ...codec_calls import encoder_for
from ...errors import EncodeError
from ...event_json import to_json
from ...events import Event, ResolvedEvent
from ...message import Payload
from ...sink import Sink
from .dead_letter import DeadLetterWriter
from .rejected import input_row

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
