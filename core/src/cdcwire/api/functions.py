"""The public functions: encode events into messages, decode messages into events."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Iterator, Optional, Sequence

from ..foundation.errors import DecodeError
from ..model.events import Event
from ..model.message import Message, Payload
from ..contract.transport import MessageReader
from ..sinks.installed import get_registry
from ..sinks.sink import Sink, SinkLike, open_sink
from ..dispatch import Dispatcher
from .codec_calls import decoder_for, encoder_for
from ..model.validation import check_events


def dispatch(
    sink: Sink, events: Sequence[Event], partition_count: Optional[Callable[[str], int]] = None
) -> dict[tuple[str, int], list[Event]]:
    """Group events by (topic, partition), keeping stream order inside each group.

    ``partition_count(topic)``: how many partitions a topic has; ``partition-num`` by
    default, which keeps :func:`encode` a pure function of its arguments. A caller that
    writes passes :func:`transport_partition_count` so existing topics keep their size.

    Events are checked first (:func:`cdcwire.model.validation.check_events`): the rules hash
    names and values, and an invalid event is an InvalidEventError naming it, not a crash.
    A row comes out with only the columns its table's column selector keeps (the rules
    file's ``[[column-selectors]]``); a selector that drops the row's key, a column its
    partition rule hashes, or every column raises a ColumnSelectorError. A codec that asks
    for tables' announcements (``EventPolicy.announce_tables``) gets, before a table's first
    row, a :class:`~cdcwire.model.table_announcement.TableAnnouncement` in every partition it names.
    """
    check_events(events)
    dispatcher = Dispatcher(sink, partition_count=partition_count)
    dispatcher.observe(events)
    groups: dict[tuple[str, int], list[Event]] = defaultdict(list)
    for event in events:
        for route in (*dispatcher.announcements(event), *dispatcher.route(event)):
            groups[(route.topic, route.partition)].append(route.event)
    return groups


def transport_partition_count(sink: Sink) -> Callable[[str], int]:
    """The sink's transport's answer per topic (created or checked once per topic, then cached)."""
    counts: dict[str, int] = {}
    transport = sink.needs_transport()

    def count(topic: str) -> int:
        if topic not in counts:
            counts[topic] = transport.prepare_topic(sink.config, topic)
        return counts[topic]

    return count


def encode_partition(
    sink_uri: SinkLike, topic: str, partition: int, events: Iterable[Event]
) -> Iterator[Payload]:
    """Encode the ordered events of one topic-partition (already dispatched)."""
    return encoder_for(open_sink(sink_uri), topic, partition).encode(events)


def encode(sink_uri: SinkLike, events: Iterable[Event]) -> list[Message]:
    """Dispatch and encode events; messages come out by topic, partition, then stream order.

    Pure: nothing is contacted, every topic has the URI's ``partition-num`` partitions.
    """
    sink = open_sink(sink_uri)
    groups = dispatch(sink, list(events))  # checks every event: the encoders need not again
    out: list[Message] = []
    for (topic, partition) in sorted(groups):
        encoder = encoder_for(sink, topic, partition, events_checked=True)
        for p in encoder.encode(groups[(topic, partition)]):
            out.append(Message(topic, partition, p.key, p.value))
    return out


def decode(uri_or_protocol: SinkLike, messages: Iterable[Message]) -> list[Event]:
    """Decode messages back into events, in message order.

    A DecodeError names the message (topic/partition/offset) and the byte offset. The
    messages are the whole input: what a stateful decoder still holds at their end (a simple
    row whose table schema never came) is given or refused then, never dropped.
    """
    decoder = decoder_for(open_sink(uri_or_protocol))
    out: list[Event] = []
    for m in messages:
        try:
            out.extend(decoder.decode(m))
        except DecodeError as exc:
            raise exc.at_message(m.location()) from None
    out.extend(decoder.finish())
    return out


def write(sink_uri: SinkLike, messages: Iterable[Message]) -> int:
    """Send messages through the sink's transport; returns how many were written.

    On ``file://`` the call is all or nothing: a failure part way (a bad message, an error
    raised by ``messages``) publishes none of them, so a retry writes each once. On
    ``kafka://`` messages are delivered as they are sent: those sent before a failure stay
    (at least once), and a retry sends them again.
    """
    sink = open_sink(sink_uri)
    with sink.needs_transport().writer(sink.config) as w:
        return w.write_all(messages)


def read(source_uri: SinkLike, partitions: Optional[Sequence[int]] = None) -> Iterator[Message]:
    """Messages of the source's topic, partition by partition, up to each partition's end as it
    is at this call: every partition's high watermark is taken now, so messages written while
    the result is consumed are not read (as ``MessageReader.read`` promises for one partition).
    A storage-sink location (``s3://``, ``local://``) holds files, not messages: :func:`read_storage`."""
    sink = open_sink(source_uri)
    config = sink.config
    reader = sink.needs_transport().reader(config)
    try:
        chosen = partitions if partitions is not None else reader.partitions(config.topic)
        ends = [(p, reader.watermarks(config.topic, p)[1]) for p in chosen]
    except BaseException:
        reader.close()
        raise
    return _read_up_to(reader, config.topic, ends)


def _read_up_to(reader: MessageReader, topic: str, ends: list[tuple[int, int]]) -> Iterator[Message]:
    try:
        for partition, end in ends:
            yield from reader.read(topic, partition, None, end)
    finally:
        reader.close()


def protocols() -> list[str]:
    return get_registry().protocol_names()
