"""The Java decoding tier against the Python codec: a canal-json read gives the same rows on both
tiers, Java reads the row and watermark messages it is sure of, and the Python decoder reads
every other message in its place and words every error."""

from __future__ import annotations

import dataclasses

import json
import random
from pathlib import Path

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.foundation.errors import CdcwireError, DecodeError
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import decoding_tier
from cdcwire.testing.jvm_tiers import (
    messages_read_otherwise, on_tier, pending_of, read_on_both_tiers, refusals_on_both_tiers, rows_in_order,
    sink_of_messages, sink_of_events,
)
from cdcwire.testing.mutations import NUMBER_EDGE_TOKENS, seeded_json_token_mutated, seeded_mutated
from cdcwire.workload import Workload

from test_spark_java_encoding import every_kind_rows

QUERY = "protocol=canal-json&enable-tidb-extension=true&partition-num=3"


def sink_of(tmp_path: Path, events, query: str = QUERY) -> str:
    return sink_of_events(tmp_path, events, query)


def raw_sink(tmp_path: Path, values: list[bytes], query: str = QUERY) -> str:
    """A sink of these message values, as they are, in one partition."""
    return sink_of_messages(tmp_path, values, query)


def test_without_the_extension_both_tiers_read_the_commit_ts_from_es(spark, tmp_path):
    uri = sink_of(tmp_path, every_kind_rows(10), "protocol=canal-json&partition-num=2")
    python, java = read_on_both_tiers(spark, uri)
    assert java == python
    assert {r.commit_ts % (1 << 18) for r in java} == {0}


def _row(**changes) -> dict:
    doc = {
        "id": 0, "database": "shop", "table": "t", "pkNames": ["id"], "isDdl": False, "type": "INSERT",
        "es": 1700000000000, "ts": 1700000000001, "sql": "", "sqlType": {"id": 4, "v": 12},
        "mysqlType": {"id": "int", "v": "varchar"}, "data": [{"id": "1", "v": "a"}], "old": None,
        "_tidb": {"commitTs": 445566778899001122},
    }
    doc.update(changes)
    return doc


def _text(doc: dict) -> bytes:
    return json.dumps(doc, separators=(",", ":")).encode()


