"""craft's Java decoding tier (its plugin's ``MessageDecoder``) against its Python decoder: a
read gives the same rows on both tiers for every column type and option, Java reads the row
and resolved messages it is sure of (every event of the batch a message packs, each a row in
the message's place), and the Python decoder reads every other message (DDL, anything not
exactly well-formed) in its place and words every error."""

from __future__ import annotations

from collections import Counter
import random
import struct
from pathlib import Path


import cdcwire
from cdcwire import ColumnFlag, ColumnType, DDLEvent, DDLType, Message, ResolvedEvent
from cdcwire import spark as cs
from cdcwire.foundation.errors import DecodeError
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import java_pass
from cdcwire.testing.jvm_tiers import (
    messages_read_otherwise, on_tier, pending_of, read_on_both_tiers, refusals_on_both_tiers,
    sink_of_messages,
)
from cdcwire.testing.mutations import seeded_mutated
from cdcwire.workload import Workload
from cdcwire_craft.primitives import (
    delta_uvarint_chunk,
    delta_varint_chunk,
    nullable_bytes_chunk,
    reversed_uvarint,
    string_chunk,
    uvarint,
    uvarint_chunk,
)

from test_spark_java_encoding import every_kind_rows

QUERY = "protocol=craft&partition-num=2"


def sink_of(tmp_path: Path, events, query: str = QUERY) -> str:
    uri = f"file://{tmp_path}/t?{query}"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def raw_sink(tmp_path: Path, values: list, query: str = QUERY) -> str:
    """A sink of these message values (craft's key is null), as they are, in one partition."""
    return sink_of_messages(tmp_path, values, query)


def in_message_order(df) -> list:
    """The rows by their message's place; a message's own rows keep the order they came in."""
    return sorted(df.collect(), key=lambda r: (r.topic, r.partition, r.offset))


def first_pass(spark, uri: str):
    messages = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").option("output", "messages").load()
    return java_pass(messages, open_sink(uri), True)


def test_each_event_of_a_batch_is_a_row_in_its_messages_place(spark, tmp_path):
    uri = sink_of(tmp_path, every_kind_rows(16), "protocol=craft&max-batch-size=16")  # 48 rows, 3 messages
    first = first_pass(spark, uri).collect()
    assert not any(r["_cdc_pending"] for r in first)
    assert sorted(Counter(r.offset for r in first).items()) == [(0, 16), (1, 16), (2, 16)]
    python, java = (on_tier(spark, t, lambda: in_message_order(cs.read(spark, uri, topics="*"))) for t in ("python", "auto"))
    assert java == python  # a message's rows in the order the Python decoder gives its events


# -- messages built by hand: what Java must leave to the Python decoder ------------------------

INT, VARCHAR, TINYINT, FLOAT, DOUBLE, DECIMAL, JSON = (
    int(t) for t in (ColumnType.INT, ColumnType.VARCHAR, ColumnType.TINYINT, ColumnType.FLOAT,
                     ColumnType.DOUBLE, ColumnType.DECIMAL, ColumnType.JSON))
KEY_FLAGS = int(ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY)


def group(kind: int, names: list[int], types: list[int], flags: list[int], values: list, extra: bytes = b"") -> bytes:
    """A column group: kind byte, count, name ids, type codes, flag bits, value lengths, values."""
    return (bytes([kind]) + uvarint(len(names)) + delta_varint_chunk(names) + uvarint_chunk(types)
            + uvarint_chunk(flags) + nullable_bytes_chunk(values) + extra)


def value_of(rows: list[list[bytes]], terms: list[bytes], headers: list[tuple[int, int, int, int, int]] | None = None,
             bodies: list[bytes] | None = None, version: bytes = b"\x01") -> bytes:
    """A craft message: ``rows`` (each its groups), ``terms``, and headers (ts, type, partition,
    schema id, table id) per event; ``bodies`` for events that are not rows."""
    bodies = bodies if bodies is not None else [b"".join(groups) for groups in rows]
    headers = headers or [(1 << 40, 1, -1, 0, 1) for _ in rows]
    ts, types, partitions, schemas, tables = zip(*headers)
    head = (delta_uvarint_chunk(ts) + uvarint_chunk(types) + delta_varint_chunk(partitions)
            + delta_varint_chunk(schemas) + delta_varint_chunk(tables))
    dictionary = uvarint(len(terms)) + string_chunk(terms) if terms else b""
    size_tables = (uvarint(2) + delta_varint_chunk([len(head), len(dictionary)])
                   + uvarint(len(bodies)) + delta_varint_chunk([len(b) for b in bodies]))
    for groups in rows:
        size_tables += uvarint(len(groups)) + delta_varint_chunk([len(g) for g in groups])
    return version + head + b"".join(bodies) + dictionary + size_tables + reversed_uvarint(len(size_tables))


