"""What a protocol plugin provides: a Codec, which makes encoders and decoders.

A codec is stateless and shared; the encoders and decoders it makes hold the
per-sink state (caches per table schema, a registry client, ...).
"""

from __future__ import annotations

import abc
import contextlib
import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, ClassVar, Iterable, Iterator, Mapping, Optional, Protocol

from ..model.event_batch import EventBatch
from ..model.events import Event
from ..model.message import Message, Payload
from ..foundation.params import Parameter

if TYPE_CHECKING:
    from ..uris.sink_uri import SinkConfig
    from .jvm_codec import JvmCodec


class Broadcast(enum.Enum):
    """Where a DDL or resolved event goes within a topic."""

    ALL_PARTITIONS = "all"
    FIRST_PARTITION = "first"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class EventPolicy:
    """A codec's declared handling of DDL and resolved events, and of tables' announcements.

    DDL events go to the table's topic; resolved events go to every topic.
    ``announce_tables`` (plugin API 1.8): where a
    :class:`~cdcwire.model.table_announcement.TableAnnouncement` goes in a table's topic when the
    table's first row is routed, before that row (NONE: nowhere, the default; a codec that
    describes tables in messages of their own, as simple's BOOTSTRAP, asks for them). An
    encoder of such a codec is given announcements among its events.
    """

    ddl: Broadcast = Broadcast.ALL_PARTITIONS
    resolved: Broadcast = Broadcast.ALL_PARTITIONS
    announce_tables: Broadcast = Broadcast.NONE


class Encoder(Protocol):
    """Encodes the ordered events of one topic-partition into messages.

    ``encode`` is a generator so a pipeline can stream a partition of any size;
    batching (``max-batch-size``, ``max-message-bytes``) happens inside it.
    """

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]: ...


class BatchEncoder(Encoder, Protocol):
    """An encoder with the columnar capability: it also takes events as :class:`EventBatch`
    columns, with no ``Column`` objects built for them (the Spark pipeline's hot path).

    ``encode_batches`` must give exactly the payloads ``encode`` gives for the same events
    (``batch.events()``), byte for byte and batched alike; the conformance kit
    (:func:`cdcwire.testing.check_columnar_encoding`) holds it to that. An encoder may take
    its fast path for what is common and hand any other event to its Event path
    (``batch.event(i)``) inside the same stream. Optional: without it a pipeline passes
    ``batch.events()`` to ``encode``. The events are valid (checked before they reach it).
    """

    def encode_batches(self, batches: Iterable[EventBatch]) -> Iterator[Payload]: ...


class Decoder(Protocol):
    """Decodes one message into the events it carries (zero or more)."""

    def decode(self, message: Message) -> list[Event]: ...


class FinishingDecoder(Decoder, Protocol):
    """A decoder that keeps state across messages (the simple protocol parks a row until its
    table's schema arrives) and so has an end of input (plugin API 1.6).

    ``finish`` gives the events it still holds, or raises a DecodeError saying what it cannot
    give, where the first of it was, and what to do: without it, rows still held when a read
    ends would be dropped silently. The core calls it once wherever it runs a decoder to the
    end of a finite input (``cdcwire.decode``, ``PollDecoder.finish``, ``cdcwire inspect``,
    each Spark range, micro-batch and ``cdcwire.spark.decode`` partition), never in a follow,
    and decodes nothing after it. Optional: a stateless decoder leaves it out. Its codec says
    ``stateful_decoding = True``.
    """

    def finish(self) -> list[Event]: ...


class BatchDecoder(Decoder, Protocol):
    """A decoder with the columnar capability: it also appends what a message carries to an
    :class:`EventBatch`, with no ``Column`` objects built (the Spark read's hot path).

    ``decode_into`` appends exactly the events ``decode`` gives for the message and returns
    how many; a DecodeError leaves the batch as it was. The core checks the appended events
    (per batch, in columns) as it checks ``decode``'s, so a decoder does not. Optional:
    without it a reader takes ``decode``.
    """

    def decode_into(self, message: Message, batch: EventBatch) -> int: ...


#: What :meth:`Codec.carrier` gives: an event in, the event as read back out (or None).
Carrier = Callable[[Event], Optional[Event]]


def _lossless(event: Event) -> Optional[Event]:
    return event


class Codec(abc.ABC):
    """A wire protocol. Subclass it in a plugin and register an instance.

    ``name`` is the ``protocol=`` value; ``aliases`` are other accepted names;
    ``parameters`` are the URI parameters this codec honours beyond the shared ones.
    ``stateful_decoding`` (plugin API 1.6): its decoder keeps state across the messages of
    a partition (table schemas that later rows need), so a message decodes right only after
    the ones before it: a reader decodes each partition in order with one decoder, never
    split into pieces decoded apart (its decoder is a :class:`FinishingDecoder`).
    """

    name: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]] = ()
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    stateful_decoding: ClassVar[bool] = False
    #: plugin API 1.10: its JVM tier (:class:`cdcwire.contract.jvm_codec.JvmCodec`), or None.
    jvm: ClassVar[Optional["JvmCodec"]] = None

    def validate(self, config: SinkConfig) -> None:
        """Check combinations of parameters; raise SinkURIError naming the parameter."""

    def policy(self, config: SinkConfig) -> EventPolicy:
        """Where DDL and resolved events go for this codec under this configuration."""
        return EventPolicy()

    @abc.abstractmethod
    def encoder(self, config: SinkConfig, topic: str, partition: int) -> Encoder:
        """An encoder for the events of one topic-partition."""

    @abc.abstractmethod
    def decoder(self, config: SinkConfig) -> Decoder:
        """A decoder for messages of this protocol."""

    def carrier(self, config: SinkConfig) -> Carrier:
        """A function giving each event as this protocol carries it under ``config``: what
        ``decode(encode(event))`` gives, or None when the protocol has no message for it
        (avro's DDL, say).

        A factory like :meth:`encoder` and :meth:`decoder`, so options are read once per
        sink, not once per event. The default says the protocol is lossless. Conformance
        tests and pipeline checks use it to compare inputs with what was read back.
        """
        return _lossless

    def demo_parameters(self, services: contextlib.ExitStack) -> Mapping[str, str]:
        """The sink-URI parameters this codec shows itself with in ``cdcwire demo``.

        The demo knows no protocol by name: a codec that needs a parameter to run (avro's
        ``schema-registry``) or shows best with one (canal-json's extension) returns it
        here, starting any service it needs inside ``services`` (entered for the demo's
        whole run, closed after). ``protocol`` and ``partition-num`` are the demo's own.
        """
        return {}
