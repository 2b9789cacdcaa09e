"""What holds for every protocol with a Java decoder, each held to its Python decoder: the
session picks the JVM tier for it (and the Python tier when told), a read gives the same rows on
both tiers for a workload and for every column kind and value trap under each option set the
Java tier reads under, and Java reads the rows and resolved events itself. What is a protocol's
own (its messages taken apart, what it leaves to Python, its refusals and mutations) is in its
own file, ``test_spark_<protocol>_java_decoding.py``."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

import cdcwire
from cdcwire import DDLEvent
from cdcwire import spark as cs
from cdcwire.sinks.sink import open_sink
from cdcwire.spark.reader.jvm_decoding import DECODING_SETTING, PENDING, decoding_tier, java_pass
from cdcwire.testing.jvm_tiers import on_tier, pending_of, read_on_both_tiers
from cdcwire.workload import Workload

from test_spark_java_encoding import every_kind_rows, trap_rows

#: Per protocol with a Java decoder, the option sets its Java tier reads under (the first is the
#: one the other tests use; compression and simple's avro encoding are Python's only).
QUERIES = {
    "canal-json": [
        "protocol=canal-json&enable-tidb-extension=true&partition-num=3",
        "protocol=canal-json&partition-num=2",
    ],
    "craft": [
        "protocol=craft&partition-num=2",
        "protocol=craft&max-batch-size=1",
        "protocol=craft&max-batch-size=64&partition-num=3",
        "protocol=craft&delete-only-output-handle-key-columns=true&max-message-bytes=4096",
    ],
    "debezium": [
        "protocol=debezium&enable-tidb-extension=true&partition-num=2",
        "protocol=debezium&enable-tidb-extension=true&debezium-output-old-value=false&debezium-cluster-id=c-1",
        "protocol=debezium&enable-tidb-extension=true&debezium-disable-schema=true",
        "protocol=debezium",
    ],
    "open-protocol": [
        "protocol=open-protocol&partition-num=2",
        "protocol=open-protocol&enable-old-value=false&max-batch-size=3",
        "protocol=open-protocol&only-output-updated-columns=true&delete-only-output-handle-key-columns=true",
        "protocol=default&max-batch-size=1",
        "protocol=open-protocol&large-message-handle-option=handle-key-only&max-message-bytes=1500",
    ],
    "simple": [
        "protocol=simple&partition-num=2",
        "protocol=simple&send-bootstrap-interval-in-sec=0",
        "protocol=simple&send-bootstrap-in-msg-count=7&send-bootstrap-to-all-partition=false&partition-num=3",
    ],
}
PROTOCOLS = list(QUERIES)
OPTION_SETS = [pytest.param(query, id=query) for queries in QUERIES.values() for query in queries]
#: The protocols whose every message a stateless Java decoder may read (simple's BOOTSTRAP
#: messages teach the Python decoder the schemas: they stay pending by design).
STATELESS = [p for p in PROTOCOLS if p != "simple"]


def sink_of(tmp_path: Path, events, query: str) -> str:
    uri = f"file://{tmp_path}/t?{query}"
    cdcwire.write(uri, cdcwire.encode(uri, events))
    return uri


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_java_tier_decodes_where_the_session_has_the_jar(spark, protocol):
    sink = open_sink(f"file:///tmp/t?{QUERIES[protocol][0]}")
    assert decoding_tier(sink, spark) == ("jvm", f"{protocol} has a Java decoder for the sink's settings")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_python_setting_decodes_in_python_and_says_so(spark, tmp_path, caplog, protocol):
    uri = sink_of(tmp_path, every_kind_rows(2), QUERIES[protocol][0])
    with caplog.at_level(logging.INFO, logger="cdcwire.spark"):
        rows = on_tier(spark, "python", lambda: cs.read(spark, uri, topics="*").collect())
    assert len(rows) == 6
    assert decoding_tier(open_sink(uri), spark)[0] == "jvm"  # the setting, not the sink, chose Python
    said = [r.getMessage() for r in caplog.records if "tier decodes" in r.getMessage()]
    assert said == [] or said == [f"cdcwire.spark: the Python tier decodes ({DECODING_SETTING}=python)"]
    assert on_tier(spark, "python", lambda: decoding_tier(open_sink(uri), spark)) == (
        "python", f"{DECODING_SETTING}=python")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_workload_reads_back_the_same_on_both_tiers(spark, tmp_path, protocol):
    uri = sink_of(tmp_path, list(Workload(400, seed=7)), QUERIES[protocol][0])
    python, java = read_on_both_tiers(spark, uri)
    assert len(python) > 400
    assert java == python


@pytest.mark.parametrize("query", OPTION_SETS)
def test_every_column_kind_and_the_value_traps_read_back_the_same_on_both_tiers(spark, tmp_path, query):
    uri = sink_of(tmp_path, [*every_kind_rows(20), *trap_rows()], query)
    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert len(python) > 100
    assert java == python


@pytest.mark.parametrize("protocol", STATELESS)
def test_java_reads_every_message_of_every_column_kind_itself(spark, tmp_path, protocol):
    uri = sink_of(tmp_path, [*every_kind_rows(10), *trap_rows()], QUERIES[protocol][0])
    pending = pending_of(spark, uri)
    assert len(pending) > 10 and not any(pending)


@pytest.mark.parametrize("protocol", STATELESS)
def test_java_reads_the_rows_and_resolved_events_and_leaves_exactly_the_ddl_messages_to_python(spark, tmp_path, protocol):
    uri = sink_of(tmp_path, list(Workload(600, seed=3)), QUERIES[protocol][0])
    messages = spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*").option("output", "messages").load()
    counts = {(r[PENDING], r["kind"]): r["count"] for r in
              java_pass(messages, open_sink(uri), False).groupBy(PENDING, "kind").count().collect()}
    assert all(counts.get((False, kind)) for kind in ("insert", "update", "delete", "resolved"))
    ddl_messages = [m for m in cdcwire.read(uri) if any(isinstance(e, DDLEvent) for e in cdcwire.decode(uri, [m]))]
    assert ddl_messages and sum(n for (pending, _), n in counts.items() if pending) == len(ddl_messages)
