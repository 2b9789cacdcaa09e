"""``[[column-selectors]]`` in the rules file: which columns of a table's rows a sink sends, as
TiCDC's column selectors (tiflow cdc/sink/dmlsink/mq/transformer/columnselector) decide, with
TiDB's column-filter patterns (tidb pkg/util/table-filter/column_filter.go)."""

from __future__ import annotations

import pickle
import zlib

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, RowChangedEvent
from cdcwire.dispatch import ColumnSelectorError, Dispatcher
from cdcwire.dispatch.column_selectors import ColumnFilter
from cdcwire.foundation.errors import SinkURIError

PK = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
NONE = ColumnFlag(0)


def image(id_=1, name="ann", secret="s3", **extra) -> tuple[Column, ...]:
    cols = [
        Column("id", ColumnType.INT, PK, id_),
        Column("Name", ColumnType.VARCHAR, NONE, name),
        Column("secret", ColumnType.VARCHAR, NONE, secret),
    ]
    cols += [Column(k, ColumnType.VARCHAR, NONE, v) for k, v in extra.items()]
    return tuple(cols)


def update(old_id=1, new_id=1, schema="app", table="users", ts=10) -> RowChangedEvent:
    return RowChangedEvent(ts, schema, table, image(new_id, name="bob"), image(old_id))


def rules_file(tmp_path, text: str) -> str:
    path = tmp_path / "rules.toml"
    path.write_text(text)
    return str(path)


def uri(tmp_path, rules: str, extra: str = "") -> str:
    return f"file://{tmp_path}/out/t?protocol=echo-json&partition-num=8&dispatch-rules={rules_file(tmp_path, rules)}{extra}"


def dispatcher(tmp_path, rules: str, extra: str = "") -> Dispatcher:
    return Dispatcher(cdcwire.open_sink(uri(tmp_path, rules, extra)))


def names(columns) -> list[str]:
    return [c.name for c in columns]


SELECT_ID_NAME = '[[column-selectors]]\nmatcher = ["app.users"]\ncolumns = ["id", "name"]\n'


# --- what a selector keeps ---------------------------------------------------------------------


def test_a_selector_keeps_only_its_columns_in_both_images_of_a_row(tmp_path):
    [route] = dispatcher(tmp_path, SELECT_ID_NAME).route(update())
    assert names(route.event.columns) == ["id", "Name"]
    assert names(route.event.pre_columns) == ["id", "Name"]


def test_encode_sends_only_the_selected_columns(tmp_path):
    messages = cdcwire.encode(uri(tmp_path, SELECT_ID_NAME), [update()])
    [event] = cdcwire.decode("echo-json", messages)
    assert names(event.columns) == ["id", "Name"] and event.columns[1].value == "bob"


def test_a_table_no_selector_matches_keeps_every_column(tmp_path):
    [route] = dispatcher(tmp_path, SELECT_ID_NAME).route(update(table="orders"))
    assert names(route.event.columns) == ["id", "Name", "secret"]


def test_the_first_selector_that_matches_a_table_applies(tmp_path):
    rules = (
        '[[column-selectors]]\nmatcher = ["app.user*"]\ncolumns = ["id", "secret"]\n'
        '[[column-selectors]]\nmatcher = ["app.users"]\ncolumns = ["id", "name"]\n'
    )
    [route] = dispatcher(tmp_path, rules).route(update())
    assert names(route.event.columns) == ["id", "secret"]


def test_selector_matchers_follow_tidb_table_filter_rules(tmp_path):
    rules = '[[column-selectors]]\nmatcher = ["APP.*", "!app.audit_*"]\ncolumns = ["id"]\n'
    d = dispatcher(tmp_path, rules)
    assert names(d.route(update(table="Users"))[0].event.columns) == ["id"]
    assert names(d.route(update(table="audit_log"))[0].event.columns) == ["id", "Name", "secret"]


def test_a_ddl_event_of_a_selected_table_passes_untouched(tmp_path):
    ddl = DDLEvent(5, "app", "users", "ALTER TABLE users ADD COLUMN x int", DDLType.ADD_COLUMN)
    routes = dispatcher(tmp_path, SELECT_ID_NAME).route(ddl)
    assert len(routes) == 8 and all(r.event is ddl for r in routes)  # broadcast, as without a selector


