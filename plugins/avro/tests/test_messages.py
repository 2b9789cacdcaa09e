"""Messages the avro codec writes and reads: framing, tombstones, what is carried, bad input."""

from __future__ import annotations

import struct
import time

import pytest

import cdcwire
from cdcwire import (
    Column, ColumnFlag, ColumnType, DDLEvent, DDLType, DecodeError, Message, ResolvedEvent, RowChangedEvent,
    SinkURIError,
)

F = ColumnFlag
T = ColumnType
KEY = F.HANDLE_KEY | F.PRIMARY_KEY
TS = 449_000_000_000_000_000


def row(key: int = 1, name: str = "apple", *, ts: int = TS, extra: tuple[Column, ...] = ()) -> tuple[Column, ...]:
    return (Column("id", T.INT, KEY, key, "int(11)"), Column("name", T.VARCHAR, F.NULLABLE, name, "varchar(20)"), *extra)


def insert(**kw) -> RowChangedEvent:
    return RowChangedEvent(TS, "shop", "fruit", row(**kw), None)


def test_key_and_value_are_confluent_framed_with_the_registered_ids(schema_registry, avro_uri) -> None:
    [message] = cdcwire.encode(avro_uri, [insert()])
    assert message.topic == "tidb_shop_fruit"
    assert message.key[0] == 0 and message.value[0] == 0
    key_id = struct.unpack(">I", message.key[1:5])[0]
    value_id = struct.unpack(">I", message.value[1:5])[0]
    assert {key_id, value_id} == {1, 2}
    assert schema_registry.subjects() == ["tidb_shop_fruit-key", "tidb_shop_fruit-value"]


def test_delete_is_a_tombstone_decoded_to_its_key_columns(avro_uri) -> None:
    delete = RowChangedEvent(TS, "shop", "fruit", None, row())
    [message] = cdcwire.encode(avro_uri, [delete])
    assert message.value is None
    [back] = cdcwire.decode(avro_uri, [message])
    assert back == RowChangedEvent(0, "shop", "fruit", None, (Column("id", T.INT, F.HANDLE_KEY, 1, "int"),))


def test_ddl_and_resolved_events_produce_no_message(avro_uri) -> None:
    ddl = DDLEvent(TS, "shop", "fruit", "ALTER TABLE fruit ADD c INT", DDLType.ADD_COLUMN)
    assert cdcwire.encode(avro_uri, [ddl, ResolvedEvent(TS)]) == []


def test_each_schema_is_registered_once_not_once_per_row(schema_registry, avro_uri) -> None:
    cdcwire.encode(avro_uri + "&partition-num=1", [insert(key=k) for k in range(50)])
    assert schema_registry.registrations == 2


def test_without_extension_an_update_reads_back_as_an_insert_of_the_new_image(avro_uri) -> None:
    update = RowChangedEvent(TS, "shop", "fruit", row(name="pear"), row(name="apple"))
    [back] = cdcwire.decode(avro_uri, cdcwire.encode(avro_uri, [update]))
    assert back.is_insert and back.commit_ts == 0
    assert back.columns[1].value == "pear"


def test_with_extension_an_update_keeps_its_commit_ts_and_key_as_old_image(avro_uri) -> None:
    uri = avro_uri + "&enable-tidb-extension=true"
    update = RowChangedEvent(TS, "shop", "fruit", row(name="pear"), row(name="apple"))
    [back] = cdcwire.decode(uri, cdcwire.encode(uri, [update]))
    assert back.is_update and back.commit_ts == TS
    assert [c.value for c in back.columns] == [1, "pear"]
    assert back.pre_columns == (Column("id", T.INT, F.HANDLE_KEY, 1, "int"),)


def test_unsigned_bigint_wraps_in_long_mode_and_reads_back_unsigned(avro_uri) -> None:
    big = Column("n", T.BIGINT, F.UNSIGNED, (1 << 64) - 1, "bigint(20) unsigned")
    [message] = cdcwire.encode(avro_uri, [insert(extra=(big,))])
    assert message.value.endswith(b"\x01")  # zigzag varint of -1
    [back] = cdcwire.decode(avro_uri, [message])
    assert back.columns[2].value == (1 << 64) - 1


def test_decimal_reads_back_with_exactly_its_scale(avro_uri) -> None:
    price = Column("price", T.DECIMAL, F(0), "-3.5", "decimal(8,3)")
    [back] = cdcwire.decode(avro_uri, cdcwire.encode(avro_uri, [insert(extra=(price,))]))
    assert back.columns[2] == Column("price", T.DECIMAL, F(0), "-3.500", "decimal(8,3)")


def test_decimal_beyond_its_precision_is_an_encode_error(avro_uri) -> None:
    price = Column("price", T.DECIMAL, F(0), "123456.7", "decimal(5,1)")
    with pytest.raises(cdcwire.EncodeError, match=r"column 'price'.*does not fit decimal\(5,1\)"):
        cdcwire.encode(avro_uri, [insert(extra=(price,))])


def test_a_decimal_type_text_past_mysqls_precision_is_refused_at_once(avro_uri) -> None:
    price = Column("price", T.DECIMAL, F(0), "1.5", "decimal(100000000,2)")
    started = time.monotonic()
    with pytest.raises(cdcwire.EncodeError, match="column 'price'.*more than DECIMAL's limit of 65"):
        cdcwire.encode(avro_uri, [insert(extra=(price,))])
    assert time.monotonic() - started < 5


