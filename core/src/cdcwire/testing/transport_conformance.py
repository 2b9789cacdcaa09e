"""A conformance kit any transport can run, beside the codec one: subclass ``TransportConformance``.

A transport author gives the kit a *sink factory*: a callable that returns a fresh sink
URI (a topic no check has used yet) each time it is called. The kit adds the
parameters it needs (``partition-num``, so the URI must not set it) and checks what
every transport promises through :class:`cdcwire.contract.transport.Transport`:

    import uuid

    import pytest

    from cdcwire.testing.transport_conformance import TransportConformance

    class TestMyTransport(TransportConformance):
        fixed_size_topics = True     # declarations: see TransportConformance

        @pytest.fixture
        def new_sink_uri(self, my_server):
            return lambda: f"mine://{my_server.address}/t-{uuid.uuid4().hex}?protocol=open-protocol"

The transport's plugin must be installed (the kit parses the URIs as users do), and the
protocol in the URI any installed codec: the kit writes and reads raw messages.

Each check is also a plain function, ``check_<behaviour>(new_sink_uri, ...)``, that
raises AssertionError (or the transport's own unexpected exception) when the
transport breaks it, so a project on another test runner calls them directly.

What is checked: messages written to a topic-partition read back in order with keys
and values intact (empty, None, every byte value, 64 KiB); a later write appends;
watermarks bound what was written and a read between them gives exactly those
messages, even after more are written; a read ends at the high watermark of the call;
``prepare_topic`` gives the ``partition-num`` asked for and an existing topic keeps its
count; writes to a partition outside the count are refused with a CdcwireError; a write
job publishes what its task writers wrote, only the attempts it is given, and a
discarded job or a failed writer leaves what the transport declares
(:attr:`cdcwire.contract.transport.WriteJob.all_or_nothing`: nothing, or what was delivered);
reading a missing topic is a CdcwireError naming it, or empty, as declared.

Checks that only mean something for one transport are separate functions, not part of
the class: ``check_file_*`` (torn tails of the ``file://`` framing) take a ``file://``
sink factory.
"""

from __future__ import annotations

import pickle
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, ClassVar, Iterator, Literal, Optional, Sequence, TypeVar

import pytest

from ..foundation.errors import CdcwireError, SinkURIError
from ..model.message import Message
from ..sinks.sink import Sink, open_sink
from ..uris.sink_uri import split_sink_uri
from ..contract.transport import MessageReader, MessageWriter, WriteJob

__all__ = [
    "MissingTopic",
    "SinkFactory",
    "TransportConformance",
    "check_a_discarded_job_leaves_what_the_transport_declares",
    "check_a_failed_writer_leaves_what_the_transport_declares",
    "check_a_job_publishes_only_the_attempts_it_is_given",
    "check_a_job_publishes_what_its_task_writers_wrote",
    "check_a_later_write_appends_after_the_first",
    "check_a_read_between_watermarks_gives_exactly_those_messages",
    "check_a_read_ends_at_the_high_watermark_of_the_call",
    "check_an_existing_topic_keeps_its_partition_count",
    "check_file_an_incomplete_last_record_is_never_read_as_a_message",
    "check_file_the_next_write_cuts_an_incomplete_last_record",
    "check_messages_read_back_in_order_with_keys_and_values_intact",
    "check_prepare_topic_gives_a_new_topic_the_partition_num_asked_for",
    "check_reading_a_missing_topic_is_a_clear_error_or_empty",
    "check_watermarks_bound_what_was_written",
    "check_writes_outside_the_partition_count_are_refused",
    "sample_messages",
    "TornTail",
]

#: Returns a sink URI with a topic no check has used (``partition-num`` not set: the kit sets it).
SinkFactory = Callable[[], str]
#: What reading a topic that does not exist gives: a CdcwireError naming it, or nothing.
MissingTopic = Literal["error", "empty"]

E = TypeVar("E", bound=BaseException)


# -- helpers ---------------------------------------------------------------------------------


