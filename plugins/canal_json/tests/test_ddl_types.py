"""The DDL type a canal-json DDL message reads back as: parsed from its query, as the
reference's decoder does, because the canal ``type`` word (ALTER, QUERY) is too coarse."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdcwire import DDLEvent, DDLType

from canal_cases import canal_config, encode_one, round_trip
from cdcwire_canal_json.ddl_kinds import ddl_type_from
from cdcwire.values.ddl_statements import statement_ddl_type, tokens
from cdcwire.sinks.sink import open_sink

D = DDLType

#: query -> the DDL type it reads back as
QUERIES = {
    # schemas
    "create database d": D.CREATE_SCHEMA,
    "CREATE SCHEMA IF NOT EXISTS `d`": D.CREATE_SCHEMA,
    "drop database if exists test": D.DROP_SCHEMA,
    "ALTER DATABASE d CHARACTER SET utf8mb4": D.MODIFY_SCHEMA_CHARSET_AND_COLLATE,
    "alter schema d placement policy = p1": D.MODIFY_SCHEMA_DEFAULT_PLACEMENT,
    "flashback database d to d2": D.RECOVER_SCHEMA,
    # tables
    "create table t (a int primary key, index i (a))": D.CREATE_TABLE,
    "CREATE TEMPORARY TABLE IF NOT EXISTS t LIKE s": D.CREATE_TABLE,
    "drop table t": D.DROP_TABLE,
    "DROP TABLE IF EXISTS a, b": D.DROP_TABLE,
    "truncate table t": D.TRUNCATE_TABLE,
    "TRUNCATE t": D.TRUNCATE_TABLE,
    "rename table a.t1 to a.t2": D.RENAME_TABLE,
    "RENAME TABLE a.t1 TO a.t2, a.t3 TO a.t4": D.RENAME_TABLES,
    "alter table t rename to t2": D.RENAME_TABLE,
    "ALTER TABLE t RENAME AS s.t2": D.RENAME_TABLE,
    "recover table t": D.RECOVER_TABLE,
    "flashback table t to t_back": D.RECOVER_TABLE,
    "lock tables t read": D.LOCK_TABLE,
    "unlock tables": D.UNLOCK_TABLE,
    "admin repair table t create table t (a int)": D.REPAIR_TABLE,
    # columns
    "alter table t add column b int": D.ADD_COLUMN,
    "ALTER TABLE t ADD b INT NOT NULL DEFAULT 0": D.ADD_COLUMN,
    "alter table t add column (b int, c int)": D.ADD_COLUMN,
    "alter table t drop column c": D.DROP_COLUMN,
    "ALTER TABLE t DROP c": D.DROP_COLUMN,
    "alter table t modify column c bigint": D.MODIFY_COLUMN,
    "alter table t change c d varchar(10)": D.MODIFY_COLUMN,
    "alter table t rename column c to d": D.MODIFY_COLUMN,
    "alter table t alter column c set default 5": D.SET_DEFAULT_VALUE,
    "ALTER TABLE t ALTER c DROP DEFAULT": D.SET_DEFAULT_VALUE,
    # indexes and keys
    "alter table t add index i (a)": D.ADD_INDEX,
    "alter table t add unique key u (a, b)": D.ADD_INDEX,
    "alter table t add fulltext index f (body)": D.ADD_INDEX,
    "create index i on t (a)": D.ADD_INDEX,
    "CREATE UNIQUE INDEX i ON t (a)": D.ADD_INDEX,
    "alter table t add vector index v ((vec_cosine_distance(e)))": D.ADD_VECTOR_INDEX,
    "alter table t drop index i": D.DROP_INDEX,
    "drop index i on t": D.DROP_INDEX,
    "drop index `PRIMARY` on t": D.DROP_PRIMARY_KEY,
    "alter table t add primary key (a)": D.ADD_PRIMARY_KEY,
    "alter table t add constraint pk primary key (a)": D.ADD_PRIMARY_KEY,
    "alter table t drop primary key": D.DROP_PRIMARY_KEY,
    "alter table t add foreign key (a) references p (id)": D.ADD_FOREIGN_KEY,
    "alter table t add constraint `fk` foreign key (a) references p (id)": D.ADD_FOREIGN_KEY,
    "alter table t drop foreign key fk": D.DROP_FOREIGN_KEY,
    "alter table t rename index i to j": D.RENAME_INDEX,
    "alter table t rename key i to j": D.RENAME_INDEX,
    "alter table t alter index i invisible": D.ALTER_INDEX_VISIBILITY,
    "alter table t add constraint c check (a > 0)": D.ADD_CHECK_CONSTRAINT,
    "alter table t drop check c": D.DROP_CHECK_CONSTRAINT,
    # partitions
    "alter table t add partition (partition p3 values less than (40))": D.ADD_TABLE_PARTITION,
    "alter table t drop partition p0": D.DROP_TABLE_PARTITION,
    "alter table t truncate partition p0, p1": D.TRUNCATE_TABLE_PARTITION,
    "alter table t exchange partition p0 with table t0": D.EXCHANGE_TABLE_PARTITION,
    "ALTER TABLE t REORGANIZE PARTITION p0 INTO (PARTITION a VALUES LESS THAN (5), PARTITION b VALUES "
    "LESS THAN (10))": D.REORGANIZE_PARTITION,
    "alter table t partition by hash(a) partitions 4": D.ALTER_TABLE_PARTITIONING,
    "alter table t partition by range (a) (partition p0 values less than (10), partition p1 values "
    "less than maxvalue)": D.ALTER_TABLE_PARTITIONING,
    "alter table t remove partitioning": D.REMOVE_PARTITIONING,
    "alter table t last partition less than (100)": D.ADD_TABLE_PARTITION,
    "alter table t first partition less than (10)": D.DROP_TABLE_PARTITION,
    # table options
    "alter table t auto_increment = 100": D.REBASE_AUTO_ID,
    "alter table t auto_random_base = 100": D.REBASE_AUTO_RANDOM_BASE,
    "alter table t comment = 'drop column c'": D.MODIFY_TABLE_COMMENT,
    "alter table t charset utf8mb4": D.MODIFY_TABLE_CHARSET_AND_COLLATE,
    "alter table t default character set = utf8mb4 collate = utf8mb4_bin": D.MODIFY_TABLE_CHARSET_AND_COLLATE,
    "alter table t convert to character set utf8mb4": D.MODIFY_COLUMN,  # word fallback: TiDB has none
    "alter table t shard_row_id_bits = 4": D.SHARD_ROW_ID,
    "alter table t auto_id_cache = 100": D.MODIFY_TABLE_AUTO_ID_CACHE,
    "alter table t set tiflash replica 1": D.SET_TIFLASH_REPLICA,
    "alter table t ttl = created + interval 1 day": D.ALTER_TTL_INFO,
    "alter table t remove ttl": D.ALTER_TTL_REMOVE,
    "alter table t cache": D.ALTER_CACHE_TABLE,
    "alter table t nocache": D.ALTER_NO_CACHE_TABLE,
    "alter table t placement policy = p1": D.ALTER_TABLE_PLACEMENT,
    "alter table t partition p0 placement policy = p1": D.ALTER_TABLE_PARTITION_PLACEMENT,
    "alter table t attributes = 'merge_option=deny'": D.ALTER_TABLE_ATTRIBUTES,
    # several changes
    "alter table t add column b int, drop column c": D.MULTI_SCHEMA_CHANGE,
    "alter table t comment 'x', auto_increment = 5": D.MULTI_SCHEMA_CHANGE,
    "alter table t add column b int, algorithm = instant": D.ADD_COLUMN,
    # views, sequences, placement, resource groups
    "create view v as select 1": D.CREATE_VIEW,
    "create or replace algorithm = merge definer = `root`@`%` sql security definer view v as select 1":
        D.CREATE_VIEW,
    "drop view v": D.DROP_VIEW,
    "create sequence s start with 1": D.CREATE_SEQUENCE,
    "alter sequence s restart": D.ALTER_SEQUENCE,
    "drop sequence s": D.DROP_SEQUENCE,
    "create placement policy p primary_region = 'r1'": D.CREATE_PLACEMENT_POLICY,
    "create resource group rg ru_per_sec = 100": D.CREATE_RESOURCE_GROUP,
    "drop resource group rg": D.DROP_RESOURCE_GROUP,
}


@pytest.mark.parametrize(("query", "expected"), QUERIES.items(), ids=list(QUERIES))
def test_query_reads_back_as_its_ddl_type(query: str, expected: DDLType) -> None:
    assert ddl_type_from("ALTER" if expected == D.MODIFY_COLUMN else "QUERY", query) == expected


#: Every statement of the reference's ``TestGetDDLActionType`` (ticdc ``ddl_test.go``; the type
#: is the one TiDB gave the job it ran), its commented-out ones included, with the type TiDB runs it as.
REFERENCE_CASES = {
    "create database abc": D.CREATE_SCHEMA,
    "create schema aaa": D.CREATE_SCHEMA,
    "drop database abc": D.DROP_SCHEMA,
    "drop schema aaa": D.DROP_SCHEMA,
    "create table t (a int primary key)": D.CREATE_TABLE,
    "alter table t add column b int": D.ADD_COLUMN,
    "alter table t modify column b bigint": D.MODIFY_COLUMN,
    "alter table t change column b c int": D.MODIFY_COLUMN,
    "alter table t drop primary key": D.DROP_PRIMARY_KEY,
    "alter table t add primary key(a)": D.ADD_PRIMARY_KEY,
    "alter table t add index idx(c)": D.ADD_INDEX,
    "alter table t rename index idx to idx2": D.RENAME_INDEX,
    "alter table t drop index idx2": D.DROP_INDEX,
    "alter table t add key idx(b)": D.ADD_INDEX,
    "alter table t add unique index idx(b)": D.ADD_INDEX,
    "alter table t add unique key idx(b)": D.ADD_INDEX,
    "alter table t add fulltext index idx(b)": D.ADD_INDEX,
    "alter table t add fulltext key idx(b)": D.ADD_INDEX,
    "create table t2 (a int primary key)": D.CREATE_TABLE,
    "alter table t2 add FOREIGN KEY fk (a) references t2(a)": D.ADD_FOREIGN_KEY,
    "alter table t2 drop FOREIGN KEY fk": D.DROP_FOREIGN_KEY,
    "alter table t alter column c set default 5": D.SET_DEFAULT_VALUE,
    "alter table t drop column c": D.DROP_COLUMN,
    "truncate table t": D.TRUNCATE_TABLE,
    "truncate t": D.TRUNCATE_TABLE,
    "rename table t to t2": D.RENAME_TABLE,
    "drop table t2": D.DROP_TABLE,
    "create table t (a int primary key)\n    \tpartition by range(a) (\n    \tpartition p0 values less than (10),"
    "\n    \tpartition p1 values less than (20))": D.CREATE_TABLE,
    "alter table t add partition (partition p2 values less than (30))": D.ADD_TABLE_PARTITION,
    "alter table t reorganize partition p0, p1 into (partition p0 values less than (20))": D.REORGANIZE_PARTITION,
    "alter table t truncate partition p2": D.TRUNCATE_TABLE_PARTITION,
    "create table t1 (a int primary key)": D.CREATE_TABLE,
    "alter table t exchange partition p0 with table t1": D.EXCHANGE_TABLE_PARTITION,
    "alter table t drop partition p0": D.DROP_TABLE_PARTITION,
    "alter table t1 partition by hash(a) partitions 4": D.ALTER_TABLE_PARTITIONING,
    "alter table t1 remove partitioning": D.REMOVE_PARTITIONING,
    "alter table t1 character set utf8mb4": D.MODIFY_TABLE_CHARSET_AND_COLLATE,
    "alter database test character set utf8mb4": D.MODIFY_SCHEMA_CHARSET_AND_COLLATE,
}


@pytest.mark.parametrize(("query", "expected"), REFERENCE_CASES.items(), ids=list(REFERENCE_CASES))
def test_every_statement_of_the_reference_test_reads_back_as_its_tidb_type(query: str, expected: DDLType) -> None:
    assert ddl_type_from("ALTER", query) == expected


#: Every partition DDL, with lists of partition names (which are not further changes).
PARTITION_CASES = {
    "alter table t add partition (partition p3 values less than (40), partition p4 values less than (50))":
        D.ADD_TABLE_PARTITION,
    "alter table t add partition partitions 4": D.ADD_TABLE_PARTITION,
    "alter table t last partition less than (100)": D.ADD_TABLE_PARTITION,
    "alter table t drop partition p0": D.DROP_TABLE_PARTITION,
    "alter table t drop partition p0, p1, `p 2`": D.DROP_TABLE_PARTITION,
    "alter table t drop partition if exists p0": D.DROP_TABLE_PARTITION,
    "alter table t first partition less than (10)": D.DROP_TABLE_PARTITION,
    "alter table t truncate partition p0": D.TRUNCATE_TABLE_PARTITION,
    "alter table t truncate partition p0, p1": D.TRUNCATE_TABLE_PARTITION,
    "alter table t truncate partition all": D.TRUNCATE_TABLE_PARTITION,
    "alter table t exchange partition p0 with table t1": D.EXCHANGE_TABLE_PARTITION,
    "alter table s.t exchange partition p0 with table s.t1 without validation": D.EXCHANGE_TABLE_PARTITION,
    "alter table t reorganize partition p0 into (partition p0 values less than (5), partition p1 values less "
    "than (10))": D.REORGANIZE_PARTITION,
    "alter table t reorganize partition p0, p1 into (partition p0 values less than (20))": D.REORGANIZE_PARTITION,
    "ALTER TABLE t REORGANIZE PARTITION `p0`,`p1`,`p2` INTO (PARTITION pall VALUES LESS THAN MAXVALUE)":
        D.REORGANIZE_PARTITION,
    "alter table t coalesce partition 2": D.REORGANIZE_PARTITION,
    "alter table t remove partitioning": D.REMOVE_PARTITIONING,
    "alter table t partition by hash(a) partitions 4": D.ALTER_TABLE_PARTITIONING,
    "alter table t partition by key(a) partitions 4": D.ALTER_TABLE_PARTITIONING,
    "alter table t partition by range (a) (partition p0 values less than (10), partition p1 values less than "
    "maxvalue)": D.ALTER_TABLE_PARTITIONING,
    "alter table t partition by list (a) (partition p0 values in (1, 2), partition p1 values in (3))":
        D.ALTER_TABLE_PARTITIONING,
    "alter table t partition p0 placement policy = p1": D.ALTER_TABLE_PARTITION_PLACEMENT,
    "alter table t partition p0 attributes = 'merge_option=deny'": D.ALTER_TABLE_PARTITION_ATTRIBUTES,
    "truncate table t partition (p0, p1)": D.TRUNCATE_TABLE_PARTITION,
}


@pytest.mark.parametrize(("query", "expected"), PARTITION_CASES.items(), ids=list(PARTITION_CASES))
def test_every_partition_ddl_reads_back_as_its_own_type(query: str, expected: DDLType) -> None:
    assert ddl_type_from("ALTER", query) == expected


def test_a_list_of_partition_names_then_another_change_is_a_multi_schema_change() -> None:
    assert statement_ddl_type("alter table t drop partition p0, p1, add column c int") == D.MULTI_SCHEMA_CHANGE


@pytest.mark.parametrize(
    "query",
    [
        "  ALTER\n\tTABLE   t\n  DROP   COLUMN c  ",
        "alter table t drop column c;",
        "/* made by a tool */ alter table t -- a remark\n drop column c",
        "# a remark\nalter table t drop column c",
        "alter table `t` drop column `c`",
        "alter table `s`.`t` drop column `add column`",
        "alter table s.t drop column c /*T![feature] , algorithm = instant */",
        "/*!40000 alter table t drop column c */",
    ],
)
def test_case_whitespace_comments_and_backquotes_do_not_change_the_type(query: str) -> None:
    assert statement_ddl_type(query) == D.DROP_COLUMN


def test_words_inside_strings_names_and_comments_are_not_keywords() -> None:
    assert statement_ddl_type("alter table `drop column` add column `partition by` int") == D.ADD_COLUMN
    assert statement_ddl_type("alter table t comment 'remove partitioning'") == D.MODIFY_TABLE_COMMENT
    assert statement_ddl_type("alter table t /* drop column c */ add column c int") == D.ADD_COLUMN


def test_commas_inside_parentheses_do_not_make_a_multi_schema_change() -> None:
    assert statement_ddl_type("alter table t add index i (a, b, c)") == D.ADD_INDEX


def test_backquoted_names_are_unescaped_tokens() -> None:
    assert [(t.kind, t.text) for t in tokens("DROP TABLE `a``b`.'x'")] == [
        ("word", "drop"), ("word", "table"), ("name", "a`b"), ("punct", "."), ("string", "x"),
    ]


@pytest.mark.parametrize(
    ("word", "query", "expected"),
    [
        ("ALTER", "alter table t engine = innodb", D.MODIFY_COLUMN),
        ("QUERY", "grant all on *.* to u", D.UPDATE_TIFLASH_REPLICA_STATUS),
        ("CREATE", "", D.CREATE_TABLE),
        ("ERASE", "not sql at all", D.DROP_TABLE),
    ],
)
def test_a_statement_it_cannot_classify_falls_back_to_the_canal_word(word, query, expected) -> None:
    assert statement_ddl_type(query) is None
    assert ddl_type_from(word, query) == expected


@pytest.mark.parametrize(
    ("query", "ddl_type"),
    [
        ("alter table t drop column c", D.DROP_COLUMN),
        ("alter table t remove partitioning", D.REMOVE_PARTITIONING),
        ("alter table t partition by hash(a) partitions 4", D.ALTER_TABLE_PARTITIONING),
        ("alter table t alter column c set default 1", D.SET_DEFAULT_VALUE),
        ("alter table t exchange partition p0 with table t0", D.EXCHANGE_TABLE_PARTITION),
    ],
)
def test_ddl_event_round_trips_with_its_own_type(query: str, ddl_type: DDLType) -> None:
    config = canal_config(enable_tidb_extension=True)
    event = DDLEvent(7 << 18, "test", "t", query, ddl_type)
    (back,) = round_trip(config, event)
    assert back == event
    assert back == open_sink(config).codec.carrier(config)(event)


@pytest.mark.parametrize("ddl_type", [D.ALTER_TABLE_PARTITIONING, D.REMOVE_PARTITIONING])
def test_partitioning_a_table_and_removing_partitioning_are_canal_alter(ddl_type: DDLType) -> None:
    doc = encode_one(canal_config(), DDLEvent(1, "s", "t", "alter table t remove partitioning", ddl_type))
    assert doc["type"] == "ALTER"


_PIECES = st.sampled_from([
    "alter", "table", "t", "add", "drop", "column", "partition", "by", "(", ")", ",", "`x`", "'s'", "/*", "*/",
    "/*!", "/*T![f]", "--", "\n", "#", "default", "charset", "=", "rename", "to", "index", "key", "constraint",
    "create", "view", "first", "last", "remove", "ttl", ";",
])


@settings(max_examples=2000, deadline=None)
@given(st.lists(_PIECES, max_size=12).map(" ".join) | st.text())
def test_any_text_gives_a_ddl_type_or_none_and_never_an_error(query: str) -> None:
    assert statement_ddl_type(query) is None or isinstance(statement_ddl_type(query), DDLType)
