"""simple's messages decoded by its Java decoder (``io.cdcwire.simple.SimpleDecoder``, the
JVM tier of plugins/simple) give the same rows as its Python decoder: every column kind and
value trap, bad and mutated messages, refusals, and the state a partition carries (rows typed
by a BOOTSTRAP before them; rows before their schema held by the Python decoder, in order)."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, RowChangedEvent
from cdcwire import spark as cs
from cdcwire.foundation.errors import CdcwireError, DecodeError
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import decoding_tier, java_pass
from cdcwire.testing.jvm_tiers import (
    on_tier, pending_of, read_on_both_tiers, refusals_on_both_tiers, rows_in_order, sink_of_messages,
)
from cdcwire.testing.mutations import seeded_json_token_mutated, seeded_mutated
from cdcwire.workload import Workload

from test_spark_java_encoding import every_kind_rows, trap_rows

QUERY = "protocol=simple&partition-num=2"


@pytest.fixture
def tier(spark):
    """Runs a read on the named tier (``python`` or ``auto``), then puts the setting back."""
    return functools.partial(on_tier, spark)


def sink_of(tmp_path: Path, events, query: str = QUERY) -> str:
    uri = f"file://{tmp_path}/t?{query}"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


def raw_sink(tmp_path: Path, values: list[bytes], query: str = QUERY) -> str:
    """A sink of these message values, as they are, in one partition."""
    return sink_of_messages(tmp_path, values, query)


def test_avro_and_compressed_messages_are_decoded_in_python_saying_why(spark):
    avro = open_sink(f"file:///tmp/t?{QUERY}&encoding-format=avro")
    assert decoding_tier(avro, spark) == ("python", "simple's avro encoding is decoded in Python only")
    lz4 = open_sink(f"file:///tmp/t?{QUERY}&large-message-handle-compression=lz4")
    assert decoding_tier(lz4, spark) == ("python", "simple's large-message compression is decoded in Python only")


def test_java_reads_every_row_after_its_bootstrap_itself(spark, tmp_path):
    uri = sink_of(tmp_path, [*every_kind_rows(10), *trap_rows()], "protocol=simple")
    values = [bytes(m.value) for m in cdcwire.read(uri)]
    pending = pending_of(spark, uri)
    bootstraps = [b'"type":"BOOTSTRAP"' in v for v in values]
    assert len(pending) > 30 and any(bootstraps)
    assert pending == bootstraps  # every row and watermark read in Java; the schemas learnt in both


def test_java_reads_the_rows_and_watermarks_and_leaves_ddl_and_bootstrap_to_python(spark, tmp_path):
    uri = sink_of(tmp_path, list(Workload(600, seed=3)))
    messages = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").option("output", "messages").load()
    counts = {(r["_cdc_pending"], r["kind"]): r["count"] for r in
              java_pass(messages, open_sink(uri), False).groupBy("_cdc_pending", "kind").count().collect()}
    assert counts[(False, "insert")] and counts[(False, "update")] and counts[(False, "delete")]
    assert counts[(False, "resolved")]
    kinds = [json.loads(bytes(r.value))["type"] for r in messages.collect()]
    schemas = [k for k in kinds if k not in ("INSERT", "UPDATE", "DELETE", "WATERMARK")]
    assert "BOOTSTRAP" in schemas and len(set(schemas)) > 1
    # every BOOTSTRAP and DDL, and rows of a table a DDL changed until its next BOOTSTRAP
    assert len(schemas) <= sum(n for (pending, _), n in counts.items() if pending) < len(kinds) / 4


KEY = Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY, 1, "int(11)")


def _stream(*columns: Column) -> tuple[bytes, bytes]:
    """A table's BOOTSTRAP and one insert of these columns."""
    messages = cdcwire.encode("file:///tmp/t?protocol=simple&partition-num=1",
                              [RowChangedEvent(1 << 40, "shop", "t", (KEY, *columns), None)])
    boot, row = (bytes(m.value) for m in messages)
    return boot, row


def _edited(value: bytes, edit) -> bytes:
    doc = json.loads(value)
    edit(doc)
    return json.dumps(doc).encode()


def _column_value(doc: dict, value) -> None:
    doc["data"]["c"] = value


