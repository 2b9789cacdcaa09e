"""eventlines' two Spark tiers held against each other with cdcwire's conformance kit
(``cdcwire.testing.jvm_tiers``): the Java decoder reads resolved events and rows of integer and
text columns itself, leaves every other message to the Python decoder in its place, and a read
gives the same rows, and the same refusals, on both tiers."""

from __future__ import annotations

import random
from pathlib import Path

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.plugin_api import INTEGER_TYPES, STRING_TYPES, DecodeError
from cdcwire.testing.jvm_tiers import (
    messages_read_otherwise, pending_of, read_on_both_tiers, refusals_on_both_tiers, sink_of_messages,
)
from cdcwire.testing.mutations import seeded_json_token_mutated, seeded_mutated
from cdcwire.workload import Workload
from cdcwire_eventlines.codec import EventLinesCodec

QUERY = "protocol=eventlines"
KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY


def values_of(events) -> list[bytes]:
    return [m.value for m in cdcwire.encode(f"file:///tmp/t?{QUERY}&partition-num=1", events)]


def sink_of(tmp_path: Path, events) -> str:
    return sink_of_messages(tmp_path, values_of(events), QUERY)


def java_kinds_only(event):
    """A workload row with only its columns of the kinds the Java decoder reads (integer types
    holding integers, string types holding text): a row Java reads itself, when its values fit."""
    def kept(image):
        if image is None:
            return None
        return tuple(c for c in image if not c.flags & ColumnFlag.BINARY and (
            c.type in INTEGER_TYPES and (c.value is None or isinstance(c.value, int))
            or c.type in STRING_TYPES and (c.value is None or isinstance(c.value, str))))
    if not isinstance(event, RowChangedEvent):
        return event
    return RowChangedEvent(event.commit_ts, event.schema, event.table, kept(event.columns), kept(event.pre_columns))


def one_column(ctype: ColumnType, value, flags: ColumnFlag = ColumnFlag(0), mysql_type=None) -> RowChangedEvent:
    return RowChangedEvent(1 << 40, "shop", "t", (Column("id", ColumnType.INT, KEY, 1, "int(11)"),
                                                   Column("c", ctype, flags, value, mysql_type)))


#: Messages the Java decoder reads itself.
READ_BY_JAVA = {
    "an insert of integers and text": one_column(ColumnType.VARCHAR, "abc", mysql_type="varchar(8)"),
    "a null text": one_column(ColumnType.CHAR, None, ColumnFlag.NULLABLE),
    "the largest BIGINT": one_column(ColumnType.BIGINT, (1 << 63) - 1),
    "an update": RowChangedEvent(7, "shop", "t", (Column("id", ColumnType.INT, KEY, 1), Column("c", ColumnType.VARCHAR, 0, "new")),
                                 (Column("id", ColumnType.INT, KEY, 1), Column("c", ColumnType.VARCHAR, 0, "old"))),
    "a delete": RowChangedEvent(7, "shop", "t", None, (Column("id", ColumnType.INT, KEY, 1),)),
    "a resolved event": ResolvedEvent(9),
}

#: Messages of other kinds: valid, but the Java decoder leaves them to the Python decoder.
LEFT_TO_PYTHON = {
    "a DDL": DDLEvent(9, "shop", "t", "ALTER TABLE t ADD d INT", DDLType.ADD_COLUMN),
    "a DOUBLE": one_column(ColumnType.DOUBLE, 1.5),
    "a FLOAT": one_column(ColumnType.FLOAT, 0.5),
    "a DECIMAL": one_column(ColumnType.DECIMAL, "1.25", mysql_type="decimal(4,2)"),
    "bytes": one_column(ColumnType.BLOB, b"\x00\xff", ColumnFlag.BINARY),
    "an unsigned BIGINT past the signed range": one_column(ColumnType.BIGINT, 1 << 63, ColumnFlag.UNSIGNED),
    "a table id": RowChangedEvent(7, "shop", "t", (Column("id", ColumnType.INT, KEY, 1),), None, 12),
}

