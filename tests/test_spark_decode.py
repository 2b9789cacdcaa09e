"""cs.decode: a DataFrame of messages (as Spark's Kafka source gives them) decoded on the executors,
with each event's topic, partition and offset."""

from __future__ import annotations

import pytest
from pyspark.sql import functions as F

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


# -- spark.read.format("cdcwire") options, as Spark's Kafka source names them ---------------------


@pytest.fixture
def orders(tmp_path) -> str:
    uri = f"file://{tmp_path}/src/orders?protocol=open-protocol&partition-num=2"
    cdcwire.write(uri, cdcwire.encode(uri, list(Workload(200, seed=4))))
    return uri


def batch(spark, uri: str, **options: str):
    reader = spark.read.format("cdcwire").option("source-uri", uri)
    for name, value in options.items():
        reader = reader.option(name, value)
    return reader.load()


def offsets_by_partition(df) -> dict[int, tuple[int, int]]:
    """Per partition, the first and last offset read."""
    return {
        r["partition"]: (r["lo"], r["hi"])
        for r in df.groupBy("partition").agg(F.min("offset").alias("lo"), F.max("offset").alias("hi")).collect()
    }


def test_starting_and_ending_offsets_bound_a_batch_read(spark, orders):
    df = batch(spark, orders, startingOffsets='{"orders": {"0": 2, "1": -2}}', endingOffsets='{"orders": {"0": 5}}')
    got = offsets_by_partition(df)
    full = offsets_by_partition(batch(spark, orders))
    assert got[0] == (2, 4)
    assert got[1] == full[1]


def test_ending_offsets_refuse_earliest_as_spark_does(spark, orders):
    with pytest.raises(Exception, match=r"option endingOffsets: orders/0: -2 is not an end offset"):
        batch(spark, orders, endingOffsets='{"orders": {"0": -2}}').count()


def test_a_start_past_the_end_is_data_loss_unless_accepted(spark, orders):
    with pytest.raises(Exception, match=r"orders/0: the stored offset 100000 is past the partition's end \d+"):
        batch(spark, orders, startingOffsets='{"orders": {"0": 100000, "1": -2}}').count()
    accepted = batch(spark, orders, startingOffsets='{"orders": {"0": 100000, "1": -2}}', failOnDataLoss="false")
    assert accepted.count() == batch(spark, orders).count()


def test_an_unknown_read_option_is_refused_naming_it_and_the_accepted_ones(spark, orders):
    with pytest.raises(Exception, match=r"has no option 'endingoffset'; it takes source-uri, topics, startingOffsets"):
        batch(spark, orders, endingOffset="latest").count()
