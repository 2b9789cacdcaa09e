"""Dispatch checked against the reference hash computed here, independently, with zlib.crc32."""

from __future__ import annotations

import os
import zlib

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire.dispatch import Dispatcher
from cdcwire.dispatch.dispatcher import split_key_change
from cdcwire.foundation.errors import DispatchError, SinkURIError

PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def row(ts, id_, val="x", schema="test", table="t1", pre=None):
    cols = (Column("id", ColumnType.INT, PK, id_), Column("val", ColumnType.VARCHAR, ColumnFlag(0), val))
    return RowChangedEvent(ts, schema, table, cols, pre)


def dispatcher(query: str) -> Dispatcher:
    return Dispatcher(cdcwire.open_sink(f"file:///tmp/d/t?protocol=echo-json&{query}"))


def crc(*parts: bytes) -> int:
    return zlib.crc32(b"".join(parts))


@pytest.mark.parametrize("rule", ["table", "default"])
def test_table_rule_hashes_schema_and_table(rule):
    d = dispatcher(f"partition={rule}&partition-num=7")
    expected = crc(b"test", b"orders") % 7
    assert [r.partition for r in d.route(row(1, 5, table="orders"))] == [expected]


def test_ts_rule_is_commit_ts_mod_partitions():
    d = dispatcher("partition=ts&partition-num=4")
    assert d.route(row(415508878783938562, 1))[0].partition == 415508878783938562 % 4


@pytest.mark.parametrize("rule", ["index-value", "rowid"])
def test_index_value_rule_hashes_handle_key_columns(rule):
    d = dispatcher(f"partition={rule}&partition-num=5")
    for id_ in (1, 2, 3, -17, 2**40):
        expected = (crc(b"test", b"t1") ^ crc(b"id", str(id_).encode())) % 5
        assert d.route(row(1, id_))[0].partition == expected


def test_index_value_rule_uses_old_values_for_a_delete():
    d = dispatcher("partition=index-value&partition-num=5")
    old = row(1, 42).columns
    expected = (crc(b"test", b"t1") ^ crc(b"id", b"42")) % 5
    assert d.route(RowChangedEvent(2, "test", "t1", None, old))[0].partition == expected


def test_columns_rule_hashes_named_columns_case_insensitively():
    d = dispatcher("partition=columns&partition-columns=VAL&partition-num=9")
    expected = (crc(b"test", b"t1") ^ crc(b"val", b"hello")) % 9
    assert d.route(row(1, 1, val="hello"))[0].partition == expected


def test_columns_rule_with_a_missing_column_is_an_error():
    d = dispatcher("partition=columns&partition-columns=nope")
    with pytest.raises(DispatchError, match="'nope'.*test.t1"):
        d.route(row(1, 1))


def test_hash_text_of_values_follows_the_reference():
    query = "partition=columns&partition-columns=f,b,n,d&partition-num=1000003"  # more than a file:// topic holds
    d = Dispatcher(cdcwire.open_sink(f"kafka://127.0.0.1:9/t?protocol=echo-json&{query}"))
    cols = (
        Column("f", ColumnType.FLOAT, ColumnFlag(0), 153.12300109863281),  # float32 153.123
        Column("b", ColumnType.BLOB, ColumnFlag.BINARY, b"\x00\xff"),
        Column("n", ColumnType.INT, ColumnFlag.NULLABLE, None),
        Column("d", ColumnType.DOUBLE, ColumnFlag(0), 2.0),
    )
    expected = (
        crc(b"s", b"t") ^ crc(b"f", b"153.123") ^ crc(b"b", b"\x00\xff")
        ^ crc(b"n", b"null") ^ crc(b"d", b"2")
    ) % 1000003
    assert d.route(RowChangedEvent(1, "s", "t", cols))[0].partition == expected


def test_update_that_changes_the_key_is_split_into_delete_and_insert():
    update = row(9, 4, "ee", pre=row(1, 2, "aa").columns)
    delete, insert = split_key_change(update)
    assert delete.is_delete and delete.pre_columns == update.pre_columns
    assert insert.is_insert and insert.columns == update.columns
    assert delete.commit_ts == insert.commit_ts == 9


def test_split_halves_go_to_the_partitions_of_their_own_keys():
    d = dispatcher("partition=index-value&partition-num=16")
    routes = d.route(row(9, 4, "ee", pre=row(1, 2, "aa").columns))
    base = crc(b"test", b"t1")
    assert [r.partition for r in routes] == [(base ^ crc(b"id", b"2")) % 16, (base ^ crc(b"id", b"4")) % 16]


