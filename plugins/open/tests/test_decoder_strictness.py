"""The decoder refuses bad input with DecodeError (part and byte offset), and nothing else."""

from __future__ import annotations

import json
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DecodeError, Message, ResolvedEvent, RowChangedEvent
from cdcwire.testing.strategies import all_types_table, row_events
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
URI = "file:///tmp/cdcwire-open/t?protocol=open-protocol"
CONFIG = cdcwire.parse_sink_uri(URI)
VERSION = struct.pack(">Q", 1)


def framed(*parts: bytes) -> bytes:
    return b"".join(struct.pack(">Q", len(p)) + p for p in parts)


def decode(key: bytes, value: bytes):
    return open_sink(CONFIG).codec.decoder(CONFIG).decode(Message("t", 0, key, value))


def refused(key: bytes, value: bytes) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode(key, value)
    return info.value


ROW_KEY = b'{"ts":1,"scm":"s","tbl":"t","t":1}'
ROW_VALUE = b'{"u":{"id":{"t":3,"h":true,"f":10,"v":1}}}'


def messages_of(events) -> list[Message]:
    return [Message("t", 0, p.key, p.value) for p in open_sink(CONFIG).codec.encoder(CONFIG, "t", 0).encode(events)]


def test_a_valid_hand_made_message_decodes() -> None:
    [event] = decode(VERSION + framed(ROW_KEY), framed(ROW_VALUE))
    assert event == RowChangedEvent(1, "s", "t", (Column("id", T.INT, F.HANDLE_KEY | F.PRIMARY_KEY, 1),))


def test_go_output_without_f_reads_h_as_the_handle_key_flag() -> None:
    value = b'{"u":{"id":{"t":3,"h":true,"v":1},"val":{"t":15,"v":"aa"}}}'
    [event] = decode(VERSION + framed(ROW_KEY), framed(value))
    assert [(c.flags, c.value) for c in event.columns] == [(F.HANDLE_KEY, 1), (F(0), "aa")]


def test_go_html_escapes_and_unescaped_text_both_decode() -> None:
    escaped = b'{"u":{"v":{"t":15,"f":0,"v":"\\u003cb\\u003e\\u0026"}}}'
    plain = b'{"u":{"v":{"t":15,"f":0,"v":"<b>&"}}}'
    assert decode(VERSION + framed(ROW_KEY), framed(escaped)) == decode(VERSION + framed(ROW_KEY), framed(plain))


def test_unknown_version_is_refused_at_byte_zero() -> None:
    err = refused(struct.pack(">Q", 2) + framed(ROW_KEY), framed(ROW_VALUE))
    assert (err.part, err.offset) == ("key", 0) and "version 2" in str(err)


def test_key_shorter_than_the_version_is_refused() -> None:
    assert refused(b"\x00\x00\x01", framed(ROW_VALUE)).part == "key"


def test_key_with_version_only_is_refused() -> None:
    assert "no event" in str(refused(VERSION, b""))


def test_huge_declared_length_is_refused_without_allocating() -> None:
    key = VERSION + struct.pack(">Q", (1 << 64) - 1) + ROW_KEY
    err = refused(key, framed(ROW_VALUE))
    assert (err.part, err.offset) == ("key", 8) and "runs past the end" in str(err)


def test_value_length_past_the_end_names_the_value_offset() -> None:
    value = framed(ROW_VALUE)[:-3]
    err = refused(VERSION + framed(ROW_KEY), value)
    assert (err.part, err.offset) == ("value", 0)


def test_more_keys_than_values_is_refused() -> None:
    err = refused(VERSION + framed(ROW_KEY, ROW_KEY), framed(ROW_VALUE))
    assert err.part == "value" and "key holds more" in str(err)


def test_more_values_than_keys_is_refused() -> None:
    err = refused(VERSION + framed(ROW_KEY), framed(ROW_VALUE, ROW_VALUE))
    assert err.part == "value" and err.offset == 8 + len(ROW_VALUE)


def test_invalid_json_reports_the_byte_offset_of_the_fault() -> None:
    bad = b'{"u":{"id":{"t":3,"f":10,"v":1}}]'
    err = refused(VERSION + framed(ROW_KEY), framed(bad))
    assert err.part == "value" and err.offset == 8 + bad.index(b"]")