#: Messages the Java tier must leave to Python: each is read, or refused, by the Python decoder.
LEFT_TO_PYTHON = {
    "not JSON": b'{"id":0,',
    "a BOM": b"\xef\xbb\xbf" + _text(_row()),
    "UTF-16": _text(_row()).decode().encode("utf-16-le"),
    "an overlong UTF-8 form": _text(_row()).replace(b'"a"', b'"\xc0\xa1"'),
    "a surrogate in UTF-8 bytes": _text(_row()).replace(b'"a"', b'"\xed\xa0\x80"'),
    "a code point past U+10FFFF": _text(_row()).replace(b'"a"', b'"\xf4\x90\x80\x80"'),
    "a cut UTF-8 sequence": _text(_row()).replace(b'"a"', b'"\xe2\x82"'),
    "a lone continuation byte": _text(_row()).replace(b'"a"', b'"\x80"'),
    "an escaped lone surrogate in a column name": _text(_row()).replace(b'"v"', b'"\\udc00"'),
    "a key twice": _text(_row()).replace(b'"old":null', b'"old":null,"old":null'),
    "text after the object": _text(_row()) + b" {}",
    "a missing field": _text({k: v for k, v in _row().items() if k != "sql"}),
    "id a float": _text(_row(id=1.0)),
    "es past 2^46": _text(_row(es=1 << 46)),
    "isDdl a number": _text(_row(isDdl=0)),
    "_tidb a list": _text(_row(_tidb=[])),
    "commitTs past 2^64": _text(_row(_tidb={"commitTs": 1 << 64})),
    "id past 2^64": _text(_row(id=1 << 64)),
    "id past 2^63": _text(_row(id=1 << 63)),
    "id below -2^63": _text(_row(id=-(1 << 63) - 1)),
    "ts past 2^64": _text(_row(ts=1 << 64)),
    "ts past 2^63": _text(_row(ts=1 << 63)),
    "sqlType past 2^64": _text(_row(sqlType={"id": 1 << 64, "v": 12})),
    "sqlType past 2^31": _text(_row(sqlType={"id": 1 << 31, "v": 12})),
    "es past 2^64": _text(_row(es=1 << 64)),
    "no commitTs under the extension": _text(_row(_tidb={})),
    "a lone surrogate": _text(_row(data=[{"id": "1", "v": "\ud800"}])),
    "an integer text with a plus": _text(_row(data=[{"id": "+1", "v": "a"}])),
    "an integer past 64 bits": _text(_row(data=[{"id": str(1 << 64), "v": "a"}])),
    "a number value": _text(_row(data=[{"id": 1, "v": "a"}])),
    "columns out of order": _text(_row(data=[{"v": "a", "id": "1"}])),
    "an unknown type text": _text(_row(mysqlType={"id": "int(11)", "v": "varchar"})),
    "sqlType naming other columns": _text(_row(sqlType={"id": 4})),
    "an old TiCDC's old of an insert": _text(_row(old=[None])),
    "an update without old": _text(_row(type="UPDATE")),
    "an update of fewer columns": _text(_row(type="UPDATE", old=[{"v": "b"}])),
    "a DDL": _text(_row(isDdl=True, type="CREATE", sql="CREATE TABLE t (id int)", data=None,
                        mysqlType=None, sqlType=None, pkNames=None)),
    "a claim-check pointer": _text(_row(_tidb={"commitTs": 1, "claimCheckLocation": "x"})),
    "a handle-key-only row": _text(_row(_tidb={"commitTs": 1, "onlyHandleKey": True})),
    "a watermark without watermarkTs": _text(_row(type="TIDB_WATERMARK", data=None)),
    "an unknown type": _text(_row(type="UPSERT")),
    "a float past the FLOAT range": _text(_row(mysqlType={"id": "int", "v": "float"}, data=[{"id": "1", "v": "1e39"}])),
    "a binary text past U+00FF": _text(_row(mysqlType={"id": "int", "v": "blob"}, data=[{"id": "1", "v": "\u0100"}])),
    "a value the record checks refuse": _text(_row(mysqlType={"id": "tinyint", "v": "varchar"}, data=[{"id": "300", "v": "a"}])),
}


def test_java_leaves_each_message_it_is_not_sure_of_to_python(spark, tmp_path):
    uri = raw_sink(tmp_path, [_text(_row()), *LEFT_TO_PYTHON.values()])
    pending = pending_of(spark, uri)
    assert pending[0] is False  # the plain row, for comparison
    left = [name for name, is_pending in zip(LEFT_TO_PYTHON, pending[1:]) if not is_pending]
    assert left == [], f"Java read messages it must leave to Python: {left}"


def test_java_reads_text_beyond_the_basic_plane_as_python_does(spark, tmp_path):
    emoji = "\U0001F600"
    values = [
        _text(_row(data=[{"id": "1", "v": emoji}])),  # four UTF-8 bytes
        _text(_row(data=[{"id": "2", "v": emoji}])).replace(emoji.encode(), b"\\ud83d\\ude00"),  # an escaped pair
    ]
    uri = raw_sink(tmp_path, values)
    assert pending_of(spark, uri, permissive=False) == [False, False]
    python, java = read_on_both_tiers(spark, uri)
    assert java == python
    assert [r.columns[1].value.string for r in java] == [emoji, emoji]


def test_a_permissive_read_of_bad_messages_gives_the_same_rows_on_both_tiers(spark, tmp_path):
    uri = raw_sink(tmp_path, [_text(_row()), *LEFT_TO_PYTHON.values(), _text(_row(type="DELETE"))])
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) >= 20
    assert java == python