def fresh_sink(new_sink_uri: SinkFactory, **params: object) -> tuple[str, Sink]:
    """A fresh sink from the factory: its URI as the factory gave it (to come back to the
    same topic with other parameters) and the sink with ``params`` added."""
    base = new_sink_uri()
    return base, with_params(base, **params)


def with_params(uri: str, **params: object) -> Sink:
    """``uri`` with ``params`` added (``partition_num=2`` adds ``partition-num=2``), parsed.
    The factory's URI must not set them itself: the check would not test what it says."""
    names = [name.replace("_", "-") for name in params]
    clash = [n for n in names if n in split_sink_uri(uri).query]
    if clash:
        raise AssertionError(f"the sink factory's URI sets {clash}: leave them to the conformance kit")
    shown = [str(v).lower() if isinstance(v, bool) else str(v) for v in params.values()]
    query = "&".join(f"{n}={v}" for n, v in zip(names, shown))
    return open_sink(uri if not query else f"{uri}{'&' if '?' in uri else '?'}{query}")


def refused(action: Callable[[], object], doing: str, kind: type[E]) -> E:
    """The ``kind`` error ``action`` raises; AssertionError when it raises nothing. Any other
    exception goes through: a transport's error must be a cdcwire error, not a crash."""
    try:
        action()
    except kind as exc:
        return exc
    raise AssertionError(f"{doing}: expected {kind.__name__}, nothing was raised")


def write(sink: Sink, messages: Sequence[Message]) -> None:
    """Write through one writer, closed (flushed, published) when the block ends."""
    with sink.transport.writer(sink.config) as writer:
        assert writer.write_all(messages) == len(messages), "write_all counts what it wrote"


@contextmanager
def reading(sink: Sink) -> Iterator[MessageReader]:
    reader = sink.transport.reader(sink.config)
    try:
        yield reader
    finally:
        reader.close()


def read(
    sink: Sink, partition: int, start: Optional[int] = None, end: Optional[int] = None
) -> list[Message]:
    with reading(sink) as reader:
        return list(reader.read(sink.topic, partition, start, end))


def held(sink: Sink) -> dict[int, list[Message]]:
    """Every message the topic holds, by partition; {} for a topic that does not exist."""
    with reading(sink) as reader:
        try:
            partitions = reader.partitions(sink.topic)
        except CdcwireError as exc:
            # Only "no such topic" means nothing is held; any other error fails the check.
            if sink.topic not in str(exc):
                raise
            return {}
        return {p: list(reader.read(sink.topic, p)) for p in partitions}


def pairs(messages: Sequence[Message]) -> list[tuple[Optional[bytes], Optional[bytes]]]:
    return [(m.key, m.value) for m in messages]


def values(messages: Sequence[Message]) -> list[Optional[bytes]]:
    return [m.value for m in messages]


def first_seen(items: Sequence[Optional[bytes]]) -> list[Optional[bytes]]:
    """``items`` without repeats, in order of first occurrence: what an at-least-once
    transport must deliver, where a retry may have sent some twice."""
    return list(dict.fromkeys(items))


def numbered(topic: str, partition: int, count: int, label: str = "m") -> list[Message]:
    """``count`` messages whose values name them, so order and provenance can be checked."""
    return [
        Message(topic, partition, b"k%d" % (i % 3), f"{label}-{partition}-{i}".encode()) for i in range(count)
    ]


def sample_messages(
    topic: str, partition: int, none_key: bool = True, none_value: bool = True
) -> list[Message]:
    """Keys and values a transport must carry unchanged: empty bytes, None (where the
    transport keeps it apart from empty), every byte value, a file magic inside a value,
    64 KiB; numbered ones in between so order shows."""
    big = bytes((i * 131 + 7) % 256 for i in range(64 * 1024))
    kv: list[tuple[Optional[bytes], Optional[bytes]]] = [
        (b"first", b"value 0"),
        (b"", b""),
        (None if none_key else b"k", b"no key"),
        (b"tombstone", None if none_value else b"v"),
        (None if none_key else b"", None if none_value else b""),
        (bytes(range(256)), bytes(range(255, -1, -1))),
        (b"\x00", b"\x00\xff\x00\r\n"),
        (b"magic", b"CDCWIRE1\x00\x00\x00\x01\x00\x00\x00\x01"),
        (b"big", big),
    ]
    kv += [(b"n%d" % i, b"numbered %d" % i) for i in range(12)]
    return [Message(topic, partition, k, v) for k, v in kv]


