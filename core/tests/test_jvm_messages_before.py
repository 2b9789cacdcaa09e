"""The messages of no event a batching Java encoder closes before a row's (plugin API 1.17:
simple's BOOTSTRAP): the encoding stage writes them, in order, before the message of the row
they ride on (``BatchEncoding`` puts them in ``_cdc_messages_before``)."""

from __future__ import annotations

import pyarrow as pa

import cdcwire
from cdcwire.api.message_writing import WrittenMessages, write_payloads
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.writer.encoding import made_payloads
from cdcwire.spark.writer.jvm_encoding import BEFORE_COLUMN, EVENTS_COLUMN, KEY_COLUMN, VALUE_COLUMN

PAIR = pa.struct([pa.field("key", pa.binary()), pa.field("value", pa.binary(), nullable=False)])


def made_rows(values, keys, events, before) -> pa.RecordBatch:
    """Rows as the Java encoding pass leaves them: one per event, a message on the last of its events."""
    return pa.RecordBatch.from_arrays(
        [pa.array(values, pa.binary()), pa.array(keys, pa.binary()), pa.array(events, pa.int32()),
         pa.array(before, pa.list_(PAIR))],
        names=[VALUE_COLUMN, KEY_COLUMN, EVENTS_COLUMN, BEFORE_COLUMN],
    )


def test_a_message_of_no_event_is_written_before_the_message_of_the_row_it_rides_on(tmp_path):
    rows = made_rows(
        [b"row 1", b"row 2", None, b"rows 3-4"], [None, None, None, b"k"], [1, 1, 0, 2],
        [[{"key": None, "value": b"schema a"}], None,
         [{"key": None, "value": b"schema b"}, {"key": b"kb", "value": b"schema b again"}], None],
    )
    uri = f"file://{tmp_path}/orders?protocol=echo-json&partition-num=1"
    sink = open_sink(uri)
    with sink.needs_transport().writer(sink.config) as writer:
        counts = write_payloads(writer, "orders", 0, made_payloads(rows))
    back = [(m.key, m.value) for m in cdcwire.read(uri)]
    assert back == [(None, b"schema a"), (None, b"row 1"), (None, b"row 2"), (None, b"schema b"),
                    (b"kb", b"schema b again"), (b"k", b"rows 3-4")]
    assert counts == WrittenMessages(events=4, messages=6, bytes=sum(len(k or b"") + len(v) for k, v in back))


def test_rows_without_messages_before_give_only_their_own_messages():
    rows = made_rows([None, b"rows 1-2", b"row 3"], [None, b"k", b"k"], [0, 2, 1], [None, None, None])
    assert [(p.key, p.value, p.events) for p in made_payloads(rows)] == [(b"k", b"rows 1-2", 2), (b"k", b"row 3", 1)]