def test_invalid_utf8_is_refused_with_its_offset() -> None:
    bad_key = b'{"ts":1,"scm":"\xff","tbl":"t","t":1}'
    err = refused(VERSION + framed(bad_key), framed(ROW_VALUE))
    assert (err.part, err.offset) == ("key", 16 + bad_key.index(b"\xff"))


@pytest.mark.parametrize(
    "key,reason",
    [
        (b"[1,2]", "must be a JSON object"),
        (b'{"scm":"s","tbl":"t","t":1}', "lacks field 'ts'"),
        (b'{"ts":-1,"t":1}', "field 'ts'"),
        (b'{"ts":18446744073709551616,"t":3}', "field 'ts'"),
        (b'{"ts":1.5,"t":3}', "field 'ts'"),
        (b'{"ts":1,"scm":"s","tbl":"t"}', "lacks field 't'"),
        (b'{"ts":1,"t":4}', "field 't'"),
        (b'{"ts":1,"t":true}', "field 't'"),
        (b'{"ts":1,"scm":5,"tbl":"t","t":1}', "field 'scm'"),
        (b'{"ts":1,"scm":"s","tbl":null,"t":1}', "field 'tbl'"),
        (b'{"ts":1,"scm":"s","tbl":"t","ptn":"7","t":1}', "field 'ptn'"),
        (b'{"ts":1,"scm":"s","tbl":"t","t":1,"ohk":1}', "field 'ohk'"),
    ],
)
def test_malformed_keys_are_refused_saying_which_field(key: bytes, reason: str) -> None:
    err = refused(VERSION + framed(key), framed(ROW_VALUE))
    assert err.part == "key" and err.offset == 16 and reason in str(err)


@pytest.mark.parametrize(
    "value,reason",
    [
        (b'"x"', "must be a JSON object"),
        (b"{}", "needs 'u'"),
        (b'{"p":{}}', "needs 'u'"),
        (b'{"u":{},"d":{}}', "'d' together"),
        (b'{"u":[]}', "'u' must be an object"),
        (b'{"u":{"c":7}}', "column 'c' in 'u' must be an object"),
        (b'{"u":{"c":{"f":0,"v":1}}}', "'t' must be a type code, got missing"),
        (b'{"u":{"c":{"t":"3","v":1}}}', "'t' must be a type code"),
        (b'{"u":{"c":{"t":3,"f":"0","v":1}}}', "'f' must be a flag number"),
        (b'{"u":{"c":{"t":3,"h":1,"v":1}}}', "'h' must be true or false"),
        (b'{"u":{"c":{"t":3,"f":0}}}', "lacks its value 'v'"),
        (b'{"u":{"c":{"t":99,"f":0,"v":1}}}', "unknown type code 99"),
        (b'{"u":{"c":{"t":3,"f":-1,"v":1}}}', "flags -1"),
        (b'{"u":{"c":{"t":3,"f":0,"v":"1"}}}', "expected an integer"),
        (b'{"u":{"c":{"t":3,"f":0,"v":1.0}}}', "expected an integer"),
        (b'{"u":{"c":{"t":8,"f":128,"v":18446744073709551616}}}', "expected an integer"),
        (b'{"u":{"c":{"t":4,"f":0,"v":1e39}}}', "float32 range"),
        (b'{"u":{"c":{"t":5,"f":0,"v":1e999}}}', "finite"),
        (b'{"u":{"c":{"t":5,"f":0,"v":"1.5"}}}', "finite number"),
        (b'{"u":{"c":{"t":15,"f":0,"v":5}}}', "expected a string"),
        (b'{"u":{"c":{"t":15,"f":1,"v":"\\\\q"}}}', "Go-quoted"),
        (b'{"u":{"c":{"t":252,"f":1,"v":"not base64!"}}}', "base64"),
        (b'{"u":{"c":{"t":252,"f":0,"v":"/w=="}}}', "not UTF-8"),
        (b'{"u":{"c":{"t":6,"f":0,"v":1}}}', "only null"),
        (b'{"u":{"c":{"t":255,"f":0,"v":"x"}}}', "not supported"),
    ],
)
def test_malformed_row_values_are_refused_saying_what_is_wrong(value: bytes, reason: str) -> None:
    err = refused(VERSION + framed(ROW_KEY), framed(value))
    assert err.part == "value" and err.offset == 8 and reason in str(err)


