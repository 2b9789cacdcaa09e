"""Fuzzing every built-in protocol's decoders: valid messages of generated events, mutated, decoded by the
Event path (``decode``) and the columnar path (``decode_into``, then Arrow and the record checks
as ``cdcwire.spark`` reads), with the rule both must keep: a decoded event is always valid, or
the message is a DecodeError; and where the columnar path takes a message, the Event path gives
the same events.

:func:`fuzz_decoding` runs it for any sink URI and returns counts, so a longer run
(``CDCWIRE_FUZZ_EXAMPLES=2000``) can say how many inputs were refused and that none got through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import os

import pytest

from cdcwire.api.codec_calls import decoder_for, encoder_for
from cdcwire.foundation.errors import DecodeError, InvalidEventError
from cdcwire.model.event_batch import EventBatch
from cdcwire.model.message import Message
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.rows.arrow_batches import event_batch_arrow
from cdcwire.spark.rows.arrow_events import batch_problems
from cdcwire.testing.mutations import json_token_mutated, mutated
from cdcwire.testing.strategies import event_batches
from cdcwire.model.validation import check_event
from cdcwire_avro.testing import LocalSchemaRegistry

#: Small in CI; a longer run: CDCWIRE_FUZZ_EXAMPLES=2000 (counts printed with -s).
EXAMPLES = int(os.environ.get("CDCWIRE_FUZZ_EXAMPLES", "15"))


@dataclass
class DecodeFuzzCounts:
    """What a fuzz run saw: messages decoded, refused (DecodeError), and the two failures it
    looks for, both 0 when the rule holds: invalid events accepted and paths disagreeing."""

    inputs: int = 0
    decode_errors: int = 0
    invalid_accepted: int = 0
    paths_disagree: int = 0
    #: Events the plugin's own decoder gave that the core's check then refused (the safety net).
    refused_by_check: int = 0


def fuzz_decoding(target: Any, max_examples: int = 25, json_tokens: bool = True) -> DecodeFuzzCounts:
    """Fuzz the decoders of ``target`` (a sink URI or config); asserts the rule on every input.
    ``json_tokens``: also swap JSON tokens (for JSON protocols), besides random byte edits."""
    sink = open_sink(target)
    checked = decoder_for(sink)
    counts = DecodeFuzzCounts()
    edits = st.sampled_from(("bytes", "tokens") if json_tokens else ("bytes",))

    @settings(max_examples=max_examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(event_batches(max_size=3), st.data())
    def check(events: list, data: Any) -> None:
        for payload in encoder_for(sink, "t", 0).encode(events):
            value = payload.value or b""
            edit = data.draw(edits)
            value = data.draw(json_token_mutated(value) if edit == "tokens" else mutated(value))
            _judge(sink, checked, Message("t", 0, payload.key, value, 0), counts)

    check()
    return counts


def _judge(sink: Any, checked: Any, message: Message, counts: DecodeFuzzCounts) -> None:
    counts.inputs += 1
    raw = sink.codec.decoder(sink.config)
    try:
        for event in raw.decode(message):
            check_event(event)
    except DecodeError:
        pass
    except InvalidEventError:
        counts.refused_by_check += 1
    try:
        events = checked.decode(message)
    except DecodeError:
        events = None
        counts.decode_errors += 1
    else:
        for event in events:
            try:
                check_event(event)
            except InvalidEventError:  # pragma: no cover - what the fuzzer exists to find
                counts.invalid_accepted += 1
                raise
    columnar = sink.codec.decoder(sink.config)
    if not hasattr(columnar, "decode_into"):
        return
    taken = _columnar_events(columnar, message)
    if taken is not None and taken != events:
        counts.paths_disagree += 1
        raise AssertionError(f"the columnar path took {taken!r}, the Event path {events!r}")


def _columnar_events(columnar: Any, message: Message) -> Any:
    """The events the columnar read takes from a message (decode_into, Arrow, the record checks
    all pass), else None: the read then goes the Event path."""
    batch = EventBatch.empty()
    try:
        columnar.decode_into(message, batch)
        arrow = event_batch_arrow(batch)
    except Exception:  # noqa: BLE001 - the columnar boundary sends anything to the Event path
        return None
    if batch_problems(arrow):
        return None
    events = list(batch.events())
    for event in events:
        check_event(event)  # what the record checks passed must be valid events
    return events


PROTOCOLS = {
    "open-protocol": "file:///tmp/cdcwire-fuzz/t?protocol=open-protocol",
    "canal-json": "file:///tmp/cdcwire-fuzz/t?protocol=canal-json&enable-tidb-extension=true",
    "canal-json-content-compatible": (
        "file:///tmp/cdcwire-fuzz/t?protocol=canal-json&enable-tidb-extension=true&content-compatible=true"
    ),
    "craft": "file:///tmp/cdcwire-fuzz/t?protocol=craft",
    "debezium": "file:///tmp/cdcwire-fuzz/t?protocol=debezium&enable-tidb-extension=true",
    "simple": "file:///tmp/cdcwire-fuzz/t?protocol=simple",
    "simple-avro": "file:///tmp/cdcwire-fuzz/t?protocol=simple&encoding-format=avro",
}


@pytest.mark.parametrize("protocol", sorted(PROTOCOLS))
def test_mutated_messages_decode_to_valid_events_or_a_decode_error_on_both_paths(protocol):
    counts = fuzz_decoding(PROTOCOLS[protocol], EXAMPLES, json_tokens=protocol not in ("craft", "simple-avro"))
    print(protocol, counts)
    assert counts.inputs and counts.invalid_accepted == 0 and counts.paths_disagree == 0



def test_mutated_avro_messages_decode_to_valid_events_or_a_decode_error():
    # compatibility NONE: the generated tables share one topic's subject (see avro's conformance tests)
    with LocalSchemaRegistry(compatibility="NONE") as registry:
        uri = ("file:///tmp/cdcwire-fuzz/t?protocol=avro&topic-rule=tidb_{schema}_{table}"
               f"&enable-tidb-extension=true&schema-registry={registry.url}")
        counts = fuzz_decoding(uri, EXAMPLES, json_tokens=False)
    print("avro", counts)
    assert counts.inputs and counts.invalid_accepted == 0 and counts.paths_disagree == 0