PLAIN = _stream(Column("c", ColumnType.VARCHAR, ColumnFlag.NULLABLE, "a", "varchar(8)"))
FLOAT = _stream(Column("c", ColumnType.FLOAT, ColumnFlag(0), 1.5, "float"))
BLOB = _stream(Column("c", ColumnType.BLOB, ColumnFlag.BINARY, b"ab", "blob"))
INT = _stream(Column("c", ColumnType.BIGINT, ColumnFlag(0), 5, "bigint(20)"))


def _row(stream: tuple[bytes, bytes], edit=None, value: bytes | None = None) -> tuple[bytes, bytes]:
    """A table's BOOTSTRAP and its row, edited (a JSON edit, or the value given)."""
    boot, row = stream
    return boot, value if value is not None else _edited(row, edit)

#: Row messages (each after its table's BOOTSTRAP) the Java tier must leave to Python.
LEFT_TO_PYTHON = {
    "not JSON": _row(PLAIN, value=b'{"type":'),
    "a BOM": _row(PLAIN, value=b"\xef\xbb\xbf" + PLAIN[1]),
    "a key twice": _row(PLAIN, value=PLAIN[1].replace(b'"type":', b'"type":"INSERT","type":')),
    "text after the value": _row(PLAIN, value=PLAIN[1] + b" {}"),
    "a type other than a row's": _row(PLAIN, lambda d: d.update(type="UPSERT")),
    "commitTs past 2^64": _row(PLAIN, lambda d: d.update(commitTs=1 << 64)),
    "commitTs negative": _row(PLAIN, lambda d: d.update(commitTs=-1)),
    "commitTs a float": _row(PLAIN, lambda d: d.update(commitTs=1.0)),
    "database a number": _row(PLAIN, lambda d: d.update(database=1)),
    "another schema version": _row(PLAIN, lambda d: d.update(schemaVersion=d["schemaVersion"] + 1)),
    "schemaVersion a string": _row(PLAIN, lambda d: d.update(schemaVersion=str(d["schemaVersion"]))),
    "a tableID negative": _row(PLAIN, lambda d: d.update(tableID=-3)),
    "claim-checked": _row(PLAIN, lambda d: d.update(claimCheckLocation="x")),
    "handle key only": _row(PLAIN, lambda d: d.update(handleKeyOnly=True)),
    "a column its schema has not": _row(PLAIN, lambda d: d["data"].update(zz="1")),
    "data not an object": _row(PLAIN, lambda d: d.update(data=[1])),
    "a text column given a number": _row(PLAIN, lambda d: _column_value(d, 1)),
    "an integer as a JSON number": _row(PLAIN, lambda d: d["data"].update(id=1)),
    "an integer with a plus": _row(PLAIN, lambda d: d["data"].update(id="+1")),
    "an integer past 64 bits": _row(INT, lambda d: _column_value(d, str(1 << 64))),
    "an integer past its type": _row(PLAIN, lambda d: d["data"].update(id=str(1 << 40))),
    "a lone surrogate": _row(PLAIN, value=PLAIN[1].replace(b'"a"', b'"\\ud800"')),
    "a float past the FLOAT range": _row(FLOAT, lambda d: _column_value(d, "3.5e38")),
    "a float Python reads, written otherwise": _row(FLOAT, lambda d: _column_value(d, " 1.5")),
    "a float as infinity": _row(FLOAT, lambda d: _column_value(d, "inf")),
    "base64 with a non-ASCII letter": _row(BLOB, lambda d: _column_value(d, "\u00e9A==")),
    "base64 without its padding": _row(BLOB, lambda d: _column_value(d, "YWI")),
    "a row of a schema a DDL replaced": (_edited(PLAIN[0], lambda d: d.update(type="ALTER", sql="ALTER TABLE t",
                                                                              commitTs=1 << 40)), PLAIN[1]),
}


def test_java_leaves_each_message_it_is_not_sure_of_to_python(spark, tmp_path):
    uri = raw_sink(tmp_path, [*PLAIN, *(v for pair in LEFT_TO_PYTHON.values() for v in pair)])
    pending = pending_of(spark, uri)
    assert pending[:2] == [True, False]  # a bootstrap (Python's), and the plain row Java reads after it
    left = [name for name, is_pending in zip(LEFT_TO_PYTHON, pending[3::2]) if not is_pending]
    assert left == [], f"Java read messages it must leave to Python: {left}"