@pytest.mark.parametrize(
    "value,reason",
    [(b'{"t":3}', "field 'q'"), (b'{"q":"x"}', "field 't'"), (b'{"q":"x","t":999}', "DDL type code"), (b"[]", "JSON object")],
)
def test_malformed_ddl_values_are_refused(value: bytes, reason: str) -> None:
    key = b'{"ts":1,"scm":"s","tbl":"t","t":2}'
    assert reason in str(refused(VERSION + framed(key), framed(value)))


def test_resolved_event_with_a_value_is_refused() -> None:
    err = refused(VERSION + framed(b'{"ts":1,"t":3}'), framed(b"{}"))
    assert (err.part, err.offset) == ("value", 8)


@pytest.mark.parametrize("number", [b"NaN", b"Infinity", b"-Infinity", b"1" * 5000])
def test_non_json_numbers_are_refused(number: bytes) -> None:
    value = b'{"u":{"c":{"t":5,"f":0,"v":' + number + b"}}}"
    assert refused(VERSION + framed(ROW_KEY), framed(value)).part == "value"


def test_deeply_nested_json_is_refused_not_a_recursion_error() -> None:
    value = b'{"u":{"c":{"t":245,"f":0,"v":' + b"[" * 100_000 + b"]" * 100_000 + b"}}}"
    assert refused(VERSION + framed(ROW_KEY), framed(value)).part == "value"


def test_utf16_json_is_refused_not_sniffed() -> None:
    assert refused(VERSION + framed(ROW_KEY), framed(ROW_VALUE.decode().encode("utf-16-le"))).part == "value"


def test_api_decode_error_names_the_message_location() -> None:
    with pytest.raises(DecodeError, match=r"^t/0/41: "):
        cdcwire.decode("open-protocol", [Message("t", 0, VERSION, b"", 41)])


def _all_truncations(message: Message):
    for cut in range(len(message.key)):
        yield Message("t", 0, message.key[:cut], message.value)
    for cut in range(len(message.value)):
        yield Message("t", 0, message.key, message.value[:cut])


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=3))
def test_every_truncation_of_a_valid_message_raises_decode_error(events) -> None:
    decoder = open_sink(CONFIG).codec.decoder(CONFIG)
    for message in messages_of([*events, ResolvedEvent(1)]):
        for broken in _all_truncations(message):
            with pytest.raises(DecodeError):
                decoder.decode(broken)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(row_events(all_types_table()), st.data())
def test_random_byte_flips_raise_only_decode_error(event, data) -> None:
    [message] = messages_of([event])
    decoder = open_sink(CONFIG).codec.decoder(CONFIG)
    for _ in range(20):
        part = data.draw(st.sampled_from(["key", "value"]))
        buf = bytearray(getattr(message, part))
        for _ in range(data.draw(st.integers(1, 3))):
            i = data.draw(st.integers(0, len(buf) - 1))
            buf[i] ^= data.draw(st.integers(1, 255))
        broken = Message("t", 0, bytes(buf), message.value) if part == "key" else Message("t", 0, message.key, bytes(buf))
        try:
            out = decoder.decode(broken)
        except DecodeError:
            continue
        assert all(isinstance(e, (RowChangedEvent, DDLEvent, ResolvedEvent)) for e in out)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=64), st.binary(max_size=64))
def test_arbitrary_bytes_raise_only_decode_error(key: bytes, value: bytes) -> None:
    try:
        decode(VERSION + key, value)
    except DecodeError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["u", "p", "d", "t", "f", "h", "v", "c", "q"]), inner, max_size=4),
                    max_leaves=12))
def test_arbitrary_json_values_raise_only_decode_error(doc) -> None:
    value = json.dumps(doc).encode()
    for key in (ROW_KEY, b'{"ts":1,"scm":"s","tbl":"t","t":2}'):
        try:
            decode(VERSION + framed(key), framed(value))
        except DecodeError:
            pass


def test_a_column_header_holding_a_list_is_a_decode_error():
    from cdcwire import DecodeError, Message
    from cdcwire_open.decoder import OpenProtocolDecoder

    key = b'{"ts":1,"scm":"s","tbl":"t","t":1}'
    value = b'{"u":{"id":{"t":[3],"f":0,"v":1}}}'
    frame = lambda part: len(part).to_bytes(8, "big") + part  # noqa: E731
    message = Message("t", 0, (1).to_bytes(8, "big") + frame(key), frame(value))
    with pytest.raises(DecodeError, match="column 'id'"):
        OpenProtocolDecoder().decode(message)
