"""debezium's Java decoding tier (its plugin's ``MessageDecoder``) against its Python decoder:
a read gives the same rows on both tiers for every column type and option, Java reads the
row and watermark messages it is sure of, and the Python decoder reads every other message
(DDL, anything malformed) in its place and words every error."""

from __future__ import annotations

import functools

import json
import random
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.foundation.errors import DecodeError
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import decoding_tier
from cdcwire.testing.jvm_tiers import (
    messages_read_otherwise, on_tier, pending_of, read_on_both_tiers, refusals_on_both_tiers,
    sink_of_messages,
)
from cdcwire.testing.mutations import seeded_json_token_mutated, seeded_mutated
from cdcwire.workload import Workload

from test_spark_java_encoding import every_kind_rows

QUERY = "protocol=debezium&enable-tidb-extension=true&partition-num=2"


@pytest.fixture
def tier(spark):
    """Runs a read on the named tier (``python`` or ``auto``), then puts the setting back."""
    return functools.partial(on_tier, spark)


def sink_of(tmp_path: Path, events, query: str = QUERY) -> str:
    uri = f"file://{tmp_path}/t?{query}"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def raw_sink(tmp_path: Path, messages: list[tuple[bytes, bytes]], query: str = QUERY) -> str:
    """A sink of these (key, value) messages, as they are, in one partition."""
    return sink_of_messages(tmp_path, messages, query)


def test_compressed_messages_are_decoded_in_python_saying_why(spark):
    sink = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=lz4")
    assert decoding_tier(sink, spark) == ("python", "debezium's large-message compression is decoded in Python only")


KEY = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")


def _message(*columns: Column, pre: tuple[Column, ...] | None = None) -> tuple[bytes, bytes]:
    uri = f"file:///tmp/t?{QUERY}"
    (m,) = cdcwire.encode(uri, [RowChangedEvent(1 << 40, "shop", "t", (KEY, *columns), pre)])
    return m.key, m.value


def _edited(message: tuple[bytes, bytes], edit) -> tuple[bytes, bytes]:
    key, value = message
    doc = json.loads(value)
    edit(doc)
    return key, json.dumps(doc).encode()


def _column_value(doc: dict, value) -> None:
    doc["payload"]["after"]["c"] = value


PLAIN = _message(Column("c", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "a", "varchar(8)"))
FLOAT = _message(Column("c", ColumnType.FLOAT, ColumnFlag(0), 1.5, "float"))
BLOB = _message(Column("c", ColumnType.BLOB, ColumnFlag.BINARY, b"ab", "blob"))
ENUM = _message(Column("c", ColumnType.ENUM, ColumnFlag(0), 1, "enum('a','b')"))
BIT = _message(Column("c", ColumnType.BIT, ColumnFlag(0), 5, "bit(3)"))

