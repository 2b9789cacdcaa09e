"""decode(encode(event)) is exactly what ``carried`` says, and keeps every value."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdcwire import ColumnType, DDLEvent, ResolvedEvent, RowChangedEvent
from cdcwire.testing.strategies import COLUMN_KINDS, all_types_table, ddl_events, resolved_events, row_events, tables
from cdcwire.plugin_api import to_float32
from cdcwire.sinks.sink import open_sink

from canal_cases import canal_config, round_trip

MODES = {
    "plain": {},
    "extension": {"enable_tidb_extension": True},
    "content-compatible": {"content_compatible": True},
    "extension+content-compatible": {"enable_tidb_extension": True, "content_compatible": True},
    "only-updated+delete-key-only": {"only_output_updated_columns": True, "delete_only_output_handle_key_columns": True},
    "handle-key-only-when-large": {"enable_tidb_extension": True, "large_message_handle_option": "handle-key-only",
                                   "max_message_bytes": 900},
}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a.__class__ is b.__class__ and a == b


@pytest.mark.parametrize("mode", MODES)
@SETTINGS
@given(data=st.data())
def test_read_back_equals_carried_for_rows_of_every_type(mode, data):
    config = canal_config(**MODES[mode])
    event = data.draw(row_events(data.draw(tables(min_columns=3, max_columns=10))))
    assert round_trip(config, event) == [open_sink(config).codec.carrier(config)(event)]


@pytest.mark.parametrize("mode", MODES)
@SETTINGS
@given(event=st.one_of(ddl_events, resolved_events))
def test_read_back_equals_carried_for_ddl_and_resolved(mode, event):
    config = canal_config(**MODES[mode])
    carried = open_sink(config).codec.carrier(config)(event)
    assert round_trip(config, event) == ([] if carried is None else [carried])


@pytest.mark.parametrize("mode", ["plain", "extension", "content-compatible"])
@SETTINGS
@given(data=st.data())
def test_every_column_value_survives_the_round_trip(mode, data):
    config = canal_config(**MODES[mode])
    event = data.draw(row_events(all_types_table(), kinds=("insert",)))
    (back,) = round_trip(config, event)
    for sent, got in zip(event.columns, back.columns, strict=True):
        expected = to_float32(sent.value) if sent.type == ColumnType.FLOAT and sent.value is not None else sent.value
        assert got.name == sent.name
        assert _same(got.value, expected), (sent, got)


def test_the_all_types_table_covers_every_kind_of_the_testing_strategies():
    assert {k.label for k in all_types_table().kinds} == {k.label for k in COLUMN_KINDS}


@SETTINGS
@given(event=row_events(all_types_table()))
def test_content_compatible_reads_back_the_full_mysql_type_and_the_type_code(event):
    config = canal_config(content_compatible=True)
    (back,) = round_trip(config, event)
    for sent, got in zip(event.image, back.image, strict=True):
        assert got.mysql_type == sent.mysql_type
        assert got.type == sent.type
        assert got.is_unsigned == sent.is_unsigned
        assert got.is_binary == sent.holds_bytes


@SETTINGS
@given(event=row_events(all_types_table()))
def test_with_the_extension_commit_ts_is_exact(event):
    config = canal_config(enable_tidb_extension=True)
    (back,) = round_trip(config, event)
    assert back.commit_ts == event.commit_ts


@SETTINGS
@given(event=row_events(all_types_table()))
def test_without_the_extension_commit_ts_keeps_only_the_physical_milliseconds(event):
    config = canal_config()
    (back,) = round_trip(config, event)
    assert back.commit_ts == (event.commit_ts >> 18) << 18
    assert back.commit_ts >> 18 == event.commit_ts >> 18


def test_decoder_and_codec_say_whether_commit_ts_is_exact():
    plain, ext = canal_config(), canal_config(enable_tidb_extension=True)
    assert open_sink(plain).codec.exact_commit_ts(plain) is False
    assert open_sink(plain).codec.decoder(plain).exact_commit_ts is False
    assert open_sink(ext).codec.exact_commit_ts(ext) is True
    assert open_sink(ext).codec.decoder(ext).exact_commit_ts is True


def test_resolved_events_are_carried_only_with_the_extension():
    event = ResolvedEvent(1 << 40)
    plain, ext = canal_config(), canal_config(enable_tidb_extension=True)
    assert open_sink(plain).codec.carrier(plain)(event) is None
    assert round_trip(plain, event) == []
    assert round_trip(ext, event) == [event]


def test_update_with_only_updated_columns_reads_back_the_whole_old_row():
    config = canal_config(only_output_updated_columns=True, enable_tidb_extension=True)
    from canal_cases import COMMIT_TS, tp_int_row

    event = RowChangedEvent(COMMIT_TS, "test", "tp_int", tp_int_row(0, 0), tp_int_row())
    (back,) = round_trip(config, event)
    assert [c.value for c in back.pre_columns] == [c.value for c in event.pre_columns]
    assert back == open_sink(config).codec.carrier(config)(event)


def test_ddl_type_reads_back_from_its_query():
    config = canal_config(enable_tidb_extension=True)
    from cdcwire import DDLType

    cases = {
        ("create database d", DDLType.CREATE_SCHEMA): DDLType.CREATE_SCHEMA,
        ("drop database if exists test", DDLType.DROP_SCHEMA): DDLType.DROP_SCHEMA,
        ("create table t (a int)", DDLType.CREATE_TABLE): DDLType.CREATE_TABLE,
        ("alter table t add column b int", DDLType.ADD_COLUMN): DDLType.ADD_COLUMN,
        ("alter table t add primary key (a)", DDLType.ADD_PRIMARY_KEY): DDLType.ADD_PRIMARY_KEY,
        ("create index i on t (a)", DDLType.ADD_INDEX): DDLType.ADD_INDEX,
        ("truncate table t", DDLType.TRUNCATE_TABLE): DDLType.TRUNCATE_TABLE,
        ("create or replace view v as select 1", DDLType.CREATE_VIEW): DDLType.CREATE_VIEW,
    }
    for (query, sent), expected in cases.items():
        (back,) = round_trip(config, DDLEvent(7 << 18, "test", "t", query, sent))
        assert back.ddl_type == expected, query
        assert back.query == query


@pytest.mark.parametrize("mode", ["plain", "handle-key-only-when-large"])
def test_carried_follows_a_table_whose_columns_change_between_events(mode):
    from cdcwire import Column, ColumnFlag

    config = canal_config(**MODES[mode])
    key = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
    variants = [
        Column("c", ColumnType.INT, ColumnFlag.UNSIGNED, 3_000_000_000, "int(10) unsigned"),
        Column("c", ColumnType.BIGINT, ColumnFlag(0), 3_000_000_000, "bigint(20)"),
        Column("c", ColumnType.VARCHAR, ColumnFlag(0), "x" * 1000, "varchar(1000)"),  # too large at 900 bytes
        Column("c", ColumnType.INT, ColumnFlag.UNSIGNED, 3_000_000_000, "int(10) unsigned"),
    ]
    for column in variants:
        event = RowChangedEvent(7 << 18, "s", "t", (Column("id", ColumnType.INT, key, 1, "int(11)"), column), None)
        assert round_trip(config, event) == [open_sink(config).codec.carrier(config)(event)], column
