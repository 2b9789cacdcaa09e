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

import importlib
from functools import wraps
from typing import TYPE_CHECKING, Optional, Union

if TYPE_CHECKING:
    from ..sinks.sink import SinkLike
    from .pipeline import WriteSummary
    from .tables.materialize import MaterializeSummary
    from .writer.layout_writer import LayoutWriteSummary

#: Each public name and the module that defines it. They load on first use (PEP 562), not on
#: ``import cdcwire.spark``: every Spark Python worker runs this package's ``__init__`` before
#: the one module its function lives in, and loading them all (the data sources' pandas and
#: pyarrow.compute, the tables' writers: about half a second) would cost that on each job's
#: first worker, the user's jobs as much as the tests'.
_EXPORTS = {
    "changelog": ".tables.changelog", "table_columns": ".tables.changelog", "typed_columns": ".tables.changelog",
    "zero_date_counts": ".tables.changelog",
    "CdcwireDataSource": ".format", "register_data_sources": ".format",
    "read_dead_letters": ".writer.dead_letters",
    "raise_carried": ".runtime.job_errors",
    "EventLinesDataSource": ".reader.jsonl_source",
    "MaterializeSummary": ".tables.materialize", "TableCounts": ".tables.materialize",
    "materialize_stream": ".tables.materialize",
    "PartitionCount": ".pipeline", "WriteSummary": ".pipeline", "prepare": ".pipeline", "write": ".pipeline",
    "LayoutWriteSummary": ".writer.layout_writer",
    "decode": ".reading", "events_only": ".reading", "read": ".reading", "read_events": ".reading",
    "without_broadcast_copies": ".reading",
    "EVENT_SCHEMA": ".rows.schema", "PERMISSIVE_EVENT_SCHEMA": ".rows.schema", "READ_EVENT_SCHEMA": ".rows.schema",
    "java_tier_jar": ".jvm.jar",
    "spark_session": ".session",
    "write_stream": ".stream_sink",
    "TableColumn": ".tables.table_types", "schema_columns": ".tables.table_types",
}


def __getattr__(name: str):
    """A public name, loaded from its module on first use; a submodule by its name too, as an
    eager package would have it once another module imported it."""
    module = _EXPORTS.get(name)
    if module is not None or name == "materialize":
        value = _materialize() if module is None else getattr(importlib.import_module(module, __name__), name)
        globals()[name] = value  # later uses find it at once
        return value
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return importlib.import_module(f".{name}", __name__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS, "materialize"})


def transcode(
    spark, source_uri: SinkLike, sink_uri: SinkLike, topics: Optional[str] = None
) -> Union[WriteSummary, LayoutWriteSummary]:
    """Read a topic in one protocol and write it in another (e.g. open-protocol -> avro), or into a
    storage-sink layout (``local:///dir?protocol=csv``, ``s3://...``)."""
    from .pipeline import write
    from .reading import read, without_broadcast_copies

    return write(without_broadcast_copies(read(spark, source_uri, topics)), sink_uri)


def _materialize():
    """``materialize``: tables.materialize's (its signature and docstring), with ``format("cdcwire")``
    registered with the session first, which tables/ cannot do. Made on first use."""
    from .format import register_data_sources
    from .tables.materialize import materialize as materialize_tables

    @wraps(materialize_tables)
    def materialize(spark, *args, **kwargs) -> MaterializeSummary:
        register_data_sources(spark)
        return materialize_tables(spark, *args, **kwargs)

    return materialize


def _register_with_the_active_session() -> None:
    """A session built before ``import cdcwire.spark`` gets ``format("cdcwire")`` at once; any
    other gets it from cs.spark_session, cs.read, cs.read_events, cs.prepare or
    cs.register_data_sources. (A Python worker has no active session: it loads no data source.)"""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        from .format import register_data_sources

        register_data_sources(active)


_register_with_the_active_session()

__all__ = [
    "CdcwireDataSource", "EVENT_SCHEMA", "EventLinesDataSource", "PERMISSIVE_EVENT_SCHEMA", "PartitionCount",
    "READ_EVENT_SCHEMA", "WriteSummary", "decode", "events_only", "prepare", "read", "read_dead_letters", "read_events",
    "raise_carried", "register_data_sources", "spark_session", "transcode", "without_broadcast_copies", "write",
    "write_stream", "java_tier_jar", "materialize", "materialize_stream", "MaterializeSummary", "TableCounts",
    "TableColumn", "changelog", "schema_columns", "table_columns", "typed_columns", "zero_date_counts",
]
