"""simple with ``encoding-format=avro``: TiCDC's fixed schema read by fastavro on its own,
the value union of each column type, and the decoder on Avro messages."""

from __future__ import annotations

import io
import json
from importlib import resources

import fastavro
import pytest

from cdcwire.plugin_api import Column, DDLEvent, DDLType, DecodeError, Message, ResolvedEvent, RowChangedEvent
from simple_cases import KEY, F, T, decoder, encoder

AVRO = "encoding-format=avro"
NS = "com.pingcap.simple.avro."


def schema():
    text = resources.files("cdcwire_simple").joinpath("message.json").read_text()
    return fastavro.parse_schema(json.loads(text))


def read(value: bytes):
    """A message as fastavro reads it with the schema alone (any Avro reader of TiCDC's schema)."""
    return fastavro.schemaless_reader(io.BytesIO(value), schema(), return_record_name=True)


def test_the_shipped_schema_is_ticdcs_twelve_types_with_message_last() -> None:
    names = [t["name"] for t in json.loads(resources.files("cdcwire_simple").joinpath("message.json").read_text())]
    assert names == ["DataType", "ColumnSchema", "IndexSchema", "TableSchema", "Checksum", "Watermark", "Bootstrap",
                     "DDL", "Timestamp", "UnsignedBigint", "DML", "Message"]


def test_every_message_is_the_message_branch_of_the_top_level_union() -> None:
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1),), None)
    events = [row, DDLEvent(11, "db", "t", "TRUNCATE TABLE t", DDLType.TRUNCATE_TABLE), ResolvedEvent(12)]
    payloads = list(encoder(AVRO).encode(events))
    assert [p.value[0] for p in payloads] == [0x16] * 4
    assert [(read(p.value)[0], read(p.value)[1]["type"]) for p in payloads] == [
        (NS + "Message", "BOOTSTRAP"), (NS + "Message", "DML"), (NS + "Message", "DDL"), (NS + "Message", "WATERMARK"),
    ]
    ddl = read(payloads[2].value)[1]["payload"]
    assert ddl[0] == NS + "DDL" and ddl[1]["type"] == "TRUNCATE" and ddl[1]["commitTs"] == 11


def dml_data(column: Column):
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1), column), None)
    return read(list(encoder(AVRO).encode_event(row))[-1].value)[1]["payload"][1]["data"][column.name]


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (Column("c", T.INT, F.UNSIGNED, 4294967295), 4294967295),
        (Column("c", T.BIGINT, F(0), -5), -5),
        (Column("c", T.BIGINT, F.UNSIGNED, 18446744073709551615), (NS + "UnsignedBigint", {"value": -1})),
        (Column("c", T.FLOAT, F(0), 0.5), 0.5),
        (Column("c", T.DOUBLE, F(0), 0.1), 0.1),
        (Column("c", T.DECIMAL, F(0), "1.50", "decimal(5,2)"), "1.50"),
        (Column("c", T.TIMESTAMP, F.BINARY, "2024-01-01 00:00:00"),
         (NS + "Timestamp", {"location": "UTC", "value": "2024-01-01 00:00:00"})),
        (Column("c", T.ENUM, F(0), 2, "enum('a','b')"), 2),
        (Column("c", T.BIT, F.UNSIGNED, 5, "bit(3)"), 5),
        (Column("c", T.VARCHAR, F(0), "x"), "x"),
        (Column("c", T.VARCHAR, F.BINARY, b"\x01"), b"\x01"),
    ],
)
def test_values_take_the_branch_of_the_union_ticdc_writes(column: Column, expected: object) -> None:
    assert dml_data(column) == expected


def test_a_float_column_is_written_as_avro_float_and_a_double_as_double() -> None:
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1), Column("f", T.FLOAT, F(0), 0.1),
                                          Column("d", T.DOUBLE, F(0), 0.1)), None)
    value = list(encoder(AVRO).encode_event(row))[-1].value
    # map key "f" then branch 2 (float, 4 bytes); key "d" then branch 3 (double, 8 bytes)
    assert b"\x02f\x04\xcd\xcc\xcc=" in value and b"\x02d\x06\x9a\x99\x99\x99\x99\x99\xb9?" in value


def bit_message(raw) -> bytes:
    """A DML whose BIT column holds ``raw`` (a long, or the digits older ticdc wrote)."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, schema(), (NS + "Message", {"type": "DML", "payload": (NS + "DML", {
        "version": 1, "database": "db", "table": "t", "tableID": 0, "type": "INSERT", "commitTs": 10,
        "buildTs": 0, "schemaVersion": 10, "data": {"id": ("long", 1), "b": raw},
    })}))
    return out.getvalue()


@pytest.mark.parametrize("raw", [("long", 5), ("string", "5")])
def test_bit_reads_back_from_a_long_and_from_digits(raw) -> None:
    row = RowChangedEvent(10, "db", "t", (Column("id", T.INT, KEY, 1), Column("b", T.BIT, F.UNSIGNED, 5, "bit(3)")),
                          None)
    bootstrap, _ = encoder(AVRO).encode_event(row)
    dec = decoder(AVRO)
    dec.decode(Message("t", 0, None, bootstrap.value, 0))
    (back,) = dec.decode(Message("t", 0, None, bit_message(raw), 1))
    assert back.columns[1].value == 5


def test_a_commit_ts_past_two_to_the_63_round_trips_through_the_signed_long() -> None:
    ts = (1 << 64) - 2
    (payload,) = encoder(AVRO).encode_event(ResolvedEvent(ts))
    assert read(payload.value)[1]["payload"][1]["commitTs"] == -2
    assert decoder(AVRO).decode(Message("t", 0, None, payload.value, 0)) == [ResolvedEvent(ts)]


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"", "not 0x16"),
        (b"\x00", "starts with byte 00, not 0x16"),
        (b"\x16\x00", "does not read with TiCDC's simple Avro schema"),
        (b"\x16\x00\x00\x02\x00\x00\xff", "bytes after its message"),
    ],
)
def test_damaged_avro_is_a_decode_error_saying_what_is_wrong(value: bytes, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        decoder(AVRO).decode(Message("t", 0, None, value, 0))