TERMS = [b"shop", b"t", b"id", b"c"]


def one_column(ctype: int, value: bytes | None, flags: int = 0, terms=TERMS, **edits) -> bytes:
    """An insert of (id INT key = 1, c of this type and value)."""
    return value_of([[group(1, [2, 3], [INT, ctype], [KEY_FLAGS, flags], [b"\x02", value])]], terms, **edits)


PLAIN = one_column(VARCHAR, b"abc")
FLOAT_ROW = one_column(FLOAT, struct.pack("<d", 1.5))
UPDATE = value_of([[group(1, [2, 3], [INT, VARCHAR], [KEY_FLAGS, 0], [b"\x02", b"new"]),
                    group(2, [2, 3], [INT, VARCHAR], [KEY_FLAGS, 0], [b"\x02", b"old"])]], TERMS)
RESOLVED = value_of([], [], headers=[(7, 3, -1, -1, -1)], bodies=[b""])
DDL = cdcwire.encode(f"file:///tmp/t?{QUERY}", [DDLEvent(9, "shop", "t", "ALTER TABLE t ADD d INT", DDLType.ADD_COLUMN)])[0].value


def _swap_last(value: bytes, old: bytes, new: bytes) -> bytes:
    at = value.rindex(old)
    return value[:at] + new + value[at + len(old):]


#: Messages the Java tier must leave to Python: each is read, or refused, by the Python decoder.
LEFT_TO_PYTHON = {
    "no value": None,
    "an empty value": b"",
    "version 2": b"\x02" + PLAIN[1:],
    "version 1 in two bytes": b"\x81\x00" + PLAIN[1:],
    "a truncated message": PLAIN[:-3],
    "a byte after the trailer": PLAIN + b"\x00",
    "size tables starting before the headers": PLAIN[:-1] + b"\x7f",
    "a DDL": DDL,
    "a resolved event with a body": value_of([], [], headers=[(7, 3, -1, -1, -1)], bodies=[b"\x00"]),
    "an unknown event type": value_of([], [], headers=[(7, 4, -1, -1, -1)], bodies=[b""]),
    "a schema id past the dictionary": one_column(VARCHAR, b"abc", headers=[(1, 1, -1, 9, 1)]),
    "a table id below -1": one_column(VARCHAR, b"abc", headers=[(1, 1, -1, 0, -2)]),
    "a term not UTF-8": one_column(VARCHAR, b"abc", terms=[b"shop", b"t\xff", b"id", b"c"]),
    "a NUL in the table name": one_column(VARCHAR, b"abc", terms=[b"shop", b"t\x00", b"id", b"c"]),
    "a row without its size table": value_of([], TERMS, headers=[(1, 1, -1, 0, 1)], bodies=[PLAIN[6:10]]),
    "a row of no column group": value_of([[]], TERMS),
    "a column group of kind 3": value_of([[group(3, [2], [INT], [KEY_FLAGS], [b"\x02"])]], TERMS),
    "two new groups": value_of([[group(1, [2], [INT], [KEY_FLAGS], [b"\x02"])] * 2], TERMS),
    "a name id past the dictionary": value_of([[group(1, [2, 7], [INT, VARCHAR], [KEY_FLAGS, 0], [b"\x02", b"a"])]], TERMS),
    "a column named twice": value_of([[group(1, [2, 2], [INT, INT], [KEY_FLAGS, 0], [b"\x02", b"\x04"])]], TERMS),
    "an unknown type code": one_column(17, b"abc"),
    "a flag bit past the known ones": one_column(VARCHAR, b"abc", flags=0x100),
    "a value length below -1": value_of([[group(1, [2], [INT], [KEY_FLAGS], [b"\x02"])[:-2] + b"\x03\x02"]], TERMS),
    "a value past its group": value_of([[group(1, [2], [INT], [KEY_FLAGS], [b"\x02"])[:-2] + b"\x04\x02"]], TERMS),
    "a byte after the values": value_of([[group(1, [2], [INT], [KEY_FLAGS], [b"\x02"], extra=b"\x00")]], TERMS),
    "an integer with a byte after it": one_column(INT, b"\x02\x00"),
    "an integer of no bytes": one_column(INT, b""),
    "an integer past 64 bits": one_column(INT, b"\xff" * 9 + b"\x02", flags=int(ColumnFlag.UNSIGNED)),
    "an integer past its type": one_column(TINYINT, uvarint(2000)),
    "a float of four bytes": one_column(FLOAT, b"\x00\x00\xc0\x3f"),
    "a float past the FLOAT range": one_column(FLOAT, struct.pack("<d", 3.5e38)),
    "a NaN DOUBLE": one_column(DOUBLE, struct.pack("<d", float("nan"))),
    "text not UTF-8": one_column(VARCHAR, b"a\xffc"),
    "a surrogate in UTF-8": one_column(VARCHAR, b"\xed\xa0\x80"),
    "an overlong UTF-8 slash": one_column(VARCHAR, b"\xc0\xaf"),
    "a DECIMAL that is no number": one_column(DECIMAL, b"1.2.3"),
    "a JSON column that is not JSON": one_column(JSON, b"{"),
    "a second row that is bad": value_of([[group(1, [2], [INT], [KEY_FLAGS], [b"\x02"])],
                                          [group(1, [2, 3], [INT, VARCHAR], [KEY_FLAGS, 0], [b"\x02", b"\xff"])]], TERMS),
}