def test_a_permissive_read_of_bad_messages_gives_the_same_rows_on_both_tiers(spark, tier, tmp_path):
    typed = [pair for name, pair in LEFT_TO_PYTHON.items() if name != "another schema version"]  # never typed
    uri = raw_sink(tmp_path, [*PLAIN, *(v for pair in typed for v in pair), *FLOAT, *BLOB])
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert sum(r["_malformed"] is not None for r in python) >= 15
    assert java == python


def test_rows_before_their_bootstrap_are_held_and_given_at_it_on_both_tiers(spark, tier, tmp_path):
    boot, row = PLAIN
    later = _edited(row, lambda d: d.update(commitTs=d["commitTs"] + 1))
    uri = raw_sink(tmp_path, [row, later, boot, row, later])
    python, java = read_on_both_tiers(spark, uri)
    assert [(r.offset, r.kind) for r in python] == [(2, "insert"), (2, "insert"), (3, "insert"), (4, "insert")]
    assert java == python
    assert pending_of(spark, uri) == [True, True, True, False, False]


def test_rows_whose_schema_never_comes_fail_the_read_alike_on_both_tiers(spark, tier, tmp_path):
    uri = raw_sink(tmp_path, [PLAIN[0], INT[1].replace(b'"table":"t"', b'"table":"u"'), PLAIN[1]])
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e)) for e in refusals]
    assert "rows of shop.u" in errors[0][1] and "never typed" in errors[0][1]
    assert errors[1] == errors[0]


def test_a_refused_message_fails_the_read_with_the_same_error_on_both_tiers(spark, tier, tmp_path):
    uri = raw_sink(tmp_path, [*PLAIN, *LEFT_TO_PYTHON["a float past the FLOAT range"]])
    refusals = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    errors = [(type(e), str(e), e.where) for e in refusals]
    assert errors[0][0] is DecodeError and errors[0][2] == "t/0/3"
    assert errors[1] == errors[0]


def mutated_messages(query: str, count: int, seed: int) -> list[bytes]:
    """A workload's row and watermark messages spoiled (byte edits and JSON token swaps), among the
    unspoiled, in order; its BOOTSTRAP and DDL messages kept (a spoiled one leaves rows never typed,
    which fails a whole read, on either tier: the test before this one)."""
    rng = random.Random(seed)
    uri = f"file:///tmp/t?{query}&partition-num=1"
    values = [bytes(m.value) for m in cdcwire.encode(uri, [*Workload(60, seed=seed), *every_kind_rows(6)])]
    out = []
    while len(out) < count:
        value = values[len(out) % len(values)]
        if rng.random() < 0.5 and json.loads(value)["type"] in ("INSERT", "UPDATE", "DELETE", "WATERMARK"):
            spoil = seeded_json_token_mutated if rng.random() < 0.6 else seeded_mutated
            value = spoil(rng, value)
        out.append(value)
    return out


def test_mutated_messages_read_the_same_on_both_tiers(spark, tier, tmp_path):
    """Spoiled rows name tables whose schema never comes, so the read ends refused: both tiers
    must refuse alike, naming the same count of rows held and the first of them, which only
    holds if Java left to Python exactly the rows the Python tier holds."""
    values = mutated_messages("protocol=simple", 300, seed=11)
    uri = raw_sink(tmp_path, values)
    outcomes = []
    for name_of_tier in ("python", "auto"):
        try:
            outcomes.append(("rows", tier(name_of_tier, lambda: rows_in_order(cs.read(spark, uri, permissive=True)))))
        except Exception as failed:  # noqa: BLE001 - the read's failure, carried from its task
            with pytest.raises(CdcwireError) as caught:
                cs.raise_carried(failed)
            outcomes.append(("refused", type(caught.value), str(caught.value)))
    assert outcomes[0][0] == "refused" and "never typed" in outcomes[0][2]
    assert outcomes[1] == outcomes[0]
