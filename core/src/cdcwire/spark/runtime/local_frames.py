"""A small frame of driver-side rows (a lookup table joined in, a few marker rows) without a Python job.

``spark.createDataFrame(list_of_rows, schema)`` parallelizes the rows as a Python RDD: the
first action on the frame starts Python workers to unpickle them, seconds on a loaded machine
for a few hundred rows, and a broadcast join collects the frame first, so every run paid it.
The same rows handed over as one Arrow table are read by the JVM alone (no Python worker).
"""

from __future__ import annotations

from typing import Sequence

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StructType


def local_frame(spark: SparkSession, rows: Sequence[tuple], schema: StructType) -> DataFrame:
    """A frame of ``rows`` (tuples in ``schema``'s field order; nested structs as tuples too)."""
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_schema

    arrow_schema = to_arrow_schema(schema, error_on_duplicated_field_names_in_struct=True, timezone="UTC")
    columns = list(zip(*rows)) if rows else [[] for _ in schema.fields]
    table = pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(columns, arrow_schema)],
                                 schema=arrow_schema)
    return spark.createDataFrame(table, schema)


__all__ = ["local_frame"]
