"""The public functions: encode events into messages, decode messages into events."""

from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Iterator, Optional, Sequence, Union

from .errors import DecodeError
from .events import Event
from .message import Message, Payload
from .transport import MessageReader
from .registry import get_registry
from .sink_uri import SinkConfig, parse_sink_uri, protocol_config
from .dispatch import Dispatcher
from .codec_calls import decoder_for, encoder_for
from .validation import check_events

ConfigLike = Union[str, SinkConfig]


def config_of(uri_or_config: ConfigLike) -> SinkConfig:
    """A SinkConfig from a URI, a bare protocol name, or a SinkConfig."""
    if isinstance(uri_or_config, SinkConfig):
        return uri_or_config
    if "://" in uri_or_config or uri_or_config.startswith("file:"):
        return parse_sink_uri(uri_or_config)
    return protocol_config(uri_or_config)


def dispatch(
    config: SinkConfig, events: Sequence[Event], partition_count: Optional[Callable[[str], int]] = None
) -> dict[tuple[str, int], list[Event]]:
    """Group events by (topic, partition), keeping stream order inside each group.

    ``partition_count(topic)``: how many partitions a topic has; ``partition-num`` by
    default, which keeps :func:`encode` a pure function of its arguments. A caller that
    writes passes :func:`transport_partition_count` so existing topics keep their size.

    Events are checked first (:func:`cdcwire.validation.check_events`): the rules hash
    names and values, and an invalid event is an InvalidEventError naming it, not a crash.
    """
    check_events(events)
    dispatcher = Dispatcher(config, partition_count=partition_count)
    dispatcher.observe(events)
    groups: dict[tuple[str, int], list[Event]] = defaultdict(list)
    for event in events:
        for route in dispatcher.route(event):
            groups[(route.topic, route.partition)].append(route.event)
    return groups


def transport_partition_count(config: SinkConfig) -> Callable[[str], int]:
    """The sink's transport's answer per topic (created or checked once per topic, then cached)."""
    counts: dict[str, int] = {}

    def count(topic: str) -> int:
        if topic not in counts:
            counts[topic] = config.transport.prepare_topic(config, topic)
        return counts[topic]

    return count


def encode_partition(
    config: SinkConfig, topic: str, partition: int, events: Iterable[Event]
) -> Iterator[Payload]:
    """Encode the ordered events of one topic-partition (already dispatched)."""
    return encoder_for(config, topic, partition).encode(events)


def encode(sink_uri: ConfigLike, events: Iterable[Event]) -> list[Message]:
    """Dispatch and encode events; messages come out by topic, partition, then stream order.

    Pure: nothing is contacted, every topic has the URI's ``partition-num`` partitions.
    """
    config = config_of(sink_uri)
    groups = dispatch(config, list(events))  # checks every event: the encoders need not again
    out: list[Message] = []
    for (topic, partition) in sorted(groups):
        encoder = encoder_for(config, topic, partition, events_checked=True)
        for p in encoder.encode(groups[(topic, partition)]):
            out.append(Message(topic, partition, p.key, p.value))
    return out


def decode(uri_or_protocol: ConfigLike, messages: Iterable[Message]) -> list[Event]:
    """Decode messages back into events, in message order.

    A DecodeError names the message (topic/partition/offset) and the byte offset.
    """
    config = config_of(uri_or_protocol)
    decoder = decoder_for(config)
    out: list[Event] = []
    for m in messages:
        try:
            out.extend(decoder.decode(m))
        except DecodeError as exc:
            raise exc.at_message(m.location()) from None
    return out


def write(sink_uri: ConfigLike, messages: Iterable[Message]) -> int:
    """Send messages through the sink's transport; returns how many were written.

    On ``file://`` the call is all or nothing: a failure part way (a bad message, an error
    raised by ``messages``) publishes none of them, so a retry writes each once. On
    ``kafka://`` messages are delivered as they are sent: those sent before a failure stay
    (at least once), and a retry sends them again.
    """
    config = config_of(sink_uri)
    with config.transport.writer(config) as w:
        return w.write_all(messages)


def read(source_uri: ConfigLike, partitions: Optional[Sequence[int]] = None) -> Iterator[Message]:
    """Messages of the source's topic, partition by partition, up to each partition's end as it
    is at this call: every partition's high watermark is taken now, so messages written while
    the result is consumed are not read (as ``MessageReader.read`` promises for one partition)."""
    config = config_of(source_uri)
    reader = config.transport.reader(config)
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
