"""The simple decoder keeps table schemas by (schema, table, version) and parks rows whose
schema has not arrived, releasing them in order when it does (TiCDC's ``decoder.go``)."""

from __future__ import annotations

import json

import pytest

import cdcwire

from cdcwire.plugin_api import Column, DDLEvent, DDLType, DecodeError, Message, ResolvedEvent, RowChangedEvent
from simple_cases import KEY, F, T, decoder, encoder, user_columns

from cdcwire_simple import decoder as decoder_module


def messages(events, query: str = "") -> list[Message]:
    enc = encoder(query)
    return [Message("t", 0, p.key, p.value, i) for i, p in enumerate(enc.encode(events))]


def decode_all(dec, msgs) -> list:
    out = []
    for m in msgs:
        out.extend(dec.decode(m))
    return out


def user_row(ts: int, id_: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "simple", "user", user_columns(id_, f"n{id_}", 20 + id_, 1.5), None)


def kinds(msgs) -> list[str]:
    return [json.loads(m.value)["type"] for m in msgs]


def test_a_bootstrap_goes_before_a_tables_first_row_and_decodes_to_no_event() -> None:
    msgs = messages([user_row(10, 1), user_row(11, 2)])
    assert kinds(msgs) == ["BOOTSTRAP", "INSERT", "INSERT"]
    assert decoder().decode(msgs[0]) == []


def test_rows_read_back_typed_by_their_schema() -> None:
    msgs = messages([user_row(10, 1)])
    (row,) = decode_all(decoder(), msgs)
    assert [(c.name, c.type, c.flags, c.value, c.mysql_type) for c in row.columns] == [
        ("id", T.INT, KEY, 1, "int(11)"),
        ("name", T.VARCHAR, F.NULLABLE, "n1", "varchar(255)"),
        ("age", T.INT, F.NULLABLE, 21, "int(11)"),
        ("score", T.FLOAT, F.NULLABLE, 1.5, "float"),
    ]


def test_a_reader_starting_mid_stream_gets_its_rows_when_the_next_bootstrap_arrives() -> None:
    """Scenario 2 of TiCDC's docs: the consumer missed the first BOOTSTRAP; rows wait for the
    re-sent one (every 2 rows here) and come out in their order."""
    msgs = messages([user_row(10 + i, i) for i in range(5)], "send-bootstrap-in-msg-count=2")
    assert kinds(msgs) == ["BOOTSTRAP", "INSERT", "INSERT", "BOOTSTRAP", "INSERT", "INSERT", "BOOTSTRAP", "INSERT"]
    dec = decoder()
    assert dec.decode(msgs[1]) == [] and dec.decode(msgs[2]) == []
    assert dec.parked == 2
    released = dec.decode(msgs[3])
    assert [r.columns[0].value for r in released] == [0, 1]
    assert dec.parked == 0
    assert [e.columns[0].value for e in decode_all(dec, msgs[4:])] == [2, 3, 4]


def test_rows_of_the_schema_before_a_ddl_come_out_before_it_and_rows_of_its_schema_after() -> None:
    ddl = DDLEvent(20, "simple", "user", "ALTER TABLE user COMMENT 'x'", DDLType.MODIFY_TABLE_COMMENT)
    msgs = messages([user_row(10, 1), ddl, user_row(30, 2)])
    assert kinds(msgs) == ["BOOTSTRAP", "INSERT", "ALTER", "INSERT"]
    dec = decoder()
    assert dec.decode(msgs[1]) == [] and dec.decode(msgs[3]) == []
    out = dec.decode(msgs[2])
    assert [type(e).__name__ for e in out] == ["RowChangedEvent", "DDLEvent", "RowChangedEvent"]
    assert [e.commit_ts for e in out] == [10, 20, 30]


def test_a_ddl_reads_back_with_its_statements_type_and_its_table() -> None:
    ddl = DDLEvent(20, "simple", "user", "ALTER TABLE user ADD COLUMN c int", DDLType.ADD_COLUMN)
    (msg,) = messages([ddl])
    assert decoder().decode(msg) == [ddl]


def test_a_watermark_reads_back_as_a_resolved_event() -> None:
    (msg,) = messages([ResolvedEvent(99)])
    assert decoder().decode(msg) == [ResolvedEvent(99)]


def test_a_new_column_shape_after_a_ddl_gets_a_new_version_and_bootstrap() -> None:
    ddl = DDLEvent(20, "simple", "user", "ALTER TABLE user ADD COLUMN c int", DDLType.ADD_COLUMN)
    wider = RowChangedEvent(30, "simple", "user", user_columns(2, "b", 3, 1.0) + (Column("c", T.INT, F.NULLABLE, 7),),
                            None)
    msgs = messages([user_row(10, 1), ddl, wider])
    assert kinds(msgs) == ["BOOTSTRAP", "INSERT", "ALTER", "BOOTSTRAP", "INSERT"]
    assert json.loads(msgs[4].value)["schemaVersion"] == 30
    out = decode_all(decoder(), msgs)
    assert [c.name for c in out[-1].columns] == ["id", "name", "age", "score", "c"]


