"""A permissive ``cs.read`` of mutated debezium messages: every message reads as the Event path
(``cdcwire.decode``) reads it, its events or one ``_malformed`` row at its offset; one bad
message never fails the job.

The mutations are the debezium plugin's fuzz test's (plugins/debezium/tests/test_decode_fuzz.py):
JSON values of the wrong kind at any key of key and value, numbers past every range, odd
strings. A sample of them is written to a ``file://`` sink and read back by Spark once.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DecodeError, Message, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.api.codec_calls import encoder_for
from cdcwire.sinks.sink import open_sink, parse_sink_uri
from cdcwire.testing.json_value_mutations import json_value_mutated
from cdcwire.testing.strategies import all_types_table, event_batches, row_events

#: Small in CI; a longer run: CDCWIRE_FUZZ_EXAMPLES=2000 (counts printed with -s).
SAMPLE = int(os.environ.get("CDCWIRE_FUZZ_EXAMPLES", "150"))


def mutated_sample(uri: str, size: int) -> list[Message]:
    """``size`` or so mutated messages of generated events (rows of every column kind among them)."""
    out: list[Message] = []

    @settings(max_examples=size, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(st.one_of(event_batches(max_size=2), row_events(all_types_table()).map(lambda r: [r])), st.data())
    def collect(events, data):
        for payload in encoder_for(uri, "t", 0).encode(events):
            key, value = payload.key, payload.value or b""
            if data.draw(st.booleans()):
                value = data.draw(json_value_mutated(value))
            else:
                key = data.draw(json_value_mutated(key or b"{}"))
            out.append(Message("t", 0, key, value))

    collect()
    return out


KEY = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")


def issue_38_messages(uri: str) -> list[Message]:
    """The three that were raw exceptions (issue 38): a schema field's ``"optional": {}``,
    non-ASCII text in a binary column, FLOAT 3.5e38."""
    out = []
    for column, at, to in [
        (Column("c", ColumnType.INT, ColumnFlag.NULLABLE, 1, "int(11)"), "optional", {}),
        (Column("c", ColumnType.VARCHAR, ColumnFlag.BINARY, b"x", "varbinary(4)"), "after", "\u00e9"),
        (Column("c", ColumnType.FLOAT, ColumnFlag(0), 1.5, "float"), "after", 3.5e38),
    ]:
        [message] = cdcwire.encode(uri, [RowChangedEvent(1, "s", "t", (KEY, column))])
        value = json.loads(message.value)
        if at == "optional":
            value["schema"]["fields"][1]["fields"][1]["optional"] = to
        else:
            value["payload"]["after"]["c"] = to
        out.append(Message("t", 0, message.key, json.dumps(value).encode()))
    return out


def test_a_permissive_read_of_mutated_debezium_messages_gives_each_its_events_or_a_malformed_row(spark, tmp_path):
    uri = f"file://{tmp_path}/in/t?protocol=debezium&enable-tidb-extension=true&partition-num=1"
    messages = issue_38_messages(uri) + mutated_sample(uri, SAMPLE)
    expected_events: Counter = Counter()
    refused = set()
    for offset, message in enumerate(messages):
        try:
            expected_events[offset] = len(cdcwire.decode(uri, [message]))
        except DecodeError:
            refused.add(offset)
    config = parse_sink_uri(uri)
    with open_sink(config).transport.writer(config) as writer:
        for message in messages:
            writer.write(message)

    rows = cs.read(spark, uri, permissive=True).select("offset", "_malformed").collect()

    malformed = {r["offset"] for r in rows if r["_malformed"] is not None}
    decoded = Counter(r["offset"] for r in rows if r["_malformed"] is None)
    print(f"debezium Spark sample: {len(messages)} messages, {len(malformed)} malformed, {sum(decoded.values())} events")
    assert {0, 1, 2} <= refused and expected_events  # the sample holds both kinds
    assert malformed == refused
    assert decoded == +expected_events