def test_with_output_raw_change_event_a_key_changing_update_stays_one_dispatched_by_its_new_key():
    d = dispatcher("partition=index-value&partition-num=16&output-raw-change-event=true")
    update = row(9, 4, "ee", pre=row(1, 2, "aa").columns)
    routes = d.route(update)
    assert [(r.partition, r.event) for r in routes] == [((crc(b"test", b"t1") ^ crc(b"id", b"4")) % 16, update)]


def test_update_that_keeps_the_key_is_not_split():
    update = row(9, 2, "bb", pre=row(1, 2, "aa").columns)
    assert split_key_change(update) == (update,)


def test_ddl_is_broadcast_to_every_partition_by_default():
    d = dispatcher("partition-num=3")
    routes = d.route(DDLEvent(1, "test", "t1", "CREATE TABLE t1 (id int)", DDLType.CREATE_TABLE))
    assert [(r.topic, r.partition) for r in routes] == [("t", 0), ("t", 1), ("t", 2)]


def test_ddl_goes_to_partition_zero_when_the_codec_says_so():
    d = dispatcher("partition-num=3&ddl-to=first")
    routes = d.route(DDLEvent(1, "test", "t1", "q", DDLType.CREATE_TABLE))
    assert [r.partition for r in routes] == [0]


def test_ddl_is_dropped_when_the_codec_has_no_ddl_message():
    d = dispatcher("partition-num=3&ddl-to=none")
    assert d.route(DDLEvent(1, "test", "t1", "q", DDLType.CREATE_TABLE)) == []


def test_resolved_goes_to_every_partition_of_every_known_topic():
    d = dispatcher("partition-num=2&topic-rule=cdc_{schema}_{table}")
    d.observe([row(1, 1, table="a"), row(1, 1, table="b")])
    routes = d.route(ResolvedEvent(5))
    assert sorted((r.topic, r.partition) for r in routes) == [
        ("cdc_test_a", 0), ("cdc_test_a", 1), ("cdc_test_b", 0), ("cdc_test_b", 1), ("t", 0), ("t", 1),
    ]


def test_topic_expression_renders_and_sanitises_names():
    d = dispatcher("topic-rule=cdc.{schema}-x-{table}_v1")
    assert d.route(row(1, 1, schema="sales db", table="örders"))[0].topic == "cdc.sales_db-x-_rders_v1"


def test_schema_level_ddl_goes_to_the_default_topic():
    d = dispatcher("topic-rule={schema}_{table}&partition-num=1")
    routes = d.route(DDLEvent(1, "shop", "", "CREATE DATABASE shop", DDLType.CREATE_SCHEMA))
    assert [r.topic for r in routes] == ["t"]


@pytest.mark.parametrize(
    "expr", ["{table}{schema}", "x{schema}{bogus}", "a b{schema}", "{schema}{table}{table}", "x" * 250]
)
def test_invalid_topic_expression_is_rejected(expr):
    with pytest.raises(SinkURIError) as info:
        dispatcher(f"topic-rule={expr}")
    assert info.value.parameter == "topic-rule"


def test_rules_file_first_match_wins(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[dispatchers]]\nmatcher = ["test.hot*"]\npartition = "ts"\ntopic = "hot_{schema}"\n'
        '[[dispatchers]]\nmatcher = ["test.*"]\npartition = "index-value"\n'
    )
    d = dispatcher(f"dispatch-rules={rules}&partition-num=4")
    hot = d.route(row(7, 1, table="hot_items"))[0]
    assert (hot.topic, hot.partition) == ("hot_test", 7 % 4)
    cold = d.route(row(7, 1, table="cold"))[0]
    assert (cold.topic, cold.partition) == ("t", (crc(b"test", b"cold") ^ crc(b"id", b"1")) % 4)
    other = d.route(row(7, 1, schema="other", table="x"))[0]
    assert other.partition == crc(b"other", b"x") % 4  # the URI's default rule