@pytest.mark.parametrize("name", ["not JSON", "a BOM", "an integer past 64 bits", "id past 2^64", "ts past 2^64",
                                  "sqlType past 2^64", "sqlType past 2^31"])
def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tmp_path, name):
    uri = raw_sink(tmp_path, [_text(_row()), LEFT_TO_PYTHON[name]])
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e), e.where, e.offset) for e in refusals]
    assert errors[0][0] is DecodeError and errors[0][2] == "t/0/1"
    assert errors[1] == errors[0]



def test_the_kit_names_the_tier_on_which_a_read_meant_to_fail_did_not(spark, tmp_path):
    uri = raw_sink(tmp_path, [_text(_row())])
    with pytest.raises(AssertionError, match="the read did not fail on the python tier"):
        refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())

def test_decode_of_a_frame_of_messages_gives_the_same_rows_on_both_tiers(spark, tmp_path):
    uri = sink_of(tmp_path, list(Workload(500, seed=5)))
    frame = cs.read(spark, uri, topics="*")  # any frame of messages: here, the sink's own
    messages = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").option("output", "messages").load()
    python = on_tier(spark, "python", lambda: rows_in_order(cs.decode(messages, uri)))
    java = on_tier(spark, "auto", lambda: rows_in_order(cs.decode(messages, uri)))
    assert java == python
    assert len(java) == frame.count()


def test_a_table_filter_and_content_compatible_are_decoded_in_python(spark):
    sink = open_sink(f"file:///tmp/t?{QUERY}")
    assert decoding_tier(sink, spark, "shop.*") == ("python", "a table filter is applied by the Python tier as it decodes")
    compatible = open_sink(f"file:///tmp/t?{QUERY}&content-compatible=true")
    assert decoding_tier(compatible, spark)[0] == "python"


def test_a_codec_that_ships_no_java_decoder_is_decoded_in_python_saying_so(spark):
    canal = open_sink(f"file:///tmp/t?{QUERY}")
    python_only = type("PythonOnlyCodec", (type(canal.codec),), {"name": "python-only", "jvm": None})()
    sink = dataclasses.replace(canal, codec=python_only)
    assert decoding_tier(sink, spark) == ("python", "no Java decoder for protocol 'python-only'")


def test_an_unknown_decoding_setting_is_refused_naming_the_choices(spark):
    with pytest.raises(CdcwireError, match="'auto' or 'python'"):
        on_tier(spark, "java", lambda: decoding_tier(open_sink(f"file:///tmp/t?{QUERY}"), spark))


def test_messages_output_gives_each_message_as_it_is(spark, tmp_path):
    values = [_text(_row()), b"not a message at all"]
    uri = raw_sink(tmp_path, values)
    rows = spark.read.format("cdcwire").option("source-uri", uri).option("output", "messages").load().orderBy("offset").collect()
    assert [(r.topic, r.partition, r.offset, r.key, bytes(r.value)) for r in rows] == [
        ("t", 0, 0, None, values[0]), ("t", 0, 1, None, values[1])
    ]


def test_the_read_schema_is_the_same_on_both_tiers(spark, tmp_path):
    uri = sink_of(tmp_path, every_kind_rows(2))
    python = on_tier(spark, "python", lambda: cs.read(spark, uri, topics="*").schema)
    java = on_tier(spark, "auto", lambda: cs.read(spark, uri, topics="*").schema)
    assert java == python


#: Numbers inside the widths both tiers read (the reference's: int64 id and ts, int32 sqlType).
AT_THE_EDGES = {
    "id -2^63": _text(_row(id=-(1 << 63))),
    "id 2^63-1": _text(_row(id=(1 << 63) - 1)),
    "ts 2^63-1": _text(_row(ts=(1 << 63) - 1)),
    "id -0": _text(_row()).replace(b'"id":0', b'"id":-0'),
    "sqlType -2^31": _text(_row(sqlType={"id": -(1 << 31), "v": 12})),
    "sqlType 2^31-1": _text(_row(sqlType={"id": (1 << 31) - 1, "v": 12})),
    "commitTs 2^64-1": _text(_row(_tidb={"commitTs": (1 << 64) - 1})),
    "es 2^46-1": _text(_row(es=(1 << 46) - 1)),
}


