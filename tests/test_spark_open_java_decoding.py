"""open-protocol's Java decoding tier (its plugin's ``MessageDecoder``, which reads the several
events a message packs) against its Python decoder: a read gives the same rows on both tiers for
every column type and option, Java reads the row and resolved events of the messages it is sure
of, and the Python decoder reads every other message (DDL, claim-check pointers, handle-key-only
rows, anything malformed) in its place and words every error."""

from __future__ import annotations

import base64
import json
import random
import struct
from pathlib import Path


import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.foundation.errors import DecodeError
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import decoding_tier, java_pass
from cdcwire.testing.jvm_tiers import (
    messages_read_otherwise, on_tier, pending_of, read_on_both_tiers, refusals_on_both_tiers,
    sink_of_messages,
)
from cdcwire.testing.mutations import seeded_json_token_mutated, seeded_mutated
from cdcwire.workload import Workload

from test_spark_java_encoding import every_kind_rows, trap_rows

QUERY = "protocol=open-protocol&partition-num=2"
LENGTH = struct.Struct(">Q")


def sink_of(tmp_path: Path, events, query: str = QUERY) -> str:
    uri = f"file://{tmp_path}/t?{query}"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def raw_sink(tmp_path: Path, messages: list[tuple[bytes, bytes]], query: str = QUERY) -> str:
    """A sink of these (key, value) messages, as they are, in one partition."""
    return sink_of_messages(tmp_path, messages, query)


def messages_of(spark, uri: str):
    return spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").option("output", "messages").load()


def first_pass(spark, uri: str) -> list:
    """The Java pass's rows: one per event Java read, one per message it left pending."""
    return java_pass(messages_of(spark, uri), open_sink(uri), True).collect()


def test_compressed_messages_are_decoded_in_python_saying_why(spark):
    sink = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=snappy")
    assert decoding_tier(sink, spark) == ("python", "open-protocol's large-message compression is decoded in Python only")


def test_java_reads_every_event_of_a_batch_of_every_column_kind_itself(spark, tmp_path):
    events = [*every_kind_rows(10), *trap_rows()]
    uri = sink_of(tmp_path, events)
    rows = first_pass(spark, uri)
    assert not any(r["_cdc_pending"] for r in rows)
    assert len(rows) == len(events)
    assert len(pending_of(spark, uri)) < len(events) / 4  # several events to a message (max-batch-size 16)


def test_a_batchs_events_come_out_in_the_messages_order(spark, tmp_path):
    uri = sink_of(tmp_path, every_kind_rows(8), "protocol=open-protocol&partition-num=1")
    python = on_tier(spark, "python", lambda: cs.read(spark, uri, topics="*").collect())
    java = on_tier(spark, "auto", lambda: cs.read(spark, uri, topics="*").collect())
    assert len({r.offset for r in java}) < len(java)  # messages of several events
    assert java == python


# --- messages taken apart and put together again -------------------------------------------------


def documents(message: tuple[bytes, bytes]) -> tuple[list[bytes], list[bytes]]:
    """The key documents and value documents of a message."""
    key, value = message

    def parts(buf: bytes, at: int) -> list[bytes]:
        out = []
        while at < len(buf):
            (n,) = LENGTH.unpack_from(buf, at)
            out.append(buf[at + 8:at + 8 + n])
            at += 8 + n
        return out

    return parts(key, 8), parts(value, 0)


def framed(keys: list[bytes], values: list[bytes]) -> tuple[bytes, bytes]:
    """A message of these key and value documents, each with its length."""
    return (LENGTH.pack(1) + b"".join(LENGTH.pack(len(k)) + k for k in keys),
            b"".join(LENGTH.pack(len(v)) + v for v in values))


def _edited(message: tuple[bytes, bytes], edit_value=None, edit_key=None) -> tuple[bytes, bytes]:
    """The message with its first event's value (and/or key) document edited as JSON."""
    keys, values = documents(message)
    for docs, edit in ((values, edit_value), (keys, edit_key)):
        if edit is not None:
            doc = json.loads(docs[0])
            edit(doc)
            docs[0] = json.dumps(doc).encode()
    return framed(keys, values)


def _bytes_replaced(message: tuple[bytes, bytes], old: bytes, new: bytes, in_key: bool = False) -> tuple[bytes, bytes]:
    keys, values = documents(message)
    docs = keys if in_key else values
    assert old in docs[0]
    docs[0] = docs[0].replace(old, new, 1)
    return framed(keys, values)


KEY = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")