def test_an_update_without_some_old_columns_takes_them_from_data() -> None:
    (bootstrap, _) = messages([user_row(10, 1)])
    value = {"version": 1, "database": "simple", "table": "user", "type": "UPDATE", "commitTs": 11, "buildTs": 0,
             "schemaVersion": 10, "data": {"id": "1", "name": "x", "age": "3", "score": "2"},
             "old": {"id": "1", "name": "y"}}
    dec = decoder()
    dec.decode(bootstrap)
    (row,) = dec.decode(Message("t", 0, None, json.dumps(value).encode(), 1))
    assert [c.value for c in row.pre_columns] == [1, "y", 3, 2.0]


def test_parked_rows_past_the_limit_are_refused_naming_the_missing_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decoder_module, "PARKED_LIMIT", 2)
    msgs = messages([user_row(10 + i, i) for i in range(3)], "send-bootstrap-interval-in-sec=0")
    dec = decoder()
    dec.decode(msgs[1])
    dec.decode(msgs[2])
    with pytest.raises(DecodeError, match=r"2 rows wait for table schemas .* simple\.user version 10"):
        dec.decode(msgs[3])


def test_finish_refuses_rows_still_parked_naming_table_version_rows_place_and_what_to_do() -> None:
    msgs = messages([user_row(10 + i, i) for i in range(3)], "send-bootstrap-interval-in-sec=0")
    dec = decoder()
    assert decode_all(dec, msgs[2:]) == []
    with pytest.raises(DecodeError) as err:
        dec.finish()
    text = str(err.value)
    assert "2 rows of simple.user schema version 10" in text
    assert "the first row at t/0/2" in text
    assert "before a BOOTSTRAP of that table" in text and "send-bootstrap-in-msg-count" in text
    assert "\n" not in text


def test_finish_gives_nothing_once_every_parked_row_was_released() -> None:
    msgs = messages([user_row(10 + i, i) for i in range(5)], "send-bootstrap-in-msg-count=2")
    dec = decoder()
    assert len(decode_all(dec, msgs[1:])) == 5  # the first two rows waited for the second BOOTSTRAP
    assert dec.finish() == []


def test_decoding_messages_that_start_after_the_bootstrap_is_an_error_not_a_silent_loss() -> None:
    msgs = messages([user_row(10 + i, i) for i in range(3)], "send-bootstrap-interval-in-sec=0")
    with pytest.raises(DecodeError, match=r"3 rows of simple\.user .* never typed"):
        cdcwire.decode("simple", msgs[1:])


def test_the_simple_codec_says_its_decoding_is_stateful() -> None:
    from cdcwire.sinks.sink import open_sink

    assert open_sink("simple").codec.stateful_decoding is True


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (b"{", "is not a json message"),
        (b"[]", "not a json message object"),
        (b'{"type":"NOPE","commitTs":1}', "type 'NOPE' is none of"),
        (b'{"type":"WATERMARK","commitTs":-1}', "commitTs '-1' is not an unsigned 64-bit integer"),
        (b'{"type":"BOOTSTRAP","commitTs":0}', "BOOTSTRAP has no tableSchema"),
        (b'{"type":"BOOTSTRAP","commitTs":0,"tableSchema":{"schema":"a","table":"b","version":1,'
         b'"columns":[{"name":"c","dataType":{"mysqlType":"nope"}}]}}',
         r"tableSchema.columns\[0\].dataType.mysqlType 'nope' is not a type TiDB names"),
        (b'{"type":"INSERT","database":"a","table":"b","commitTs":1}', "INSERT needs an object 'data'"),
    ],
)
def test_damaged_messages_are_a_decode_error_naming_the_place(value: bytes, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        decoder().decode(Message("t", 0, None, value, 0))


def test_a_value_that_is_not_its_columns_type_names_the_column() -> None:
    bootstrap, insert = messages([user_row(10, 1)])
    dec = decoder()
    dec.decode(bootstrap)
    damaged = insert.value.replace(b'"age":"21"', b'"age":"x"')
    with pytest.raises(DecodeError, match=r"data\.age: must be an integer"):
        dec.decode(Message("t", 0, None, damaged, 2))


def test_an_update_whose_old_image_has_more_columns_reads_back_whole() -> None:
    new = (Column("id", T.INT, KEY, 1), Column("a", T.INT, F.NULLABLE, 2))
    old = new + (Column("b", T.VARCHAR, F.NULLABLE, "x"),)
    row = RowChangedEvent(10, "db", "t", new, old)
    (back,) = decode_all(decoder(), messages([row]))
    assert [c.name for c in back.columns] == ["id", "a"]
    assert [(c.name, c.value) for c in back.pre_columns] == [("id", 1), ("a", 2), ("b", "x")]