def test_the_hand_built_messages_read_as_the_python_decoder_reads_them():
    decode = open_sink(f"file:///tmp/t?{QUERY}").codec.decoder(open_sink(f"file:///tmp/t?{QUERY}").config).decode
    (row,) = decode(Message("t", 0, None, PLAIN, 0))
    assert (row.commit_ts, row.schema, row.table, [(c.name, c.value) for c in row.columns]) == (
        1 << 40, "shop", "t", [("id", 1), ("c", "abc")])
    assert decode(Message("t", 0, None, RESOLVED, 0)) == [ResolvedEvent(7)]
    assert [c.value for c in decode(Message("t", 0, None, UPDATE, 0))[0].pre_columns] == [1, "old"]


def test_java_leaves_each_message_it_is_not_sure_of_to_python(spark, tmp_path):
    plain = [PLAIN, FLOAT_ROW, UPDATE, RESOLVED]
    uri = raw_sink(tmp_path, [*plain, *LEFT_TO_PYTHON.values()])
    pending = pending_of(spark, uri)
    assert pending[:4] == [False] * 4  # the plain messages, for comparison
    left = [name for name, is_pending in zip(LEFT_TO_PYTHON, pending[4:]) if not is_pending]
    assert left == [], f"Java read messages it must leave to Python: {left}"


def test_a_permissive_read_of_bad_messages_gives_the_same_rows_on_both_tiers(spark, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN, *LEFT_TO_PYTHON.values(), FLOAT_ROW, UPDATE, RESOLVED])
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) >= 25
    assert java == python


def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN, LEFT_TO_PYTHON["a float past the FLOAT range"]])
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e), e.where) for e in refusals]
    assert errors[0][0] is DecodeError and errors[0][2] == "t/0/1"
    assert errors[1] == errors[0]


def mutated_messages(query: str, count: int, seed: int) -> list[bytes]:
    """A workload's craft values spoiled: half by one byte replaced (the structure mostly holds:
    a value, an id, a type code, a flag, a size or a length changes), half by byte edits
    (flips, cuts, insertions)."""
    rng = random.Random(seed)
    uri = f"file:///tmp/t?{query}"
    values = [m.value for m in cdcwire.encode(uri, [*Workload(60, seed=seed), *every_kind_rows(6)])]
    out = []
    for _ in range(count):
        value = rng.choice(values)
        if rng.random() < 0.5:
            at = rng.randrange(len(value))
            out.append(value[:at] + bytes([rng.randrange(256)]) + value[at + 1:])
        else:
            out.append(seeded_mutated(rng, value))
    return out


def test_mutated_messages_read_the_same_on_both_tiers(spark, tmp_path):
    values = mutated_messages("protocol=craft&max-batch-size=4", 400, seed=11)
    uri = raw_sink(tmp_path, values)
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) > 200
    assert sum(r["_malformed"] is None for r in python) > 100
    read_by_java = {r.offset for r in first_pass(spark, uri).collect() if not r["_cdc_pending"]}
    assert len(read_by_java) > 50  # the comparison covers messages Java read itself
    differing = messages_read_otherwise(python, java)
    assert [values[o] for _, _, o in differing[:3]] == []
    assert len(java) == len(python)