#: Messages the Python decoder refuses: the Java decoder must leave them too.
REFUSED = {
    "no JSON": b"{",
    "not UTF-8": b'{"type":"resolved","ts":1\xff}',
    "a key twice": b'{"type":"resolved","ts":1,"ts":2}',
    "an unknown key": b'{"type":"resolved","ts":1,"x":0}',
    "a negative ts": b'{"type":"resolved","ts":-1}',
    "an integer out of its type's range": values_of([one_column(ColumnType.TINYINT, 100)])[0].replace(b'"value":100', b'"value":3000'),
    "a text in an integer column": values_of([one_column(ColumnType.INT, 5)])[0].replace(b'"value":5', b'"value":"5"'),
    "a column named twice": values_of([one_column(ColumnType.INT, 5)])[0].replace(b'"name":"c"', b'"name":"id"'),
    "an unknown flag bit": values_of([one_column(ColumnType.INT, 5)])[0].replace(b'"flags":0', b'"flags":256'),
    "a NUL in the table name": values_of([one_column(ColumnType.INT, 5)])[0].replace(b'"table":"t"', b'"table":"t\\u0000"'),
}


def test_the_codec_declares_a_java_decoder_in_its_own_package():
    declared = EventLinesCodec.jvm
    source = declared.sources.joinpath(*declared.decoder.split(".")).with_suffix(".java")
    assert source.read_text(encoding="utf-8").startswith("package io.example.eventlines;")


def test_java_reads_integer_and_text_rows_and_resolved_events_itself(spark, tmp_path):
    uri = sink_of(tmp_path, READ_BY_JAVA.values())
    assert pending_of(spark, uri) == [False] * len(READ_BY_JAVA)


def test_java_leaves_ddl_and_every_other_column_kind_to_python(spark, tmp_path):
    uri = sink_of(tmp_path, LEFT_TO_PYTHON.values())
    read = [name for name, pending in zip(LEFT_TO_PYTHON, pending_of(spark, uri)) if not pending]
    assert read == [], f"Java read messages it must leave to Python: {read}"


def test_java_leaves_every_message_python_refuses(spark, tmp_path):
    uri = sink_of_messages(tmp_path, list(REFUSED.values()), QUERY)
    read = [name for name, pending in zip(REFUSED, pending_of(spark, uri)) if not pending]
    assert read == [], f"Java read messages the Python decoder refuses: {read}"


def test_a_workload_of_every_column_kind_reads_the_same_on_both_tiers(spark, tmp_path):
    workload = list(Workload(60, seed=3))
    uri = sink_of(tmp_path, [*workload, *map(java_kinds_only, workload), *READ_BY_JAVA.values(), *LEFT_TO_PYTHON.values()])
    python, java = read_on_both_tiers(spark, uri)
    pending = pending_of(spark, uri)
    assert pending.count(False) > 40 and pending.count(True) > 60  # both tiers served: the test is not vacuous
    assert messages_read_otherwise(python, java) == []
    assert java == python


def digit_changed(rng: random.Random, value: bytes) -> bytes:
    """One digit of the value replaced: an integer, a timestamp, a flag or a text changes, and may
    leave its type's range (the record checks' to judge, on both tiers)."""
    at = rng.choice([i for i, b in enumerate(value) if 0x30 <= b <= 0x39])
    return value[:at] + str(rng.randrange(10)).encode() + value[at + 1:]


def test_mutated_messages_read_the_same_on_both_tiers(spark, tmp_path):
    rng = random.Random(11)
    values = values_of([java_kinds_only(e) for e in Workload(40, seed=5)])
    spoilers = (digit_changed, seeded_mutated, seeded_json_token_mutated)
    spoiled = [spoilers[i % 3](rng, rng.choice(values)) for i in range(300)]
    uri = sink_of_messages(tmp_path, spoiled, QUERY)
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) > 100
    assert pending_of(spark, uri).count(False) > 50  # many spoiled messages still read, in Java: not vacuous
    assert messages_read_otherwise(python, java) == []
    assert java == python


def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tmp_path):
    uri = sink_of_messages(tmp_path, [values_of([READ_BY_JAVA["a delete"]])[0], REFUSED["an integer out of its type's range"]], QUERY)
    python_error, java_error = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    assert isinstance(python_error, DecodeError) and python_error.where == "t/0/1"
    assert (type(java_error), str(java_error), java_error.where) == (type(python_error), str(python_error), python_error.where)