def check_offsets(got: Sequence[Message], first: int, doing: str) -> None:
    offsets = [m.offset for m in got]
    assert offsets == list(range(first, first + len(got))), f"{doing}: offsets {offsets} run on from {first}"


def begin(sink: Sink) -> WriteJob:
    job = sink.transport.begin_write(sink.config, sink.config.uri)
    assert isinstance(job.all_or_nothing, bool), "WriteJob.all_or_nothing declares how a failed job ends"
    return job


def task_write(job: WriteJob, messages: Sequence[Message]) -> str:
    """One task's attempt: write through a task writer, close it, hand back its receipt."""
    writer: MessageWriter = job.task_writer()
    try:
        writer.write_all(messages)
    except BaseException:
        writer.abort()
        raise
    writer.close()
    assert isinstance(writer.receipt, str), "a task writer's receipt is a str"
    return writer.receipt


# -- write and read back ---------------------------------------------------------------------


def check_messages_read_back_in_order_with_keys_and_values_intact(
    new_sink_uri: SinkFactory, none_key: bool = True, none_value: bool = True
) -> None:
    """Two partitions written interleaved read back each in its order, every key and value
    byte for byte (None kept apart from empty where declared), with topic, partition and
    offsets that rise one by one."""
    _, sink = fresh_sink(new_sink_uri, partition_num=2)
    topic = sink.topic
    per = {p: sample_messages(topic, p, none_key, none_value) for p in (0, 1)}
    interleaved = [m for pair in zip(per[0], per[1]) for m in pair]
    write(sink, interleaved)
    with reading(sink) as reader:
        assert set(reader.partitions(topic)) >= {0, 1}, f"partitions of {topic} after writing 0 and 1"
        listed = reader.topics()
        assert not listed or topic in listed, f"topics() lists others but not {topic}"
        for p in (0, 1):
            got = list(reader.read(topic, p))
            assert pairs(got) == pairs(per[p]), f"{topic}/{p}: keys and values read back"
            assert {(m.topic, m.partition) for m in got} == {(topic, p)}
            first = got[0].offset
            assert isinstance(first, int), f"{topic}/{p}: a message read back has its offset"
            check_offsets(got, first, f"{topic}/{p}")


def check_a_later_write_appends_after_the_first(new_sink_uri: SinkFactory) -> None:
    """A second writer's messages follow the first's, offsets running on: a log, not a file
    replaced."""
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    first, second = numbered(sink.topic, 0, 5, "first"), numbered(sink.topic, 0, 4, "second")
    write(sink, first)
    write(sink, second)
    got = read(sink, 0)
    assert values(got) == values(first + second), "the second write comes after the first"
    check_offsets(got, got[0].offset or 0, f"{sink.topic}/0")


# -- watermarks and bounded reads --------------------------------------------------------------


def check_watermarks_bound_what_was_written(new_sink_uri: SinkFactory) -> None:
    """On a fresh topic ``high - low`` is the number of messages written, the messages read
    have exactly the offsets in [low, high), and a later write moves ``high`` by its count
    and leaves ``low``."""
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    topic = sink.topic
    write(sink, numbered(topic, 0, 7))
    with reading(sink) as reader:
        low, high = reader.watermarks(topic, 0)
        assert all(type(w) is int for w in (low, high)), f"watermarks are ints, got {(low, high)!r}"
        assert 0 <= low <= high and high - low == 7, f"{topic}/0 after 7 messages: {(low, high)}"
        assert [m.offset for m in reader.read(topic, 0)] == list(range(low, high))
    write(sink, numbered(topic, 0, 4, "more"))
    with reading(sink) as reader:
        assert reader.watermarks(topic, 0) == (low, high + 4), "4 more messages move high by 4"


