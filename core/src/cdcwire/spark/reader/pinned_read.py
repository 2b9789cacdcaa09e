"""A DataFrame of the events in message ranges the driver pinned: what ``cdcwire.spark.read``
and ``cdcwire.spark.materialize`` read (see :mod:`~.message_ranges` for why ranges are pinned).

It reads with ``format("cdcwire")``, which the user-facing callers register with the
session first (``cdcwire.spark.register_data_sources``): the format is defined above
this room.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

from pyspark.sql import DataFrame, SparkSession

from ...dispatch.table_filter import TableFilter
from ..runtime.job_errors import cdcwire_errors_raised
from ..runtime.sink_cache import cached_sink
from .message_source import framed_messages, reading_tier
from .jvm_decoding import decoding_tier, jvm_decoded
from .message_ranges import MessageRange, ranges_to_json


def read_ranges(
    spark: SparkSession, uri: str, ranges: list[MessageRange], permissive: bool = False, tables: str = ""
) -> DataFrame:
    """The events of ``ranges`` of the source ``uri``, decoded on the executors; ``permissive`` and
    ``tables`` (a checked filter, :func:`table_filter_option`) as ``cdcwire.spark.read`` takes them.

    Where the Java tier decodes the sink's protocol (:func:`~.jvm_decoding.decoding_tier`), the
    source gives the messages as they are and the JVM reads them (``file://`` messages read in the
    JVM too: :mod:`.file_source`); else the source decodes them."""
    sink = cached_sink(uri)
    reader = (
        spark.read.format("cdcwire")
        .option("source-uri", uri)
        .option("ranges", ranges_to_json(ranges))
        .option("mode", "PERMISSIVE" if permissive else "FAILFAST")
    )
    with cdcwire_errors_raised():  # the data source is planned in a Python worker, now
        if decoding_tier(sink, spark, tables)[0] == "jvm":
            if reading_tier(sink, spark)[0] == "jvm":
                return jvm_decoded(framed_messages(spark, sink, ranges), sink, permissive, rereadable=True)
            return jvm_decoded(reader.option("output", "messages").load(), sink, permissive)
        return reader.option("tables", tables).load()


def table_filter_option(tables: Optional[Union[str, Sequence[str]]]) -> str:
    """The filter as the data source option (checked here, on the driver); "" keeps every table."""
    if tables is None:
        return ""
    return ",".join(TableFilter.of(tables).patterns)
