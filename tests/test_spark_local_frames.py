"""A frame of a few driver-side rows (the one plan's table info, its marker rows) is a local
relation the JVM reads alone: no Python RDD whose rows Python workers must unpickle first."""

from __future__ import annotations

from decimal import Decimal

from pyspark.sql.types import ArrayType, DecimalType, IntegerType, StringType, StructField, StructType

from cdcwire.spark.runtime.local_frames import local_frame

NESTED = StructType([
    StructField("name", StringType()),
    StructField("parts", ArrayType(StructType([StructField("n", StringType()), StructField("ts", DecimalType(20, 0))]))),
    StructField("count", IntegerType()),
])


def test_a_local_frame_is_a_local_relation_with_no_python_rdd(spark):
    frame = local_frame(spark, [("a", [("x", Decimal(1))], 1)], NESTED)
    assert frame._jdf.queryExecution().analyzed().toString().startswith("LocalRelation")
    assert "PythonRDD" not in frame._jdf.rdd().toDebugString()


def test_a_local_frame_holds_its_rows_nested_structs_and_nulls_as_given(spark):
    rows = [("a", [("x", Decimal(10**19)), ("y", None)], 1), ("b", None, None), (None, [], 3)]
    assert [tuple(r) for r in local_frame(spark, rows, NESTED).collect()] == [
        ("a", [("x", Decimal(10**19)), ("y", None)], 1), ("b", None, None), (None, [], 3)]


def test_a_local_frame_of_no_rows_has_the_schema(spark):
    frame = local_frame(spark, [], NESTED)
    assert frame.schema == NESTED and frame.count() == 0
