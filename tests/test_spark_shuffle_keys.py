"""The shuffle keys a write computes in Python are the ones Spark's hash partitioner agrees with."""

from __future__ import annotations

from pyspark.sql import functions as F

from cdcwire.spark.writer.shuffle_keys import shuffle_keys, spark_hash_int


def test_the_python_hash_of_an_int_is_spark_hash_of_that_int(spark):
    ints = [0, 1, -1, 7, 42, 255, 65_536, 2**31 - 1, -(2**31), 123_456_789, -987_654_321]
    rows = spark.createDataFrame([(i,) for i in ints], "k int").select("k", F.hash("k").alias("h")).collect()
    assert [spark_hash_int(r["k"]) for r in rows] == [r["h"] for r in rows]


def test_repartition_by_each_shuffle_key_puts_it_alone_in_its_own_partition(spark):
    for n in (1, 6, 13, 48):
        keys = shuffle_keys(n)
        frame = spark.createDataFrame([(k, i) for i, k in enumerate(keys)], "k int, i int")
        placed = frame.repartition(n, "k").withColumn("p", F.spark_partition_id()).collect()
        assert sorted((r["i"], r["p"]) for r in placed) == [(i, i) for i in range(n)]
