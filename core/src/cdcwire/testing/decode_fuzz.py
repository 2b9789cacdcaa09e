"""Fuzzing a stateful decoder as a reader meets a stream: one decoder for the whole run, so
mutated messages change what it keeps (a simple reader's table schemas, its parked rows) and
later messages, spoiled or not, are decoded against that state.

:class:`FuzzTally` counts what the decode path made of every input: events (each checked
valid), DecodeErrors, raw exceptions (anything else) and invalid events accepted. The
promise is that the last two stay 0; a test asserts it and a report quotes the counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from hypothesis import strategies as st

from ..foundation.errors import DecodeError, InvalidEventError
from ..model.events import Event
from ..model.message import Message
from ..model.validation import check_event
from .mutations import json_token_mutated, mutated


@dataclass
class FuzzTally:
    """What a decode path made of the fuzz inputs: counts, and the first few failures as text."""

    inputs: int = 0
    decode_errors: int = 0
    raw_exceptions: int = 0
    invalid_accepted: int = 0
    failures: list[str] = field(default_factory=list)

    def decode(self, decode: Callable[[Message], list[Event]], message: Message) -> list[Event]:
        """``decode(message)``, tallied: its valid events, or [] for a DecodeError, a raw
        exception or an invalid event (the last two kept as failures)."""
        self.inputs += 1
        try:
            events = decode(message)
        except DecodeError:
            self.decode_errors += 1
            return []
        except Exception as exc:  # noqa: BLE001 - the fuzz's finding: any other exception is one
            self.raw_exceptions += 1
            self._keep(f"raw {type(exc).__name__}: {exc} for {message.value!r}")
            return []
        for event in events:
            try:
                check_event(event)
            except InvalidEventError as exc:
                self.invalid_accepted += 1
                self._keep(f"invalid event accepted: {exc} for {message.value!r}")
                return []
        return events

    def _keep(self, text: str) -> None:
        if len(self.failures) < 5:
            self.failures.append(text[:600])

    def assert_clean(self) -> None:
        assert not self.raw_exceptions and not self.invalid_accepted, "\n".join(self.failures)

    def __str__(self) -> str:
        return (f"inputs {self.inputs}, DecodeErrors {self.decode_errors}, raw exceptions {self.raw_exceptions},"
                f" invalid events accepted {self.invalid_accepted}")


def spoiled(value: bytes, json: bool) -> Any:
    """A strategy for ``value`` as it is, or spoiled: bytes edited (:func:`mutated`) or, for a
    JSON protocol, a string or number token swapped (:func:`json_token_mutated`). Unspoiled
    messages between spoiled ones are what reach the state spoiled ones left."""
    spoilers = [mutated(value)] + ([json_token_mutated(value)] if json else [])
    return st.one_of(st.just(value), *spoilers)