def check_a_read_between_watermarks_gives_exactly_those_messages(new_sink_uri: SinkFactory) -> None:
    """``read(topic, p, low, high)`` keeps giving the messages that were there when the
    watermarks were taken, whatever was written since; ``start``/``end`` cut where asked,
    an ``end`` past the data is cut to it, and reading on from ``high`` gives the rest."""
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    topic = sink.topic
    before, after = numbered(topic, 0, 6, "before"), numbered(topic, 0, 3, "after")
    write(sink, before)
    with reading(sink) as reader:
        low, high = reader.watermarks(topic, 0)
    write(sink, after)
    with reading(sink) as reader:
        assert values(reader.read(topic, 0, low, high)) == values(before), "[low, high) as it was"
        assert values(reader.read(topic, 0, low + 1, low + 3)) == values(before[1:3]), "a slice"
        assert values(reader.read(topic, 0, high)) == values(after), "from high on: what came since"
        assert values(reader.read(topic, 0, low, high + 1000)) == values(before + after), "end cut"
        assert values(reader.read(topic, 0, None)) == values(before + after), "start None: the earliest"
        assert list(reader.read(topic, 0, high + 3)) == [], "from the end: nothing, without waiting"


def check_a_read_ends_at_the_high_watermark_of_the_call(new_sink_uri: SinkFactory) -> None:
    """``read(topic, p)`` with no ``end`` stops at the high watermark of the call, as
    :class:`cdcwire.contract.transport.MessageReader` promises: messages written between the call and
    consuming its result are not part of it."""
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    topic = sink.topic
    before = numbered(topic, 0, 4, "before")
    write(sink, before)
    with reading(sink) as reader:
        pending = reader.read(topic, 0)
        write(sink, numbered(topic, 0, 2, "after the call"))
        assert values(list(pending)) == values(before), "the read ends where the partition ended at the call"


# -- partition counts --------------------------------------------------------------------------


def check_prepare_topic_gives_a_new_topic_the_partition_num_asked_for(
    new_sink_uri: SinkFactory, fixed_size_topics: bool
) -> None:
    """A new topic gets ``partition-num`` partitions (the default one when the URI gives
    none) and a writer can use the last of them; a fixed-size transport has created them,
    each empty, before anything is written."""
    _, sink = fresh_sink(new_sink_uri, partition_num=4)
    topic, transport = sink.topic, sink.transport
    assert transport.prepare_topic(sink.config, topic) == 4, "partition-num=4 for a new topic"
    if fixed_size_topics:
        assert transport.partition_count(sink.config, topic) == 4, "prepare_topic created 4 partitions"
        with reading(sink) as reader:
            assert reader.partitions(topic) == [0, 1, 2, 3]
            for p in range(4):
                low, high = reader.watermarks(topic, p)
                assert low == high, f"a new partition {topic}/{p} holds nothing: {(low, high)}"
    write(sink, [Message(topic, 3, b"k", b"in the last partition")])
    assert values(read(sink, 3)) == [b"in the last partition"]
    _, default = fresh_sink(new_sink_uri)
    expected = default.config.params["partition-num"]
    assert default.transport.prepare_topic(default.config, default.topic) == expected, "the default partition-num"


def check_an_existing_topic_keeps_its_partition_count(
    new_sink_uri: SinkFactory, fixed_size_topics: bool
) -> None:
    """Once a topic has 4 partitions (each written), a URI without ``partition-num`` uses 4,
    a smaller one is used as given, and a larger one is refused naming ``partition-num``
    (fixed-size topics) or used as given (the base rule: the URI's ``partition-num`` wins)."""
    base, sink = fresh_sink(new_sink_uri, partition_num=4)
    topic, transport = sink.topic, sink.transport
    transport.prepare_topic(sink.config, topic)
    write(sink, [Message(topic, p, None, b"p%d" % p) for p in range(4)])
    plain = open_sink(base)
    assert transport.partition_count(plain.config, topic) == 4, "partition_count of a 4-partition topic"
    assert transport.prepare_topic(plain.config, topic) == 4, "no partition-num: the existing count"
    with reading(plain) as reader:
        assert reader.partitions(topic) == [0, 1, 2, 3]
    smaller = with_params(base, partition_num=2)
    assert transport.prepare_topic(smaller.config, topic) == 2, "partition-num=2 on a 4-partition topic"
    larger = with_params(base, partition_num=6)
    if fixed_size_topics:
        error = refused(lambda: transport.prepare_topic(larger.config, topic), "partition-num=6 of 4", SinkURIError)
        assert error.parameter == "partition-num", f"the refusal names partition-num: {error!r}"
        assert transport.partition_count(plain.config, topic) == 4, "a refused partition-num changes nothing"
    else:
        assert transport.prepare_topic(larger.config, topic) == 6, "partition-num=6: the URI's count wins"