def test_enum_set_and_bit_read_back_as_their_numbers(avro_uri) -> None:
    extra = (
        Column("e", T.ENUM, F(0), 2, "enum('s','m','l')"),
        Column("s", T.SET, F(0), 5, "set('x','y','z')"),
        Column("b", T.BIT, F.UNSIGNED, 0x1FF, "bit(9)"),
    )
    [back] = cdcwire.decode(avro_uri, cdcwire.encode(avro_uri, [insert(extra=extra)]))
    assert [c.value for c in back.columns[2:]] == [2, 5, 0x1FF]
    assert [c.mysql_type for c in back.columns[2:]] == ["enum('s','m','l')", "set('x','y','z')", "bit(9)"]


def test_adding_a_nullable_column_registers_version_two_and_both_versions_decode(schema_registry, avro_uri) -> None:
    before = insert(key=1)
    after = insert(key=2, extra=(Column("color", T.VARCHAR, F.NULLABLE, "red", "varchar(9)"),))
    messages = cdcwire.encode(avro_uri + "&partition-num=1", [before, after])
    assert schema_registry.versions("tidb_shop_fruit-value") == [1, 2]
    first, second = cdcwire.decode(avro_uri, messages)
    assert [c.name for c in first.columns] == ["id", "name"]
    assert [c.value for c in second.columns] == [2, "apple", "red"]


def test_message_without_magic_byte_is_a_decode_error(avro_uri) -> None:
    [message] = cdcwire.encode(avro_uri, [insert()])
    broken = Message(message.topic, 0, message.key, b"\x01" + message.value[1:], 7)
    with pytest.raises(DecodeError, match=r"no Confluent magic byte.*at value byte 0"):
        cdcwire.decode(avro_uri, [broken])


def test_unknown_schema_id_is_a_decode_error(avro_uri) -> None:
    [message] = cdcwire.encode(avro_uri, [insert()])
    broken = Message(message.topic, 0, message.key, b"\x00\x00\x00\x03\xe7" + message.value[5:], 7)
    with pytest.raises(DecodeError, match=r"schema id 999 is unknown to the schema registry"):
        cdcwire.decode(avro_uri, [broken])


def test_trailing_bytes_after_the_record_are_a_decode_error(avro_uri) -> None:
    [message] = cdcwire.encode(avro_uri, [insert()])
    broken = Message(message.topic, 0, message.key, message.value + b"\x00", 7)
    with pytest.raises(DecodeError, match="1 bytes follow the Avro record"):
        cdcwire.decode(avro_uri, [broken])


def test_message_too_large_for_max_message_bytes_is_refused(avro_uri) -> None:
    with pytest.raises(cdcwire.MessageTooLargeError, match="max-message-bytes=100"):
        cdcwire.encode(avro_uri + "&max-message-bytes=100", [insert(name="x" * 200)])


@pytest.mark.parametrize(
    "query",
    [
        "protocol=avro&schema-registry=http://127.0.0.1:1",
        "protocol=avro&schema-registry=http://127.0.0.1:1&topic-rule=tidb_{schema}",
    ],
)
def test_topic_rule_without_schema_and_table_is_rejected(query: str) -> None:
    with pytest.raises(SinkURIError, match=r"one table per topic.*\{schema\} and \{table\}") as info:
        cdcwire.parse_sink_uri(f"file:///tmp/x/t?{query}")
    assert info.value.parameter == "topic-rule"


def test_dispatch_rules_file_rule_without_table_is_rejected(tmp_path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["shop.*"]\ntopic = "cdc_{schema}"\n')
    with pytest.raises(SinkURIError, match="lacks {table}") as info:
        cdcwire.parse_sink_uri(f"file:///tmp/x/t?protocol=avro&schema-registry=http://h:1&dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"


def test_topic_rule_without_schema_is_rejected_although_other_protocols_accept_it() -> None:
    # The reference lets {schema} be optional in topic expressions, but avro's subjects must
    # still be one table's: tables of two schemas would share "cdc_orders".
    with pytest.raises(SinkURIError, match=r"lacks \{schema\}") as info:
        cdcwire.parse_sink_uri("file:///tmp/x/t?protocol=avro&schema-registry=http://h:1&topic-rule=cdc_{table}")
    assert info.value.parameter == "topic-rule"


def test_dispatch_rules_file_matching_every_table_needs_no_uri_topic_rule(tmp_path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["*.*"]\ntopic = "tidb_{schema}_{table}"\n')
    config = cdcwire.parse_sink_uri(f"file:///tmp/x/t?protocol=avro&schema-registry=http://h:1&dispatch-rules={rules}")
    assert config.protocol == "avro"


def test_schema_registry_is_required() -> None:
    with pytest.raises(SinkURIError, match="needs parameter 'schema-registry'") as info:
        cdcwire.parse_sink_uri("file:///tmp/x/t?protocol=avro&topic-rule=t_{schema}_{table}")
    assert info.value.parameter == "schema-registry"


def test_registry_password_never_shows_in_the_config() -> None:
    config = cdcwire.parse_sink_uri(
        "file:///tmp/x/t?protocol=avro&topic-rule=t_{schema}_{table}"
        "&schema-registry=https://alice:s3cr%40t@registry.example:8081"
    )
    assert "s3cr" not in repr(config) and "s3cr" not in str(config)
    assert "alice" in repr(config)