def test_numbers_at_the_edges_of_their_widths_read_the_same_on_both_tiers(spark, tmp_path):
    uri = raw_sink(tmp_path, list(AT_THE_EDGES.values()))
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert [r["_malformed"] for r in python] == [None] * len(AT_THE_EDGES)
    assert java == python


def test_an_integer_past_the_reference_width_is_named_with_its_range_and_its_written_value(spark, tmp_path):
    uri = raw_sink(tmp_path, [LEFT_TO_PYTHON["id past 2^64"], LEFT_TO_PYTHON["sqlType past 2^31"]])
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert java == python
    assert "'id' must be an integer from -2^63 to 2^63-1, got 18446744073709551616" in python[0]["_malformed"]["reason"]
    assert "'sqlType.id' must be an integer from -2^31 to 2^31-1, got 2147483648" in python[1]["_malformed"]["reason"]


def _with_field(value: bytes, path: tuple[str, ...], token: bytes) -> bytes:
    """``value`` (a canal-json message) with the number at ``path`` written as ``token``."""
    doc = json.loads(value)
    inner = doc
    for name in path[:-1]:
        inner = inner[name]
    inner[path[-1]] = "@number@"
    return _text(doc).replace(b'"@number@"', token)


def mutated_messages(uri: str, count: int, seed: int) -> list[bytes]:
    """A workload's messages spoiled: each numeric field (id, ts, es, each sqlType, commitTs,
    watermarkTs) of a few of them set to every number edge, then byte edits and token swaps."""
    rng = random.Random(seed)
    values = [m.value for m in cdcwire.encode(uri, list(Workload(200, seed=seed)))]
    out = []
    for value in values[:12]:
        doc = json.loads(value)
        paths = [("id",), ("ts",), ("es",), *(("sqlType", c) for c in (doc["sqlType"] or {}))]
        paths += [("_tidb", k) for k in (doc.get("_tidb") or {})]
        out += [_with_field(value, path, token) for path in paths for token in NUMBER_EDGE_TOKENS]
    while len(out) < count:
        value = rng.choice(values)
        out.append(seeded_json_token_mutated(rng, value) if rng.random() < 0.6 else seeded_mutated(rng, value))
    return out


@pytest.mark.parametrize("query", [QUERY, "protocol=canal-json"])
def test_mutated_messages_read_the_same_on_both_tiers(spark, tmp_path, query):
    values = mutated_messages(f"file:///tmp/t?{query}", 3000, seed=len(query))
    uri = raw_sink(tmp_path, values, query)
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) > 1000
    assert sum(r["_malformed"] is None for r in python) > 300
    differing = messages_read_otherwise(python, java)
    assert [values[o] for _, _, o in differing[:5]] == []
    assert len(java) == len(python)



@pytest.mark.parametrize("column", ["topic", "partition", "offset"])
def test_decode_of_a_message_without_its_place_fails_with_the_same_clear_error_on_both_tiers(spark, column):
    place = {"topic": "t", "partition": 0, "offset": 1}
    frame = spark.createDataFrame(
        [(_text(_row()), "t", 0, 0), (_text(_row()), *(None if c == column else v for c, v in place.items()))],
        "value binary, topic string, partition int, offset long",
    )
    refusals = refusals_on_both_tiers(spark, lambda: cs.decode(frame, f"file:///tmp/t?{QUERY}").collect())
    errors = [(type(e), str(e)) for e in refusals]
    assert errors[1] == errors[0]
    assert f"decode: a message has a null {column!r}" in errors[0][1]
    assert "fill the column" in errors[0][1]
