"""decode(encode(events)) gives back exactly what the codec says it carries."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.foundation.errors import InvalidEventError
from cdcwire.testing.conformance import CodecConformance, expected, round_trip
from cdcwire.testing.strategies import COLUMN_KINDS, KINDS_BY_LABEL, TableSpec, all_types_table, row_events
from cdcwire.sinks.sink import open_sink

URI = "file:///tmp/cdcwire-open/t?protocol=open-protocol"
F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


class TestOpenProtocolConformance(CodecConformance):
    sink_uri = URI


def config(**params: object):
    query = "".join(f"&{k}={v}" for k, v in params.items())
    return cdcwire.parse_sink_uri(URI + query)


def insert(*columns: Column, ts: int = 7) -> RowChangedEvent:
    return RowChangedEvent(ts, "test", "t", (Column("id", T.INT, KEY, 1), *columns))


def back(event, **params: object):
    """The single event read back after encoding ``event`` alone."""
    _, events = round_trip(config(**params), [event])
    assert len(events) == 1
    return events[0]


def value_back(column: Column):
    row = back(insert(column))
    return row.columns[1].value


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(COLUMN_KINDS).flatmap(lambda k: row_events(TableSpec("test", "t", (k,), (True,)))))
def test_any_single_column_type_round_trips_to_what_is_carried(event: RowChangedEvent) -> None:
    c = config()
    _, events = round_trip(c, [event])
    assert events == expected(c, [event])


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(row_events(all_types_table()), min_size=1, max_size=20))
def test_batches_of_all_type_rows_round_trip_in_order(events: list[RowChangedEvent]) -> None:
    c = config(**{"max-batch-size": 3})
    _, got = round_trip(c, events)
    assert got == expected(c, events)


def test_carried_drops_mysql_type_text_from_every_column() -> None:
    event = insert(Column("d", T.DECIMAL, F(0), "1.50", "decimal(10,2)"))
    carried = open_sink(config()).codec.carrier(config())(event)
    assert [c.mysql_type for c in carried.columns] == [None, None]
    assert back(event) == carried


def test_unsigned_bigint_max_round_trips_exactly() -> None:
    u64 = (1 << 64) - 1
    assert value_back(Column("c", T.BIGINT, F.UNSIGNED, u64)) == u64


def test_signed_bigint_min_round_trips_exactly() -> None:
    assert value_back(Column("c", T.BIGINT, F(0), -(1 << 63))) == -(1 << 63)


def test_bit64_all_ones_round_trips_as_unsigned() -> None:
    assert value_back(Column("c", T.BIT, F.UNSIGNED, (1 << 64) - 1)) == (1 << 64) - 1


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float32_values_come_back_bit_exact(x: float) -> None:
    got = value_back(Column("c", T.FLOAT, F(0), x))
    assert struct.pack("<f", got) == struct.pack("<f", x)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_values_come_back_bit_exact(x: float) -> None:
    got = value_back(Column("c", T.DOUBLE, F(0), x))
    assert struct.pack("<d", got) == struct.pack("<d", x)


def test_varbinary_with_all_256_byte_values_round_trips() -> None:
    data = bytes(range(256))
    assert value_back(Column("c", T.VARCHAR, F.BINARY, data)) == data


def test_binary_char_with_all_256_byte_values_round_trips() -> None:
    data = bytes(range(256))[::-1]
    assert value_back(Column("c", T.CHAR, F.BINARY, data)) == data


def test_blob_with_all_256_byte_values_round_trips() -> None:
    data = bytes(range(256)) * 3
    assert value_back(Column("c", T.LONGBLOB, F.BINARY, data)) == data


@given(st.binary(max_size=64))
def test_any_varbinary_bytes_round_trip(data: bytes) -> None:
    assert value_back(Column("c", T.VARCHAR, F.BINARY, data)) == data


def test_nulls_of_every_type_round_trip_as_none() -> None:
    columns = tuple(Column(f"c_{k.label}", k.type, k.flags | F.NULLABLE, None) for k in COLUMN_KINDS)
    row = back(insert(*columns))
    assert [c.value for c in row.columns[1:]] == [None] * len(COLUMN_KINDS)


def test_empty_strings_and_bytes_round_trip_empty() -> None:
    columns = (
        Column("vc", T.VARCHAR, F(0), ""),
        Column("vb", T.VARCHAR, F.BINARY, b""),
        Column("tx", T.BLOB, F(0), ""),
        Column("bl", T.BLOB, F.BINARY, b""),
    )
    row = back(insert(*columns))
    assert [c.value for c in row.columns[1:]] == ["", b"", "", b""]


@given(st.text(st.characters(blacklist_categories=("Cs",))))
def test_unicode_text_round_trips_in_varchar_and_text(text: str) -> None:
    row = back(insert(Column("v", T.VARCHAR, F(0), text), Column("t", T.MEDIUMBLOB, F(0), text)))
    assert [c.value for c in row.columns[1:]] == [text, text]


def test_html_sensitive_characters_round_trip() -> None:
    text = "<a href='x'>&amp;</a>\u2028\u2029"
    event = RowChangedEvent(1, "s<&>", "t>", (Column("n&m", T.VARCHAR, KEY, text),))
    assert back(event) == open_sink(config()).codec.carrier(config())(event)


def test_partitioned_table_id_round_trips_as_ptn() -> None:
    event = RowChangedEvent(5, "test", "t", (Column("id", T.INT, KEY, 1),), None, table_id=123456)
    assert back(event).table_id == 123456


def test_column_order_of_the_event_is_kept() -> None:
    event = insert(Column("zeta", T.INT, F(0), 1), Column("alpha", T.INT, F(0), 2))
    assert [c.name for c in back(event).columns] == ["id", "zeta", "alpha"]


def test_str_value_of_a_blob_column_is_refused_before_encoding() -> None:
    # a BINARY BLOB's value is bytes in the event model (cdcwire.model.validation)
    with pytest.raises(InvalidEventError, match=r"columns\[1\]\.value \(column 'c'\): .*must be bytes, got str"):
        value_back(Column("c", T.BLOB, F.BINARY, "héllo"))


def test_ddl_event_round_trips_with_its_type() -> None:
    ddl = DDLEvent(9, "test", "t", "ALTER TABLE t ADD COLUMN c INT", DDLType.ADD_COLUMN)
    assert back(ddl) == ddl


def test_schema_level_ddl_with_empty_table_round_trips() -> None:
    ddl = DDLEvent(9, "db1", "", "CREATE DATABASE db1", DDLType.CREATE_SCHEMA)
    assert back(ddl) == ddl


def test_resolved_event_round_trips() -> None:
    assert back(ResolvedEvent((1 << 64) - 1)) == ResolvedEvent((1 << 64) - 1)


def test_decode_through_the_public_api_with_the_default_alias() -> None:
    events = [insert(Column("v", T.VARCHAR, F(0), "x")), ResolvedEvent(8)]
    messages = cdcwire.encode(URI + "&partition-num=1", events)
    assert cdcwire.decode("default", messages) == [open_sink(config()).codec.carrier(config())(e) for e in events]


def test_every_kind_label_is_covered_by_the_strategies() -> None:
    assert {"bigint_unsigned", "float", "varbinary", "blob", "text", "bit64"} <= set(KINDS_BY_LABEL)