def check_writes_outside_the_partition_count_are_refused(
    new_sink_uri: SinkFactory, fixed_size_topics: bool
) -> None:
    """A message for a negative partition is refused with a CdcwireError, and on a
    fixed-size topic so is one for a partition at or past its count; what the writer did
    accept of the same topic is still read back whole."""
    _, sink = fresh_sink(new_sink_uri, partition_num=2)
    topic = sink.topic
    sink.transport.prepare_topic(sink.config, topic)

    def write_to(partition: int) -> None:
        write(sink, [Message(topic, partition, b"k", b"outside")])

    error = refused(lambda: write_to(-1), f"a write to {topic}/-1", CdcwireError)
    assert topic in str(error) or "-1" in str(error), f"the refusal says where: {error}"
    if fixed_size_topics:
        for partition in (2, 7):
            doing = f"a write to {topic}/{partition} of 2 partitions"
            error = refused(lambda: write_to(partition), doing, CdcwireError)
            assert str(partition) in str(error), f"the refusal names partition {partition}: {error}"
        assert sink.transport.partition_count(sink.config, topic) == 2, "refused writes add no partition"
    write(sink, [Message(topic, 1, b"k", b"inside")])
    assert values(read(sink, 1)) == [b"inside"]


# -- write jobs and failed writes --------------------------------------------------------------


def check_a_job_publishes_what_its_task_writers_wrote(new_sink_uri: SinkFactory) -> None:
    """Two task writers, one from a pickled copy of the job (as Spark ships it), write their
    partitions; published, each partition reads back in order. An all-or-nothing job shows
    nothing before ``publish``; a delivering one has delivered already. ``discard`` after
    ``publish`` removes nothing published."""
    _, sink = fresh_sink(new_sink_uri, partition_num=2)
    topic = sink.topic
    job = begin(sink)
    try:
        copy = pickle.loads(pickle.dumps(job))
        first, second = numbered(topic, 0, 5, "task-a"), numbered(topic, 1, 4, "task-b")
        receipts = [task_write(job, first), task_write(copy, second)]
        seen = held(sink)
        if job.all_or_nothing:
            assert not any(seen.values()), f"an all-or-nothing job showed {seen} before publish"
        else:
            assert first_seen(values(seen.get(0, []))) == values(first), "delivered as written"
        job.publish(receipts)
    finally:
        job.discard()
    job.discard()
    for p, messages in ((0, first), (1, second)):
        got = values(read(sink, p))
        assert first_seen(got) == values(messages), f"{topic}/{p} after publish"
        if job.all_or_nothing:
            assert got == values(messages), f"{topic}/{p}: published once"


def check_a_job_publishes_only_the_attempts_it_is_given(new_sink_uri: SinkFactory) -> None:
    """``publish`` with one attempt's receipt publishes that attempt; the other (failed,
    retried) attempt is never seen from an all-or-nothing job, and from a delivering job
    was delivered as written (at least once)."""
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    topic = sink.topic
    job = begin(sink)
    good, lost = numbered(topic, 0, 3, "kept attempt"), numbered(topic, 0, 3, "failed attempt")
    try:
        lost_receipt = task_write(job, lost)
        good_receipt = task_write(job, good)
        assert lost_receipt != good_receipt or not job.all_or_nothing, "receipts tell attempts apart"
        job.publish([good_receipt])
    finally:
        job.discard()
    got = first_seen(values(read(sink, 0)))
    if job.all_or_nothing:
        assert got == values(good), "only the attempt named in publish()"
    else:
        assert got == values(lost + good), "a delivering job delivered both attempts, in order"


