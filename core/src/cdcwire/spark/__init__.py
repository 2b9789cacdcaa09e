"""cdcwire on Spark (extra ``cdcwire[spark]``): event DataFrames to protocol messages and back.

    from cdcwire import spark as cs
    spark = cs.spark_session("local[*]")
    df = cs.read_events(spark, "events.jsonl")            # or Parquet; schema: cs.EVENT_SCHEMA
    summary = cs.write(df, "kafka://127.0.0.1:9092/orders?protocol=open-protocol")
    back = cs.read(spark, "kafka://127.0.0.1:9092/orders?protocol=open-protocol")
    events = cs.decode(kafka_df, "canal-json")             # key/value/topic/partition/offset rows
    cs.transcode(spark, "kafka://.../orders?protocol=open-protocol", "kafka://.../orders-canal?protocol=canal-json")
    query = cs.write_stream(spark.readStream.format("cdcwire").option("source-uri", src).load(), sink, "/ckpt")
    orders = cs.changelog(back, "app.orders")               # typed rows, _cdc_kind +I/-U/+U/-D
"""

from __future__ import annotations

from functools import wraps
from typing import Optional, Union

from ..sinks.sink import SinkLike
from .tables.changelog import changelog, table_columns, typed_columns, zero_date_counts
from .format import CdcwireDataSource, register_data_sources
from .writer.dead_letters import read_dead_letters
from .runtime.job_errors import raise_carried
from .reader.jsonl_source import EventLinesDataSource
from .tables.materialize import MaterializeSummary, TableCounts, materialize_stream
from .tables.materialize import materialize as _materialize
from .pipeline import PartitionCount, WriteSummary, prepare, write
from .writer.layout_writer import LayoutWriteSummary
from .reading import decode, events_only, read, read_events, without_broadcast_copies
from .rows.schema import EVENT_SCHEMA, PERMISSIVE_EVENT_SCHEMA, READ_EVENT_SCHEMA
from .jvm.jar import java_tier_jar
from .session import spark_session
from .stream_sink import write_stream
from .tables.table_types import TableColumn, schema_columns


def transcode(
    spark, source_uri: SinkLike, sink_uri: SinkLike, topics: Optional[str] = None
) -> Union[WriteSummary, LayoutWriteSummary]:
    """Read a topic in one protocol and write it in another (e.g. open-protocol -> avro), or into a
    storage-sink layout (``local:///dir?protocol=csv``, ``s3://...``)."""
    return write(without_broadcast_copies(read(spark, source_uri, topics)), sink_uri)


@wraps(_materialize)
def materialize(spark, *args, **kwargs) -> MaterializeSummary:
    register_data_sources(spark)  # it reads with format("cdcwire"), which tables/ cannot register
    return _materialize(spark, *args, **kwargs)


def _register_with_the_active_session() -> None:
    """A session built before ``import cdcwire.spark`` gets ``format("cdcwire")`` at once; any
    other gets it from cs.spark_session, cs.read, cs.read_events, cs.prepare or
    cs.register_data_sources."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        register_data_sources(active)


_register_with_the_active_session()

__all__ = [
    "CdcwireDataSource", "EVENT_SCHEMA", "EventLinesDataSource", "PERMISSIVE_EVENT_SCHEMA", "PartitionCount",
    "READ_EVENT_SCHEMA", "WriteSummary", "decode", "events_only", "prepare", "read", "read_dead_letters", "read_events",
    "raise_carried", "register_data_sources", "spark_session", "transcode", "without_broadcast_copies", "write",
    "write_stream", "java_tier_jar", "materialize", "materialize_stream", "MaterializeSummary", "TableCounts",
    "TableColumn", "changelog", "schema_columns", "table_columns", "typed_columns", "zero_date_counts",
]