#: Messages the Java tier must leave to Python: each is read, or refused, by the Python decoder.
LEFT_TO_PYTHON = {
    "not JSON": (PLAIN[0], b'{"payload":'),
    "a BOM": (PLAIN[0], b"\xef\xbb\xbf" + PLAIN[1]),
    "a key that is not JSON": (b"{", PLAIN[1]),
    "no key": (None, PLAIN[1]),
    "a key naming another column": (b'{"payload":{"zz":1}}', PLAIN[1]),
    "a key twice in the value": (PLAIN[0], PLAIN[1].replace(b'"op":', b'"op":"c","op":')),
    "text after the value": (PLAIN[0], PLAIN[1] + b" {}"),
    "an op other than c, u, d, m": _edited(PLAIN, lambda d: d["payload"].update(op="x")),
    "commit_ts past 2^64": _edited(PLAIN, lambda d: d["payload"]["source"].update(commit_ts=1 << 64)),
    "commit_ts negative": _edited(PLAIN, lambda d: d["payload"]["source"].update(commit_ts=-1)),
    "commit_ts a float": _edited(PLAIN, lambda d: d["payload"]["source"].update(commit_ts=1.0)),
    "db a number": _edited(PLAIN, lambda d: d["payload"]["source"].update(db=1)),
    "no schema": _edited(PLAIN, lambda d: d.pop("schema")),
    "a field without tidb_type": _edited(PLAIN, lambda d: d["schema"]["fields"][1]["fields"][1].pop("tidb_type")),
    "an unknown tidb_type": _edited(PLAIN, lambda d: d["schema"]["fields"][1]["fields"][1].update(tidb_type="uuid")),
    "optional an object": _edited(PLAIN, lambda d: d["schema"]["fields"][1]["fields"][1].update(optional={})),
    "an image of fewer columns": _edited(PLAIN, lambda d: d["payload"]["after"].pop("c")),
    "a text column given a number": _edited(PLAIN, lambda d: _column_value(d, 1)),
    "an integer given a float": _edited(PLAIN, lambda d: d["payload"]["after"].update(id=1.0)),
    "an integer past 64 bits": _edited(PLAIN, lambda d: d["payload"]["after"].update(id=1 << 64)),
    "an integer past its type": _edited(PLAIN, lambda d: d["payload"]["after"].update(id=1 << 40)),
    "a lone surrogate": (PLAIN[0], PLAIN[1].replace(b'"a"', b'"\\ud800"')),
    "a float past the FLOAT range": _edited(FLOAT, lambda d: _column_value(d, 3.5e38)),
    "base64 with a non-ASCII letter": _edited(BLOB, lambda d: _column_value(d, "\u00e9A==")),
    "base64 without its padding": _edited(BLOB, lambda d: _column_value(d, "YWI")),
    "an ENUM value not among its elements": _edited(ENUM, lambda d: _column_value(d, "z")),
    "a BIT of the wrong width": _edited(BIT, lambda d: _column_value(d, "AAA=")),
    "a DDL": _edited(PLAIN, lambda d: d["payload"].pop("op")),
    "an update without after": _edited(PLAIN, lambda d: d["payload"].update(op="u", before=d["payload"]["after"], after=None)),
}


def test_java_leaves_each_message_it_is_not_sure_of_to_python(spark, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN, FLOAT, BLOB, ENUM, BIT, *LEFT_TO_PYTHON.values()])
    pending = pending_of(spark, uri)
    assert pending[:5] == [False] * 5  # the plain messages, for comparison
    left = [name for name, is_pending in zip(LEFT_TO_PYTHON, pending[5:]) if not is_pending]
    assert left == [], f"Java read messages it must leave to Python: {left}"


def test_a_permissive_read_of_bad_messages_gives_the_same_rows_on_both_tiers(spark, tier, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN, *LEFT_TO_PYTHON.values(), FLOAT, BLOB, ENUM, BIT])
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) >= 20
    assert java == python


def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tier, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN, LEFT_TO_PYTHON["a float past the FLOAT range"]])
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e), e.where) for e in refusals]
    assert errors[0][0] is DecodeError and errors[0][2] == "t/0/1"
    assert errors[1] == errors[0]


def mutated_messages(query: str, count: int, seed: int) -> list[tuple[bytes, bytes]]:
    """A workload's messages spoiled: byte edits and JSON token swaps of the value, or the key."""
    rng = random.Random(seed)
    uri = f"file:///tmp/t?{query}"
    messages = [(m.key, m.value) for m in cdcwire.encode(uri, [*Workload(60, seed=seed), *every_kind_rows(6)])]
    out = []
    while len(out) < count:
        key, value = rng.choice(messages)
        spoil = seeded_json_token_mutated if rng.random() < 0.6 else seeded_mutated
        if key is not None and rng.random() < 0.2:
            out.append((spoil(rng, key), value))
        else:
            out.append((key, spoil(rng, value)))
    return out


def test_mutated_messages_read_the_same_on_both_tiers(spark, tier, tmp_path):
    values = mutated_messages(QUERY, 400, seed=11)
    uri = raw_sink(tmp_path, values)
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) > 150
    assert sum(r["_malformed"] is None for r in python) > 50
    differing = messages_read_otherwise(python, java)
    assert [values[o] for _, _, o in differing[:3]] == []
    assert len(java) == len(python)