def check_a_discarded_job_leaves_what_the_transport_declares(new_sink_uri: SinkFactory) -> None:
    """A discarded all-or-nothing job publishes nothing, however many task writers
    finished; a delivering job's messages stay delivered. ``discard`` may be called twice,
    and the topic takes a later write as if the job had not been."""
    _, sink = fresh_sink(new_sink_uri, partition_num=2)
    topic = sink.topic
    job = begin(sink)
    staged = {p: numbered(topic, p, 3, "discarded") for p in (0, 1)}
    try:
        for p in (0, 1):
            task_write(job, staged[p])
    finally:
        job.discard()
    job.discard()
    seen = held(sink)
    if job.all_or_nothing:
        assert not any(seen.values()), f"a discarded all-or-nothing job published {seen}"
    else:
        for p in (0, 1):
            assert first_seen(values(seen.get(p, []))) == values(staged[p]), f"{topic}/{p} stays delivered"
    after = numbered(topic, 0, 2, "after")
    write(sink, after)
    expected = values(after) if job.all_or_nothing else values(staged[0] + after)
    assert first_seen(values(read(sink, 0))) == expected


def check_a_failed_writer_leaves_what_the_transport_declares(new_sink_uri: SinkFactory) -> None:
    """A writer whose block raises publishes nothing on an all-or-nothing transport; on a
    delivering one, what it had flushed before the failure stays and nothing comes out of
    order (what was written after may or may not have been sent)."""
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    topic = sink.topic
    job = begin(sink)
    job.discard()  # asked only for its declaration
    flushed, unflushed = numbered(topic, 0, 4, "flushed"), numbered(topic, 0, 4, "unflushed")

    class Planted(Exception):
        """The failure the check provokes in the middle of a write."""

    with pytest.raises(Planted):
        with sink.transport.writer(sink.config) as writer:
            writer.write_all(flushed)
            writer.flush()
            writer.write_all(unflushed)
            raise Planted()
    seen = held(sink)
    if job.all_or_nothing:
        assert not any(seen.values()), f"an aborted all-or-nothing writer published {seen}"
    else:
        got = first_seen(values(seen.get(0, [])))
        everything = values(flushed + unflushed)
        assert got[: len(flushed)] == values(flushed), "what was flushed before the failure stays"
        assert got == everything[: len(got)], "nothing out of order"


# -- missing topics ----------------------------------------------------------------------------


def check_reading_a_missing_topic_is_a_clear_error_or_empty(
    new_sink_uri: SinkFactory, missing_topic: MissingTopic = "error"
) -> None:
    """A topic nobody wrote: ``partitions``, ``read`` and ``watermarks`` raise a CdcwireError
    naming it (``"error"``) or give nothing (``"empty"``), and reading never creates it. A
    partition past those an existing topic has is refused the same way."""
    assert missing_topic in ("error", "empty"), f"missing_topic is 'error' or 'empty', not {missing_topic!r}"
    _, sink = fresh_sink(new_sink_uri, partition_num=1)
    topic, transport = sink.topic, sink.transport
    with reading(sink) as reader:
        if missing_topic == "error":
            for doing, action in (
                ("partitions", lambda: reader.partitions(topic)),
                ("read", lambda: list(reader.read(topic, 0))),
                ("watermarks", lambda: reader.watermarks(topic, 0)),
            ):
                error = refused(action, f"{doing} of the missing topic {topic}", CdcwireError)
                assert topic in str(error), f"{doing}: the error names the topic: {error}"
        else:
            assert reader.partitions(topic) == [], f"partitions of the missing topic {topic}"
            assert list(reader.read(topic, 0)) == [], f"read of the missing topic {topic}"
        assert topic not in reader.topics()
    assert transport.partition_count(sink.config, topic) is None, "reading created the topic"
    write(sink, [Message(topic, 0, b"k", b"v")])
    with reading(sink) as reader:
        if missing_topic == "error":
            doing = f"read of {topic}/5 of 1 partition"
            error = refused(lambda: list(reader.read(topic, 5)), doing, CdcwireError)
            assert topic in str(error) and "5" in str(error), f"the error names {topic}/5: {error}"
        else:
            assert list(reader.read(topic, 5)) == [], f"read of {topic}/5 of 1 partition"


