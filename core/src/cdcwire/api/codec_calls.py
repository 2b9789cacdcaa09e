"""The one place the core asks a codec for an encoder or a decoder.

Every path that encodes or decodes (``cdcwire.encode``/``decode``, the CLI, the Spark
stages, the data source) goes through these two functions, so what the core promises
about every codec, built-in or third-party, is kept here once: an encoder is only
given valid events, and a decoder only gives valid events (or a ``DecodeError``).
Valid means :func:`cdcwire.model.validation.check_event` passes; plugins do not call it
themselves.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, Optional

from ..contract.codec import Decoder, Encoder
from ..foundation.errors import DecodeError, HeldRowsRefused, InvalidEventError
from ..model.event_batch import EventBatch
from ..model.events import Event
from ..model.message import Message, Payload
from .protocol_guess import protocol_hint, protocol_reading
from ..model.validation import check_event, check_events, checked

from ..sinks.sink import SinkLike, open_sink


class CheckedEncoder:
    """A codec's encoder that is given each event only once it has passed the validation;
    an invalid event raises InvalidEventError (an EncodeError) naming it, the field and the rule."""

    __slots__ = ("encoder",)

    def __init__(self, encoder: Encoder) -> None:
        self.encoder = encoder

    def encode(self, events: Iterable[Event]) -> Iterator[Payload]:
        if events.__class__ is list or events.__class__ is tuple:
            check_events(events)  # all at once: the encoder keeps the list it may have a fast path for
            return self.encoder.encode(events)
        return self.encoder.encode(checked(events))

    def __getattr__(self, name: str) -> Any:  # the codec's own attributes (caches, registry versions)
        return getattr(self.encoder, name)


class CheckedDecoder:
    """A codec's decoder whose events have all passed the validation: a message that decodes to
    an invalid event is a DecodeError naming the event, the field and the rule.

    The first message it cannot decode is offered to the other installed protocols; when one
    reads it, the error says so (:mod:`cdcwire.api.protocol_guess`): the usual cause is a sink
    read with another protocol than it was written in.
    """

    __slots__ = ("decoder", "protocol", "guessed")

    def __init__(self, decoder: Decoder, protocol: Optional[str] = None) -> None:
        self.decoder = decoder
        self.protocol = protocol
        self.guessed = protocol is None

    def decode(self, message: Message) -> list[Event]:
        try:
            events = self.decoder.decode(message)
        except HeldRowsRefused as exc:
            raise HeldRowsRefused(_decoded(exc.events, "the message"),
                                  [(m, printable(e)) for m, e in exc.refused]) from None
        except DecodeError as exc:
            raise self._hinted(printable(exc), message) from None
        return _decoded(events, "the message")

    def finish(self) -> list[Event]:
        """The events the decoder still holds at the end of a bounded input (checked as
        ``decode``'s are); a decoder with no ``finish`` holds none. Its DecodeError passes as
        it is: it names the messages it is about."""
        finish = getattr(self.decoder, "finish", None)
        if finish is None:
            return []
        return _decoded(finish(), "the end of the input")

    def _hinted(self, exc: DecodeError, message: Message) -> DecodeError:
        if self.guessed:
            return exc
        self.guessed = True
        assert self.protocol is not None
        other = protocol_reading(message, self.protocol)
        return exc if other is None else exc.with_hint(protocol_hint(other))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.decoder, name)


def _decoded(events: list[Event], source: str) -> list[Event]:
    """``events`` if every one is valid; else the DecodeError a decoder's invalid event is, naming
    what decoded to it (``source``)."""
    try:
        for event in events:
            check_event(event)
    except InvalidEventError as exc:
        raise DecodeError(f"{source} decodes to an invalid event: {exc}") from None
    return events


def printable(exc: DecodeError) -> DecodeError:
    """The error itself, or, when its text holds what UTF-8 cannot carry (a lone surrogate
    read from the message, quoted by the decoder), the same error with that text escaped:
    printing it must never fail (``cdcwire inspect`` did, with UnicodeEncodeError)."""
    try:
        str(exc).encode()
        return exc
    except UnicodeEncodeError:
        pass
    reason = exc.reason.encode("utf-8", "backslashreplace").decode()
    return DecodeError(reason, exc.offset, exc.part)


def encoder_for(target: SinkLike, topic: str, partition: int, *, events_checked: bool = False) -> Encoder:
    """The codec's encoder for one topic-partition of this sink, given only valid events.

    ``events_checked=True``: the caller vouches that every event it will pass has been
    checked already, by :func:`cdcwire.model.validation.check_event` or by the Spark record
    checks (rows that pass them build valid events); the check is then not paid twice.
    """
    sink = open_sink(target)
    encoder = sink.codec.encoder(sink.config, topic, partition)
    return encoder if events_checked else CheckedEncoder(encoder)


def columnar_decoder_for(target: SinkLike) -> Optional[Decoder]:
    """The codec's own decoder when it has the columnar capability (:class:`cdcwire.contract.codec.BatchDecoder`),
    else None. Unchecked: for a caller that checks every batch it fills (the Spark read checks
    them in columns, see ``cdcwire.spark.reader.range_decoding``) and takes the checked
    :func:`decoder_for` for anything the columns refuse."""
    sink = open_sink(target)
    decoder = sink.codec.decoder(sink.config)
    return decoder if hasattr(decoder, "decode_into") else None


def decoder_for(target: SinkLike) -> CheckedDecoder:
    """The codec's decoder for this sink's (a sink, config, URI or protocol name) messages,
    giving only valid events; ``finish()`` at the end of a bounded input."""
    sink = open_sink(target)
    return CheckedDecoder(sink.codec.decoder(sink.config), sink.codec.name)


def encode_batches(encoder: Encoder, batches: Iterable[EventBatch]) -> Iterator[Payload]:
    """The payloads of these batches' events: through the encoder's columnar capability
    (:class:`cdcwire.contract.codec.BatchEncoder`) when it has it, else through ``encode`` with the
    events the batches stand for. ``encoder`` comes from :func:`encoder_for` with
    ``events_checked=True``: an EventBatch holds only valid events (its builder checked them).
    """
    columnar = getattr(encoder, "encode_batches", None)
    if columnar is not None:
        return columnar(batches)
    return encoder.encode(event for batch in batches for event in batch.events())