# --- TiDB column-filter patterns ---------------------------------------------------------------


@pytest.mark.parametrize(
    "patterns, kept, dropped",
    [
        (["foo*"], ["foo", "foo1", "FOO2"], ["fo", "bar"]),
        (["*", "!foo1*"], ["foo", "foo2"], ["foo1", "foo10"]),
        (["BAR"], ["bar", "BAR"], ["bars"]),
        (["co?1"], ["col1", "cox1"], ["col11", "co1"]),
        (["[!a-z]"], ["!", "1"], ["a"]),
        (["*", "!D[!a-d]"], ["S", "Da", "Daa", "dD"], ["de"]),
        (["db*", "!cfg*", "cfgsample", "a\\.b\\.c"], ["db1", "cfgsample", "a.b.c"], ["irrelevant", "cfg1"]),
        (["/^foo/"], ["foo", "foo1"], ["fff", "xfoo"]),
        (["/o1/"], ["foo1"], ["foo2"]),  # a regexp is searched for, not anchored
        (['"some ""quoted"""'], ['some "quoted"', 'SOME "QUOTED"'], ['some ""quoted""']),
        (["`a``b`"], ["a`b"], ["ab"]),
        (["# comment", "x", "   \t"], ["x"], ["y"]),
        (["p_123$", "中文"], ["p_123$", "中文"], ["p_123", "英文"]),
    ],
)
def test_column_patterns_match_as_tidbs_column_filter(patterns, kept, dropped):
    f = ColumnFilter(patterns)
    assert [c for c in kept if f.keeps(c)] == kept
    assert [c for c in dropped if f.keeps(c)] == []


def test_the_last_column_pattern_that_matches_decides():
    f = ColumnFilter(["*", "!secret*", "secret_ok"])
    assert f.keeps("id") and f.keeps("secret_ok") and not f.keeps("secret_key")


# --- what a selector must not drop -------------------------------------------------------------


def test_a_selector_dropping_a_handle_key_column_is_refused_naming_the_selector_table_and_column(tmp_path):
    rules = '[[column-selectors]]\nmatcher = ["app.*"]\ncolumns = ["name"]\n'
    words = r"column selector column-selectors\[0\] \(matcher \['app.\*'\]\) drops handle-key column 'id' of table app.users"
    with pytest.raises(ColumnSelectorError, match=words):
        cdcwire.encode(uri(tmp_path, rules), [update()])


def test_a_selector_dropping_a_column_a_columns_rule_hashes_refuses_the_table_before_any_row(tmp_path):
    rules = (
        '[[dispatchers]]\nmatcher = ["app.*"]\npartition = "columns"\ncolumns = ["Secret"]\n' + SELECT_ID_NAME
    )
    d = dispatcher(tmp_path, rules)
    words = r"column-selectors\[0\].* drops column 'Secret' of table app.users, which the table's dispatch rule"
    with pytest.raises(ColumnSelectorError, match=words):
        d.topic_for("app", "users")  # what the DDL of the table and the planning of its topic ask first


def test_a_selector_keeping_a_column_a_columns_rule_hashes_routes_as_without_it(tmp_path):
    rules = '[[dispatchers]]\nmatcher = ["app.*"]\npartition = "columns"\ncolumns = ["NAME"]\n'
    plain = dispatcher(tmp_path, rules).route(update())[0]
    selected = dispatcher(tmp_path, rules + SELECT_ID_NAME).route(update())[0]
    assert selected.partition == plain.partition == (zlib.crc32(b"appusers") ^ zlib.crc32(b"Namebob")) % 8


def test_a_selector_keeping_no_column_of_a_keyless_row_is_refused(tmp_path):
    rules = '[[column-selectors]]\nmatcher = ["app.*"]\ncolumns = ["nothing_here"]\n'
    row = RowChangedEvent(1, "app", "logs", (Column("line", ColumnType.VARCHAR, NONE, "x"),))
    with pytest.raises(ColumnSelectorError, match=r"keeps no column of table app.logs \(columns: line\)"):
        dispatcher(tmp_path, rules).route(row)


