"""A SparkSession configured the way cdcwire's pipeline needs it."""

from __future__ import annotations

import os
import sys
from typing import Optional

from pyspark.sql import SparkSession


def spark_session(
    master: str = "local[*]", app_name: str = "cdcwire", shuffle_partitions: Optional[int] = None, **conf: str
) -> SparkSession:
    """Get or create a session: executors run this interpreter, the UI is off, the driver binds
    to 127.0.0.1 for local masters, and the cdcwire data sources are registered."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.master(master).appName(app_name).config("spark.ui.enabled", "false")
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # no "hostname resolves to a loopback" warning
        builder = builder.config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    builder = builder.config("spark.sql.execution.arrow.maxRecordsPerBatch", "4096")
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    from .data_source import register_data_sources

    register_data_sources(spark)
    return spark