# -- file:// only: torn tails of its framing ---------------------------------------------------


@dataclass
class TornTail:
    """A ``file://`` partition of intact records and the bytes of one more record (framed
    as the transport frames it): :meth:`tear` leaves the file as the intact records plus
    the first ``cut`` bytes of that record, what a write that died mid-record leaves."""

    base_uri: str
    sink: Sink
    intact: list[Message]
    size: int  # bytes of the file with the intact records only
    record: bytes
    path: Path

    def tear(self, cut: int) -> None:
        self.path.write_bytes(self.path.read_bytes()[: self.size] + self.record[:cut])

    @classmethod
    def of(cls, new_sink_uri: SinkFactory) -> "TornTail":
        from ..transports.file.transport import partition_path
        from ..transports.file.framing import frame

        base, sink = fresh_sink(new_sink_uri, partition_num=1)
        if sink.config.scheme != "file":
            raise AssertionError(f"check_file_* checks need a file:// sink factory, got {sink.config.scheme}://")
        topic = sink.topic
        intact = [Message(topic, 0, None, b"a"), Message(topic, 0, b"", b""), Message(topic, 0, b"k", None)]
        write(sink, intact)
        path = partition_path(sink.config.location, topic, 0)
        record = frame(b"torn key", b"the value of a record whose write never finished")
        return cls(base, sink, intact, path.stat().st_size, record, path)


def check_file_an_incomplete_last_record_is_never_read_as_a_message(new_sink_uri: SinkFactory) -> None:
    """Cut anywhere inside the last record, a ``file://`` partition reads its intact records
    and ends there, strict or skipping damage: an incomplete last record is a record not
    written yet (a write in progress, or one that died), not damage, so nothing is listed
    as damaged, the torn bytes never come out as a message, and the watermarks count the
    intact records only; once the record is whole it reads at the next offset."""
    from ..transports.file.transport import FileReader

    torn = TornTail.of(new_sink_uri)
    topic, intact = torn.sink.topic, torn.intact
    skipping = with_params(torn.base_uri, skip_damaged=True)
    for cut in range(1, len(torn.record)):
        torn.tear(cut)
        with reading(torn.sink) as reader:
            assert pairs(list(reader.read(topic, 0))) == pairs(intact), f"cut at {cut}: a strict read"
            assert reader.watermarks(topic, 0) == (0, len(intact)), f"cut at {cut}: strict watermarks"
        with reading(skipping) as reader:
            assert isinstance(reader, FileReader)
            assert pairs(list(reader.read(topic, 0))) == pairs(intact), f"cut at {cut}, skipping damage"
            assert reader.damaged == [], f"cut at {cut}: a torn tail is no damage"
            assert reader.watermarks(topic, 0) == (0, len(intact)), f"cut at {cut}: watermarks"
    torn.tear(len(torn.record))
    with reading(torn.sink) as reader:
        got = list(reader.read(topic, 0))
        assert reader.watermarks(topic, 0) == (0, len(intact) + 1), "the whole record counts"
    assert [m.value for m in got[len(intact):]] == [b"the value of a record whose write never finished"]
    check_offsets(got, 0, "the record made whole")


def check_file_the_next_write_cuts_an_incomplete_last_record(new_sink_uri: SinkFactory) -> None:
    """A write after a torn tail (cut in the header, or in the body) drops it and appends:
    the partition reads the intact records and the new one at the next offset, never
    anything of the torn record."""
    torn = TornTail.of(new_sink_uri)
    for cut in (5, len(torn.record) - 1):
        torn.tear(cut)
        new = Message(torn.sink.topic, 0, b"after", b"cut at %d" % cut)
        write(torn.sink, [new])
        got = read(torn.sink, 0)
        assert pairs(got) == pairs(torn.intact + [new]), f"cut at {cut}: the torn record is gone"
        check_offsets(got, 0, f"cut at {cut}")
        torn.intact, torn.size = got, torn.path.stat().st_size  # the next cut tears after the new one