def test_rules_file_errors_name_the_file_and_the_entry(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[dispatchers]]\nmatcher = ["a.*"]\n'
        '[[dispatchers]]\nmatcher = ["b.*"]\ntopic = "a b"\n'
    )
    where = r"rules.toml: dispatchers\[1\].*topic expression 'a b' is invalid"
    with pytest.raises(SinkURIError, match=where) as info:
        dispatcher(f"dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"


def test_missing_rules_file_is_a_uri_error(tmp_path):
    with pytest.raises(SinkURIError, match="does not exist") as info:
        dispatcher(f"dispatch-rules={tmp_path}/none.toml")
    assert info.value.parameter == "dispatch-rules"


def test_rule_names_in_a_rules_file_are_case_insensitive(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["test.*"]\npartition = "Columns"\ncolumns = ["VAL"]\n')
    sink = cdcwire.open_sink(f"file:///tmp/d/t?protocol=echo-json&partition-num=6&dispatch-rules={rules}")
    rule = sink.config.dispatch_rules[0]
    assert rule.partition == "columns" and rule.hashes_named_columns
    expected = (crc(b"test", b"t1") ^ crc(b"val", b"abc")) % 6
    assert Dispatcher(sink).route(row(1, 9, val="abc"))[0].partition == expected


def test_matchers_follow_tidb_table_filter_rules():
    from cdcwire.dispatch import DispatchRule

    rule = DispatchRule(("shop.*", "!shop.audit_*", "Billing.Invoices"))
    assert rule.matches("shop", "orders") and rule.matches("SHOP", "Orders")
    assert not rule.matches("shop", "audit_2026")  # excluded by the later '!' pattern
    assert rule.matches("billing", "invoices") and not rule.matches("billing", "invoices_old")


def test_a_matcher_without_a_dot_is_rejected_naming_it(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["orders"]\npartition = "ts"\n')
    with pytest.raises(SinkURIError, match="matcher 'orders' must be 'schema.table'"):
        dispatcher(f"dispatch-rules={rules}")


# --- what the reference accepts: topic expressions and partition rules ------------------------


def test_an_unknown_partition_rule_in_a_rules_file_falls_back_to_default_with_a_warning(tmp_path, caplog):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["test.*"]\npartition = "unknown-dispatcher"\n')
    with caplog.at_level("WARNING", logger="cdcwire.dispatch"):
        d = dispatcher(f"dispatch-rules={rules}&partition=ts&partition-num=7")
    assert "unknown partition rule 'unknown-dispatcher' for matcher ['test.*']" in caplog.text
    assert d.route(row(9, 1, table="orders"))[0].partition == crc(b"test", b"orders") % 7  # not the URI's ts


def test_an_unknown_partition_rule_in_the_uri_stays_an_error():
    with pytest.raises(SinkURIError, match="must be one of") as info:
        dispatcher("partition=unknown-dispatcher")
    assert info.value.parameter == "partition"


def test_a_topic_expression_without_schema_names_a_topic_per_table_name():
    d = dispatcher("topic-rule=prefix_{table}")
    assert d.route(row(1, 1, schema="a", table="orders"))[0].topic == "prefix_orders"
    assert d.route(row(1, 1, schema="b", table="orders"))[0].topic == "prefix_orders"


def test_a_topic_expression_without_placeholders_is_a_fixed_topic():
    d = dispatcher("topic-rule=hard_code_topic")
    assert {d.route(row(1, 1, schema=s, table=t))[0].topic for s, t in [("a", "x"), ("b", "y")]} == {
        "hard_code_topic"
    }


def test_one_rule_the_reference_accepts_does_not_refuse_the_rules_file(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[[dispatchers]]\nmatcher = ["shop.*"]\ntopic = "shop_{table}"\n'
        '[[dispatchers]]\nmatcher = ["audit.*"]\ntopic = "audit_log"\n'
    )
    d = dispatcher(f"dispatch-rules={rules}")
    assert d.route(row(1, 1, schema="shop", table="orders"))[0].topic == "shop_orders"
    assert d.route(row(1, 1, schema="audit", table="logins"))[0].topic == "audit_log"


@pytest.mark.parametrize("schema, topic", [(".", "_"), ("..", "__")])
def test_a_rendered_dot_or_dot_dot_topic_becomes_underscores(schema, topic):
    d = dispatcher("topic-rule={schema}")
    assert d.route(row(1, 1, schema=schema, table="t1"))[0].topic == topic


def test_a_schema_named_like_a_placeholder_is_not_substituted_again():
    d = dispatcher("topic-rule={schema}_{table}")
    assert d.route(row(1, 1, schema="{table}", table="t1"))[0].topic == "_table__t1"


def test_a_rendered_topic_longer_than_249_characters_names_the_table_and_the_limit():
    d = dispatcher("topic-rule=cdc_{schema}")
    words = r"table s{40}\.\.\.s{37}\.t1 \(303 characters\) a topic of 304 characters; .* 1 to 249"
    with pytest.raises(DispatchError, match=words):
        d.route(row(1, 1, schema="s" * 300, table="t1"))


def test_a_rendered_topic_of_249_characters_is_kept():
    d = dispatcher("topic-rule={schema}")
    assert d.route(row(1, 1, schema="s" * 249))[0].topic == "s" * 249


# --- rules files that cannot be read -----------------------------------------------------------


def test_a_rules_file_that_is_a_directory_is_a_uri_error(tmp_path):
    with pytest.raises(SinkURIError, match="is a directory") as info:
        dispatcher(f"dispatch-rules={tmp_path}")
    assert info.value.parameter == "dispatch-rules" and str(tmp_path) in str(info.value)


def test_a_rules_file_that_is_not_toml_names_the_file(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text("[[dispatchers]\nmatcher = \n")
    with pytest.raises(SinkURIError, match="rules.toml' is not valid TOML") as info:
        dispatcher(f"dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"


def test_a_rules_file_that_is_not_utf8_names_the_byte(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_bytes(b'[[dispatchers]]\nmatcher = ["\xff.*"]\n')
    with pytest.raises(SinkURIError, match=r"is not UTF-8 text \(byte 28\)") as info:
        dispatcher(f"dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_an_unreadable_rules_file_is_a_uri_error(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["a.*"]\n')
    rules.chmod(0)
    with pytest.raises(SinkURIError, match="is not readable") as info:
        dispatcher(f"dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"


@pytest.mark.parametrize(
    "entry, words",
    [
        ('matcher = ["a.*"]\ntopic = 7', "'topic' must be a string, got int"),
        ('matcher = ["a.*"]\npartition = "columns"\ncolumns = [1]', "'columns' must be a list of"),
        ('matcher = ["a.*"]\npartition = 3', "'partition' must be a string, got int"),
    ],
)
def test_a_rules_file_value_of_the_wrong_type_is_named(tmp_path, entry, words):
    rules = tmp_path / "rules.toml"
    rules.write_text(f"[[dispatchers]]\n{entry}\n")
    with pytest.raises(SinkURIError, match=rf"dispatchers\[0\]: {words}") as info:
        dispatcher(f"dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"


def test_the_old_dispatcher_key_of_a_rules_file_names_the_partition_rule(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["test.*"]\ndispatcher = "ts"\n')
    assert dispatcher(f"dispatch-rules={rules}&partition-num=4").route(row(7, 1))[0].partition == 7 % 4


def test_a_rules_file_entry_with_both_partition_and_dispatcher_is_refused(tmp_path):
    rules = tmp_path / "rules.toml"
    rules.write_text('[[dispatchers]]\nmatcher = ["test.*"]\ndispatcher = "ts"\npartition = "table"\n')
    words = r"dispatchers\[0\]: give 'partition' or its old name 'dispatcher'"
    with pytest.raises(SinkURIError, match=words):
        dispatcher(f"dispatch-rules={rules}")


def test_a_rules_file_that_is_a_device_is_refused_without_reading_it():
    with pytest.raises(SinkURIError, match="'/dev/zero' is not a regular file") as info:
        dispatcher("dispatch-rules=/dev/zero")
    assert info.value.parameter == "dispatch-rules"


def test_a_refused_topic_rule_names_its_parameter_in_the_message():
    with pytest.raises(SinkURIError, match=r"^parameter 'topic-rule': topic expression 'a\{bad' is invalid"):
        dispatcher("topic-rule=a{bad")


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "dispatch rules file '.*' does not exist"),
        ('[[dispatchers]]\nmatcher = ["(("]\ntopic = "t"\n', r"dispatchers\[0\]: matcher '\(\(' must be"),
        ('[[dispatchers]]\nmatcher = ["a.*"]\ntopic = "{x}"\n', r"dispatchers\[0\]: topic expression '\{x\}'"),
    ],
    ids=["missing-file", "bad-matcher", "bad-topic"],
)
def test_a_refused_dispatch_rules_value_names_its_parameter_in_the_message(tmp_path, content, words):
    rules = tmp_path / "rules.toml"
    if content is not None:
        rules.write_text(content)
    with pytest.raises(SinkURIError, match=rf"^parameter 'dispatch-rules': .*{words}") as info:
        dispatcher(f"dispatch-rules={rules}")
    assert info.value.parameter == "dispatch-rules"