def _message(*columns: Column, pre: tuple[Column, ...] | None = None) -> tuple[bytes, bytes]:
    uri = f"file:///tmp/t?{QUERY}"
    (m,) = cdcwire.encode(uri, [RowChangedEvent(1 << 40, "shop", "t", (KEY, *columns), pre)])
    return m.key, m.value


def _column_value(doc: dict, value) -> None:
    doc["u"]["c"]["v"] = value


def _column(doc: dict, **fields) -> None:
    doc["u"]["c"].update(fields)


PLAIN = _message(Column("c", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "a", "varchar(8)"))
FLOAT = _message(Column("c", ColumnType.FLOAT, ColumnFlag(0), 1.5, "float"))
BLOB = _message(Column("c", ColumnType.BLOB, ColumnFlag.BINARY, b"ab", "blob"))
TEXT = _message(Column("c", ColumnType.BLOB, ColumnFlag(0), "ab", "text"))
QUOTED = _message(Column("c", ColumnType.VARCHAR, ColumnFlag.BINARY, b"\x89PNG\r\n\x1a\n\x00\xff", "varbinary(8)"))
UNSIGNED = _message(Column("c", ColumnType.BIGINT, ColumnFlag.UNSIGNED, (1 << 64) - 1, "bigint(20) unsigned"))
BATCH = framed(*[sum(parts, []) for parts in zip(*(documents(m) for m in (PLAIN, FLOAT, BLOB)))])
(_RESOLVED,) = cdcwire.encode("file:///tmp/t?protocol=open-protocol&partition-num=1", [ResolvedEvent(1 << 41)])
RESOLVED = (_RESOLVED.key, _RESOLVED.value)
(_DDL,) = cdcwire.encode("file:///tmp/t?protocol=open-protocol&partition-num=1",
                         [DDLEvent(1 << 40, "shop", "t", "CREATE TABLE t (id INT)", DDLType.CREATE_TABLE)])
#: Messages Java reads: each plain kind, for comparison.
READ_BY_JAVA = [PLAIN, FLOAT, BLOB, TEXT, QUOTED, UNSIGNED, BATCH, RESOLVED]

#: Messages the Java tier must leave to Python: each is read, or refused, by the Python decoder.
LEFT_TO_PYTHON = {
    "a DDL": (_DDL.key, _DDL.value),
    "a key of another version": (LENGTH.pack(2) + PLAIN[0][8:], PLAIN[1]),
    "no key": (None, PLAIN[1]),
    "a key cut short": (PLAIN[0][:-3], PLAIN[1]),
    "fewer values than keys": framed(documents(BATCH)[0], documents(BATCH)[1][:2]),
    "more values than keys": framed(documents(BATCH)[0][:2], documents(BATCH)[1]),
    "a version and no event": (LENGTH.pack(1), b""),
    "a key document that is not JSON": framed([b'{"ts":'], documents(PLAIN)[1]),
    "a BOM before the value document": _bytes_replaced(PLAIN, b"{", b"\xef\xbb\xbf{"),
    "a key twice in the value document": _bytes_replaced(PLAIN, b'{"u":', b'{"u":{},"u":'),
    "text after the value document": _bytes_replaced(PLAIN, b'"a"}}}', b'"a"}}} {}'),
    "ts past 2^64": _edited(PLAIN, edit_key=lambda k: k.update(ts=1 << 64)),
    "ts negative": _edited(PLAIN, edit_key=lambda k: k.update(ts=-1)),
    "ts a float": _edited(PLAIN, edit_key=lambda k: k.update(ts=1.0)),
    "an event type 4": _edited(PLAIN, edit_key=lambda k: k.update(t=4)),
    "scm a number": _edited(PLAIN, edit_key=lambda k: k.update(scm=1)),
    "ptn a string": _edited(PLAIN, edit_key=lambda k: k.update(ptn="1")),
    "a handle-key-only row": _edited(PLAIN, edit_key=lambda k: k.update(ohk=True)),
    "a claim-check pointer": _edited(PLAIN, edit_key=lambda k: k.update(ccl="x.json")),
    "a resolved event with a value": framed(documents(RESOLVED)[0], [b'{"u":{}}']),
    "a row with d and u": _edited(PLAIN, lambda d: d.update(d=d["u"])),
    "a row without u or d": _edited(PLAIN, lambda d: d.update(p=d.pop("u"))),
    "an empty image": _edited(PLAIN, lambda d: d.update(u={})),
    "a column without v": _edited(PLAIN, lambda d: d["u"]["c"].pop("v")),
    "an unknown type code": _edited(PLAIN, lambda d: _column(d, t=99)),
    "a type code as text": _edited(PLAIN, lambda d: _column(d, t="15")),
    "flags negative": _edited(PLAIN, lambda d: _column(d, f=-1)),
    "h a number": _edited(PLAIN, lambda d: _column(d, h=1)),
    "a text column given a number": _edited(PLAIN, lambda d: _column_value(d, 1)),
    "an integer given a float": _edited(PLAIN, lambda d: d["u"]["id"].update(v=1.0)),
    "an integer past 64 bits": _edited(PLAIN, lambda d: d["u"]["id"].update(v=1 << 64)),
    "an integer past its type": _edited(PLAIN, lambda d: d["u"]["id"].update(v=1 << 40)),
    "a lone surrogate": _bytes_replaced(PLAIN, b'"a"', b'"\\ud800"'),
    "a float past the FLOAT range": _edited(FLOAT, lambda d: _column_value(d, 3.5e38)),
    "base64 without its padding": _edited(BLOB, lambda d: _column_value(d, "YWI")),
    "base64 with its unused bits set": _edited(BLOB, lambda d: _column_value(d, "YR==")),
    "base64 of a TEXT that is not UTF-8": _edited(TEXT, lambda d: _column_value(d, base64.b64encode(b"\xff").decode())),
    "a Go escape that is none": _edited(QUOTED, lambda d: _column_value(d, "\\q")),
    "an octal escape above 377": _edited(QUOTED, lambda d: _column_value(d, "\\400")),
    "an unsigned integer past 2^64": _edited(UNSIGNED, lambda d: _column_value(d, 1 << 64)),
    "a bad row after a good one": framed(documents(BATCH)[0][:2] + documents(PLAIN)[0],
                                         documents(BATCH)[1][:2] + [b'{"u":{"c":{"t":15,"v":1}}}']),
}