# -- the pytest class ----------------------------------------------------------------------------


class TransportConformance:
    """Mix-in test class: override the ``new_sink_uri`` fixture, set the declarations.

    Declarations (what the transport promises where transports differ):

    ``none_key`` / ``none_value``: a None key / value reads back as None, apart from b"".
    ``fixed_size_topics``: ``prepare_topic`` creates a new topic with its partitions and an
    existing topic's size is fixed (``kafka://``, ``file://``); False: partitions come into
    being as they are written and the URI's ``partition-num`` wins (the base ``Transport``
    rule). ``missing_topic``: reading a topic that does not exist is a CdcwireError
    naming it (``"error"``) or gives nothing (``"empty"``). Whether a failed write leaves
    nothing is not declared here: the transport's ``WriteJob.all_or_nothing`` says it.
    """

    none_key: ClassVar[bool] = True
    none_value: ClassVar[bool] = True
    fixed_size_topics: ClassVar[bool] = False
    missing_topic: ClassVar[MissingTopic] = "error"

    @pytest.fixture
    def new_sink_uri(self) -> SinkFactory:
        raise AssertionError(
            "override the new_sink_uri fixture: it returns a callable giving a fresh sink URI"
            " (a topic no check has used) each time it is called"
        )

    def test_messages_read_back_in_order_with_keys_and_values_intact(self, new_sink_uri: SinkFactory) -> None:
        check_messages_read_back_in_order_with_keys_and_values_intact(
            new_sink_uri, self.none_key, self.none_value
        )

    def test_a_later_write_appends_after_the_first(self, new_sink_uri: SinkFactory) -> None:
        check_a_later_write_appends_after_the_first(new_sink_uri)

    def test_watermarks_bound_what_was_written(self, new_sink_uri: SinkFactory) -> None:
        check_watermarks_bound_what_was_written(new_sink_uri)

    def test_a_read_between_watermarks_gives_exactly_those_messages(self, new_sink_uri: SinkFactory) -> None:
        check_a_read_between_watermarks_gives_exactly_those_messages(new_sink_uri)

    def test_a_read_ends_at_the_high_watermark_of_the_call(self, new_sink_uri: SinkFactory) -> None:
        check_a_read_ends_at_the_high_watermark_of_the_call(new_sink_uri)

    def test_prepare_topic_gives_a_new_topic_the_partition_num_asked_for(
        self, new_sink_uri: SinkFactory
    ) -> None:
        check_prepare_topic_gives_a_new_topic_the_partition_num_asked_for(
            new_sink_uri, self.fixed_size_topics
        )

    def test_an_existing_topic_keeps_its_partition_count(self, new_sink_uri: SinkFactory) -> None:
        check_an_existing_topic_keeps_its_partition_count(new_sink_uri, self.fixed_size_topics)

    def test_writes_outside_the_partition_count_are_refused(self, new_sink_uri: SinkFactory) -> None:
        check_writes_outside_the_partition_count_are_refused(new_sink_uri, self.fixed_size_topics)

    def test_a_job_publishes_what_its_task_writers_wrote(self, new_sink_uri: SinkFactory) -> None:
        check_a_job_publishes_what_its_task_writers_wrote(new_sink_uri)

    def test_a_job_publishes_only_the_attempts_it_is_given(self, new_sink_uri: SinkFactory) -> None:
        check_a_job_publishes_only_the_attempts_it_is_given(new_sink_uri)

    def test_a_discarded_job_leaves_what_the_transport_declares(self, new_sink_uri: SinkFactory) -> None:
        check_a_discarded_job_leaves_what_the_transport_declares(new_sink_uri)

    def test_a_failed_writer_leaves_what_the_transport_declares(self, new_sink_uri: SinkFactory) -> None:
        check_a_failed_writer_leaves_what_the_transport_declares(new_sink_uri)

    def test_reading_a_missing_topic_is_a_clear_error_or_empty(self, new_sink_uri: SinkFactory) -> None:
        check_reading_a_missing_topic_is_a_clear_error_or_empty(new_sink_uri, self.missing_topic)
