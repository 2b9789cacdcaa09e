"""A file sink's messages read through a codec's columnar decoder give the batches the Event path
gives, malformed messages included (strict: the same located error; permissive: the same rows)."""

from __future__ import annotations

import pyarrow as pa
import pytest

import cdcwire
from cdcwire import DecodeError
from cdcwire.api.codec_calls import decoder_for
from cdcwire.model.message import Message
from cdcwire.spark.reader import range_decoding
from cdcwire.spark.reader.message_ranges import MessageRange
from cdcwire.spark.runtime.sink_cache import cached_sink
from cdcwire.workload import Workload

PART = MessageRange("t", 0, None, None)


def sink_with(tmp_path, events: int, bad_at: int | None = None) -> str:
    uri = f"file://{tmp_path}/sink/t?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    messages = cdcwire.encode(uri, list(Workload(events, seed=5)))
    if bad_at is not None:
        messages.insert(bad_at, Message("t", 0, None, b'{"id":0,"not":"canal"}'))
    cdcwire.write(uri, messages)
    return uri


def by_event_path(uri: str, permissive: bool = False) -> pa.Table:
    sink = cached_sink(uri)
    reader = sink.needs_transport().reader(sink.config)
    try:
        messages = reader.read("t", 0, None, None)
        return pa.Table.from_batches(list(range_decoding.event_batches(decoder_for(sink), messages, permissive)))
    finally:
        reader.close()


def by_columns(uri: str, permissive: bool = False) -> pa.Table:
    return pa.Table.from_batches(list(range_decoding.decode_range(uri, PART, permissive)))


def test_columnar_reading_gives_the_event_paths_rows(tmp_path):
    uri = sink_with(tmp_path, 9000)  # three chunks
    assert by_columns(uri).equals(by_event_path(uri))


def test_a_malformed_message_fails_the_columnar_read_naming_its_offset(tmp_path):
    uri = sink_with(tmp_path, 500, bad_at=321)
    with pytest.raises(DecodeError, match=r"t/0/321"):
        by_columns(uri)


def test_read_permissively_a_malformed_message_is_the_same_row_on_both_paths(tmp_path):
    uri = sink_with(tmp_path, 5000, bad_at=4500)
    columnar = by_columns(uri, permissive=True)
    assert columnar.equals(by_event_path(uri, permissive=True))
    assert columnar.column("_malformed").drop_null().to_pylist()[0]["source"] == "t/0/4500"


#: A canal-json insert whose BIGINT value is past 64 bits: no Arrow column holds it.
PAST_64_BITS = (
    b'{"id":0,"database":"s","table":"t","pkNames":["id"],"isDdl":false,"type":"INSERT","es":1,"ts":1,'
    b'"sql":"","sqlType":{"id":-5},"mysqlType":{"id":"bigint"},"old":null,'
    b'"data":[{"id":"99999999999999999999999"}],"_tidb":{"commitTs":5}}'
)


def sink_with_message(tmp_path, value: bytes, at: int) -> str:
    uri = f"file://{tmp_path}/sink/t?protocol=canal-json&enable-tidb-extension=true&partition-num=1"
    messages = cdcwire.encode(uri, list(Workload(20, seed=5)))
    messages.insert(at, Message("t", 0, None, value))
    cdcwire.write(uri, messages)
    return uri


def test_read_permissively_an_integer_past_64_bits_is_a_malformed_row(tmp_path):
    uri = sink_with_message(tmp_path, PAST_64_BITS, at=7)
    columnar = by_columns(uri, permissive=True)
    assert columnar.equals(by_event_path(uri, permissive=True))
    [bad] = columnar.column("_malformed").drop_null().to_pylist()
    assert bad["source"] == "t/0/7" and "outside" in bad["reason"]


def test_an_integer_past_64_bits_fails_the_columnar_read_with_a_decode_error(tmp_path):
    uri = sink_with_message(tmp_path, PAST_64_BITS, at=7)
    with pytest.raises(DecodeError, match=r"t/0/7.*outside"):
        by_columns(uri)
