"""Errors cdcwire raises. Each says what is wrong and where."""

from __future__ import annotations

from typing import Optional


class CdcwireError(Exception):
    """Base of every error cdcwire raises on purpose."""


class SinkURIError(CdcwireError, ValueError):
    """A sink or source URI, or one of its parameters, is invalid.

    Messages name the parameter; they never contain a password or token.
    """

    def __init__(self, message: str, parameter: Optional[str] = None):
        super().__init__(message)
        self.parameter = parameter


class EventJSONError(CdcwireError, ValueError):
    """A line of canonical event JSON is malformed."""

    def __init__(self, message: str, line: Optional[int] = None, field: Optional[str] = None):
        where = []
        if line is not None:
            where.append(f"line {line}")
        if field is not None:
            where.append(f"field {field!r}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.line = line
        self.field = field


class DecodeError(CdcwireError, ValueError):
    """A message cannot be decoded. ``offset`` is the byte offset in the key or value
    where decoding failed; ``where`` names the message (topic/partition/offset) when known."""

    def __init__(
        self, message: str, offset: Optional[int] = None, part: Optional[str] = None, hint: Optional[str] = None
    ):
        loc = []
        if part is not None:
            loc.append(part)
        if offset is not None:
            loc.append(f"byte {offset}")
        text = f"{message} (at {' '.join(loc)})" if loc else message
        super().__init__(f"{text}; {hint}" if hint else text)
        self.reason = message
        self.offset = offset
        self.part = part
        self.hint = hint
        self.where: Optional[str] = None

    def at_message(self, where: str) -> "DecodeError":
        """Return this error with the message's location (topic/partition/offset) added."""
        err = DecodeError(self.reason, self.offset, self.part, self.hint)
        err.where = where
        err.args = (f"{where}: {err.args[0]}",)
        return err

    def with_hint(self, hint: str) -> "DecodeError":
        """Return this error with what to do added (``this looks like canal-json ...``)."""
        err = DecodeError(self.reason, self.offset, self.part, hint)
        if self.where is not None:
            err = err.at_message(self.where)
        return err


class HeldRowsRefused(DecodeError):
    """A message released rows a stateful decoder held for earlier messages (simple's rows
    parked until their table's schema came) and some of them do not decode: each held row is
    decided on its own, at its own place. ``events`` are what the message gave (the held rows
    that decode among them, in order); ``refused`` the ``(message, DecodeError)`` of each that
    does not, its error naming its own message. A reader that skips or keeps malformed input
    takes ``events`` and skips or keeps each refused message; one that stops fails with the
    first refused row's error, which already names its place (``at_message`` keeps it)."""

    def __init__(self, events: list, refused: list) -> None:
        first_message, first = refused[0]
        located = first.at_message(first_message.location())
        more = f" (and {len(refused) - 1} more held rows refused)" if len(refused) > 1 else ""
        super().__init__(first.reason + more, first.offset, first.part, first.hint)
        self.where = located.where
        self.args = (located.args[0] + more,)
        self.events = events
        self.refused = refused

    def at_message(self, where: str) -> "DecodeError":
        return self  # the refused rows' own messages are named, not the one that released them

    def with_hint(self, hint: str) -> "DecodeError":
        return self


class EncodeError(CdcwireError, ValueError):
    """An event cannot be encoded by the selected protocol."""


class MessageTooLargeError(EncodeError):
    """A single event does not fit in ``max-message-bytes``."""


class InvalidEventError(EncodeError):
    """An event breaks a rule of the event model (:mod:`cdcwire.model.validation`).

    An EncodeError, because that is where one is raised as it is: on the way into an
    encoder. Decoders turn it into a DecodeError naming the message, the event JSON
    reader into an EventJSONError naming the line. ``event`` names the event
    (``schema.table@ts``), ``field`` the field (``columns[2].value``), ``column`` the
    column's name (quoted) when a column breaks it, ``rule`` what is wrong.
    """

    def __init__(self, rule: str, event: str, field: Optional[str] = None, column: Optional[str] = None):
        place = field if column is None else f"{field} (column {column})"
        super().__init__(f"{event}: {place}: {rule}" if place else f"{event}: {rule}")
        self.rule = rule
        self.event = event
        self.field = field
        self.column = column


class PluginError(CdcwireError):
    """A plugin is broken, duplicated, or missing."""


class DispatchError(CdcwireError, ValueError):
    """A dispatch rule cannot be applied to an event (missing column, bad rule)."""


class TransportError(CdcwireError):
    """Writing or reading messages through a transport failed."""
