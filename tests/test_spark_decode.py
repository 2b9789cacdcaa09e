"""cs.decode: a DataFrame of messages (as Spark's Kafka source gives them) decoded on the executors,
with each event's topic, partition and offset."""

from __future__ import annotations

import pytest

import cdcwire
from cdcwire import spark as cs
from cdcwire.workload import Workload

CANAL = "file:///tmp/unused/orders?protocol=canal-json&enable-tidb-extension=true&partition-num=2"
OPEN = "file:///tmp/unused/orders?protocol=open-protocol&partition-num=2"


def kind_of(event) -> str:
    if isinstance(event, cdcwire.RowChangedEvent):
        return event.kind
    return "ddl" if isinstance(event, cdcwire.DDLEvent) else "resolved"


def kafka_shaped(spark, messages):
    """Rows as ``spark.read.format("kafka")`` gives them: key, value, topic, partition, offset."""
    rows = [(m.key, m.value, m.topic, m.partition, i) for i, m in enumerate(messages)]
    return spark.createDataFrame(rows, "key binary, value binary, topic string, partition int, offset long")


@pytest.mark.parametrize("uri", [CANAL, OPEN], ids=["canal-json", "open-protocol"])
def test_messages_of_a_kafka_source_decode_to_the_events_they_carry(spark, uri):
    messages = cdcwire.encode(uri, list(Workload(300, seed=4)))
    rows = cs.decode(kafka_shaped(spark, messages), uri).orderBy("offset").collect()
    decoded = cdcwire.decode(uri, messages)
    assert len(rows) == len(decoded)
    assert [r["kind"] for r in rows] == [kind_of(e) for e in decoded]
    assert [int(r["commit_ts"]) for r in rows] == [e.commit_ts for e in decoded]
    assert {(r["topic"], r["partition"]) for r in rows} == {(m.topic, m.partition) for m in messages}


def test_a_frame_of_values_only_decodes_with_the_protocol_name(spark):
    messages = cdcwire.encode(CANAL, list(Workload(50, seed=4)))
    df = spark.createDataFrame([(m.value,) for m in messages], "value binary")
    rows = cs.decode(df, "canal-json").collect()
    assert len(rows) == len([m for m in messages])
    assert {r["partition"] for r in rows} == {0}


def test_an_undecodable_message_fails_naming_topic_partition_and_offset(spark):
    df = spark.createDataFrame([(None, b"not canal", "orders", 1, 41)], "key binary, value binary, topic string, partition int, offset long")
    with pytest.raises(Exception, match=r"orders/1/41"):
        cs.decode(df, CANAL).collect()


def test_read_permissively_an_undecodable_message_is_a_malformed_row(spark):
    good = cdcwire.encode(CANAL, list(Workload(20, seed=4)))
    df = kafka_shaped(spark, [*good[:5], cdcwire.Message("orders", 0, None, b"{}"), *good[5:]])
    rows = cs.decode(df, CANAL, permissive=True).collect()
    bad = [r for r in rows if r["_malformed"] is not None]
    assert len(bad) == 1 and bad[0]["_malformed"]["source"] == "orders/0/5"
    assert len(rows) == len(good) + 1


def test_a_frame_without_values_is_refused_naming_its_columns(spark):
    with pytest.raises(cdcwire.CdcwireError, match="needs a 'value' column"):
        cs.decode(spark.createDataFrame([(1,)], "id int"), CANAL)


def test_a_table_filter_keeps_its_tables_and_every_resolved_event(spark):
    messages = cdcwire.encode(CANAL, list(Workload(300, seed=4)))
    everything = cdcwire.decode(CANAL, messages)
    rows = cs.decode(kafka_shaped(spark, messages), CANAL, tables="shop.*").collect()
    expected = [e for e in everything if isinstance(e, cdcwire.ResolvedEvent) or e.schema == "shop"]
    assert len(rows) == len(expected) < len(everything)
    assert {r["schema"] for r in rows if r["kind"] != "resolved"} == {"shop"}


def test_a_bad_table_pattern_fails_on_the_driver(spark):
    with pytest.raises(cdcwire.CdcwireError, match="must be 'schema.table'"):
        cs.decode(spark.createDataFrame([(b"x",)], "value binary"), CANAL, tables="orders")