# --- dispatch with a selector ------------------------------------------------------------------


def test_a_selected_row_lands_in_the_partition_it_would_without_the_selector(tmp_path):
    rows = [update(old_id=i, new_id=i) for i in range(20)]
    plain = dispatcher(tmp_path, "[[dispatchers]]\nmatcher = ['x.y']\n", "&partition=index-value")
    selected = dispatcher(tmp_path, SELECT_ID_NAME, "&partition=index-value")
    assert [r.partition for e in rows for r in selected.route(e)] == [r.partition for e in rows for r in plain.route(e)]


def test_a_key_changing_update_is_split_on_the_whole_row_and_both_halves_are_selected(tmp_path):
    delete, insert = dispatcher(tmp_path, SELECT_ID_NAME, "&partition=index-value").route(update(old_id=1, new_id=2))
    assert (delete.half, insert.half) == (1, 2)
    assert delete.event.columns is None and names(delete.event.pre_columns) == ["id", "Name"]
    assert insert.event.pre_columns is None and names(insert.event.columns) == ["id", "Name"]
    key = lambda id_: (zlib.crc32(b"appusers") ^ zlib.crc32(b"id" + str(id_).encode())) % 8  # noqa: E731
    assert (delete.partition, insert.partition) == (key(1), key(2))


# --- the rules file ----------------------------------------------------------------------------


def test_a_rules_file_with_only_column_selectors_keeps_the_uris_dispatch(tmp_path):
    d = dispatcher(tmp_path, SELECT_ID_NAME, "&partition=ts")
    assert d.route(update(ts=13))[0].partition == 13 % 8


def test_a_rules_file_with_neither_table_says_so_and_where_tidb_nests_them(tmp_path):
    text = '[[sink.column-selectors]]\nmatcher = ["app.*"]\ncolumns = ["id"]\n'
    with pytest.raises(SinkURIError, match=r"no \[\[dispatchers\]\] or \[\[column-selectors\]\].*go at the top level"):
        dispatcher(tmp_path, text)


@pytest.mark.parametrize(
    "entry, words",
    [
        ("column-selectors = 3", r"'column-selectors' must be an array of tables"),
        ("column-selectors = [3]", r"column-selectors\[0\]: a column selector must be a table, got int"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = ["id"]\npartition = "ts"', r"\[0\]: unknown key\(s\) partition"),
        ('[[column-selectors]]\ncolumns = ["id"]', r"\[0\]: 'matcher' must be a non-empty list"),
        ('[[column-selectors]]\nmatcher = ["users"]\ncolumns = ["id"]', r"\[0\]: matcher 'users' must be 'schema.table'"),
        ('[[column-selectors]]\nmatcher = ["a.*"]', r"\[0\]: 'columns' must be a list of column patterns"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = [1]', r"\[0\]: 'columns' must be a list of column patterns"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = []', r"\[0\]: 'columns' keeps no column"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = ["!id"]', r"\[0\]: 'columns' keeps no column"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = ["t.id"]', r"\[0\]: column pattern 't.id': unexpected special character '.'"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = ["[.*"]', r"\[0\]: column pattern '\[.\*': cannot parse the character class"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = ["/(/"]', r"\[0\]: column pattern '/\(/': invalid pattern"),
        ('[[column-selectors]]\nmatcher = ["a.*"]\ncolumns = ["@cols.txt"]', r"\[0\]: column pattern '@cols.txt': importing a filter file"),
    ],
)
def test_a_bad_column_selector_entry_is_a_uri_error_naming_the_file_and_the_entry(tmp_path, entry, words):
    with pytest.raises(SinkURIError, match=rf"rules.toml.*{words}") as info:
        dispatcher(tmp_path, entry + "\n")
    assert info.value.parameter == "dispatch-rules"


def test_the_column_selectors_travel_with_a_pickled_sink_config(tmp_path):
    config = pickle.loads(pickle.dumps(cdcwire.open_sink(uri(tmp_path, SELECT_ID_NAME)).config))
    [route] = Dispatcher(cdcwire.open_sink(config)).route(update())
    assert names(route.event.columns) == ["id", "Name"]
