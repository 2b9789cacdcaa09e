"""Files written by Spark's executors, as the bucket writes write them (timestamps as INT64
microseconds), committed to an Iceberg table: every column type materialize produces reads back
the same through PyIceberg and polars as through pyarrow's read of the file itself."""

from __future__ import annotations

import shutil
import warnings

import pyarrow.parquet as pq

from cdcwire.spark.runtime.session_settings import session_settings
from cdcwire.spark.tables import iceberg_tables as ice
from cdcwire.spark.tables.table_buckets import file_name, write_settings

COLUMNS = """cast(1 as int) id, cast(1 as tinyint) tiny, cast(2 as smallint) small, cast(3 as bigint) big,
    cast(1.5 as float) f, cast(2.5 as double) d, cast(1.25 as decimal(5,2)) price,
    cast(12345678901234567890 as decimal(20,0)) unsigned_big, 'x' s, cast('ab' as binary) bin, true flag,
    date'2024-01-02' day, timestamp'2024-01-02 03:04:05.123456' at, timestamp_ntz'2024-01-02 03:04:05' local_at"""


def test_spark_written_files_of_every_column_type_read_back_through_iceberg(spark, tmp_path):
    with session_settings(spark, write_settings(spark)):
        spark.sql(f"select {COLUMNS}").coalesce(1).write.parquet(str(tmp_path / "staging"))
    written = next((tmp_path / "staging").glob("*.parquet"))
    ice.data_directory(str(tmp_path), "shop.kinds").mkdir(parents=True)
    name = f"{ice.DATA_DIR}/{file_name(0, 16, 1, 'abcd1234', 0)}"
    shutil.move(written, tmp_path / "shop.kinds" / name)

    ice.commit_files(str(tmp_path), "shop.kinds", [name], [], applied=100)

    found = ice.catalog(str(tmp_path)).load_table(("shop", "kinds"))
    import polars as pl

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # polars plans with PyIceberg when its planner plugin is absent
        by_polars = pl.scan_iceberg(found).collect().to_dicts()
    by_file = pq.read_table(tmp_path / "shop.kinds" / name).to_pylist()
    assert found.scan().to_arrow().to_pylist() == by_file == by_polars