def test_java_leaves_each_message_it_is_not_sure_of_to_python(spark, tmp_path):
    uri = raw_sink(tmp_path, [*READ_BY_JAVA, *LEFT_TO_PYTHON.values()])
    pending = pending_of(spark, uri)
    assert pending[:len(READ_BY_JAVA)] == [False] * len(READ_BY_JAVA)  # the plain messages, for comparison
    left = [name for name, is_pending in zip(LEFT_TO_PYTHON, pending[len(READ_BY_JAVA):]) if not is_pending]
    assert left == [], f"Java read messages it must leave to Python: {left}"


def test_a_permissive_read_of_bad_messages_gives_the_same_rows_on_both_tiers(spark, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN, *LEFT_TO_PYTHON.values(), *READ_BY_JAVA])
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) >= 30
    assert java == python


def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tmp_path):
    uri = raw_sink(tmp_path, [BATCH, LEFT_TO_PYTHON["a float past the FLOAT range"]])
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e), e.where) for e in refusals]
    assert errors[0][0] is DecodeError and errors[0][2] == "t/0/1"
    assert errors[1] == errors[0]


def mutated_messages(query: str, count: int, seed: int) -> list[tuple[bytes, bytes]]:
    """A workload's messages spoiled: one document's bytes or JSON tokens edited (its length
    put right, so the frame still holds), or the key's or value's raw bytes edited."""
    rng = random.Random(seed)
    uri = f"file:///tmp/t?{query}"
    messages = [(m.key, m.value) for m in cdcwire.encode(uri, [*Workload(60, seed=seed), *every_kind_rows(6)])]
    out = []
    while len(out) < count:
        key, value = rng.choice(messages)
        if rng.random() < 0.15:
            out.append((seeded_mutated(rng, key), value) if rng.random() < 0.5 else (key, seeded_mutated(rng, value)))
            continue
        keys, values = documents((key, value))
        docs = keys if rng.random() < 0.3 else values
        at = rng.randrange(len(docs))
        spoil = seeded_json_token_mutated if rng.random() < 0.6 else seeded_mutated
        docs[at] = spoil(rng, docs[at])
        out.append(framed(keys, values))
    return out


def test_mutated_messages_read_the_same_on_both_tiers(spark, tmp_path):
    messages = mutated_messages(QUERY, 400, seed=11)
    uri = raw_sink(tmp_path, messages)
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) > 150
    assert sum(r["_malformed"] is None for r in python) > 50
    differing = messages_read_otherwise(python, java)
    assert [messages[o] for _, _, o in differing[:3]] == []
    assert len(java) == len(python)

