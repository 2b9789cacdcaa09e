"""Decoding in a consumer's own poll loop: what ``AvroDeserializer`` is for confluent-kafka's
Avro, for every cdcwire protocol.

    decode = cdcwire.PollDecoder("canal-json")          # or a sink URI, for its parameters
    while True:
        msg = consumer.poll(1.0)
        if msg is not None:
            for event in decode(msg):                   # a confluent_kafka.Message
                ...

A protocol's message is its key and value together (open-protocol's key holds the
events' headers), so the decoder takes the whole message, not one field as a
confluent-kafka ``Deserializer`` does. Errors name ``topic/partition/offset``. With
``skip_undecodable=True`` an undecodable message gives no events, is logged with its
place and reason and counted (``skipped``), and the loop goes on: the same skip mode as
a permissive read.
"""

from __future__ import annotations

import logging
from typing import Any, Optional, Sequence, Union

from .codec_calls import decoder_for
from ..foundation.errors import DecodeError, HeldRowsRefused, TransportError
from ..model.events import Event, ResolvedEvent
from ..model.message import Message
from ..sinks.sink import SinkLike, open_sink
from ..dispatch.table_filter import TableFilter

log = logging.getLogger(__name__)


class PollDecoder:
    """Decodes the messages of one protocol as a consumer polls them: ``confluent_kafka.Message``
    objects or cdcwire :class:`Message`. ``decoded`` and ``skipped`` count messages.

    ``tables``: keep only the row and DDL events of these tables (TiDB's table-filter syntax,
    ``"app.*,!app.tmp_*"``, see :mod:`cdcwire.dispatch.table_filter`); resolved events are always kept.
    ``filtered`` counts the events left out.
    """

    def __init__(
        self,
        protocol: SinkLike,
        skip_undecodable: bool = False,
        tables: Optional[Union[str, Sequence[str]]] = None,
    ) -> None:
        self._decoder = decoder_for(open_sink(protocol))
        self.skip_undecodable = skip_undecodable
        self.tables = None if tables is None else TableFilter.of(tables)
        self.decoded = 0
        self.skipped = 0
        self.filtered = 0

    def __call__(self, message: Any) -> list[Event]:
        """The events of one polled message; none for ``None`` (a poll that timed out)."""
        if message is None:
            return []
        if not isinstance(message, Message):
            message = _from_consumer(message)
        try:
            events = self._decoder.decode(message)
        except HeldRowsRefused as exc:  # held rows released, some refused: each at its own place
            if not self.skip_undecodable:
                raise
            for held, error in exc.refused:
                self.skipped += 1
                log.warning("skipped an undecodable message: %s", error.at_message(held.location()))
            events = exc.events
        except DecodeError as exc:
            located = exc.at_message(message.location())
            if not self.skip_undecodable:
                raise located from None
            self.skipped += 1
            log.warning("skipped an undecodable message: %s", located)
            return []
        self.decoded += 1
        if self.tables is None:
            return events
        kept = [e for e in events if isinstance(e, ResolvedEvent) or self.tables.matches(e.schema, e.table)]
        self.filtered += len(events) - len(kept)
        return kept

    def finish(self) -> list[Event]:
        """The events the decoder still holds when a bounded loop ends (a last offset reached):
        call it once then. A stateful protocol's decoder (simple) refuses rows it parked for a
        table schema that never came with a DecodeError naming them, instead of dropping them.
        A loop that never ends never calls it."""
        events = self._decoder.finish()
        if self.tables is None:
            return events
        kept = [e for e in events if isinstance(e, ResolvedEvent) or self.tables.matches(e.schema, e.table)]
        self.filtered += len(events) - len(kept)
        return kept

    def __repr__(self) -> str:
        return f"PollDecoder(decoded={self.decoded}, skipped={self.skipped}, filtered={self.filtered})"


def _from_consumer(message: Any) -> Message:
    """A confluent_kafka.Message as a cdcwire Message; a poll result that is an error is refused."""
    error = message.error()
    if error is not None:
        raise TransportError(
            f"{message.topic()}/{message.partition()}: the consumer returned an error, not a message: {error}"
        )
    return Message(message.topic(), message.partition(), message.key(), message.value(), message.offset())
