"""Fuzzing the event JSON reader: any line gives a valid event or an EventJSONError naming
the line, never another exception (a 401-digit DOUBLE was an OverflowError)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdcwire.foundation.errors import EventJSONError
from cdcwire.model.event_json import from_json, to_json
from cdcwire.testing.mutations import json_token_mutated, mutated
from cdcwire.testing.strategies import events
from cdcwire.model.validation import check_event

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


def read_or_refused(line: bytes) -> None:
    try:
        event = from_json(line.decode("utf-8", "surrogateescape"), line=3)
    except EventJSONError as exc:
        assert exc.line == 3
        str(exc).encode()  # the message prints
        return
    check_event(event)


@FUZZ
@given(events(), st.data())
def test_json_token_swaps_read_as_valid_events_or_an_event_json_error(event, data):
    read_or_refused(data.draw(json_token_mutated(to_json(event).encode())))


@FUZZ
@given(events(), st.data())
def test_byte_edits_read_as_valid_events_or_an_event_json_error(event, data):
    read_or_refused(data.draw(mutated(to_json(event).encode())))
