"""The ``cdcwire`` Spark data source: messages of a sink as events, and events to a sink.

    spark.read.format("cdcwire").option("source-uri", uri).load()
        # options: topics ("a,b" or "*" for every topic the source holds; default the URI's
        # topic), startingOffsets / endingOffsets / failOnDataLoss (as Spark's Kafka source:
        # see cdcwire.spark.reader.source_options), start-offset (default: earliest), offsets
        # ({"topic/partition": offset} JSON),
        # mode (FAILFAST, the default: an undecodable message fails the read; PERMISSIVE: it
        # becomes a row with _malformed set), tables (a table filter: "app.*,!app.tmp_*"),
        # ranges (pinned ranges, as cdcwire.spark.read sets), output (events, the default, or
        # messages: each message undecoded, MESSAGE_ROW_SCHEMA; batch reads only)
    spark.readStream.format("cdcwire").option("source-uri", uri).load()
        # a stream: see cdcwire.spark.reader.stream_source for its options
    df.write.format("cdcwire").option("sink-uri", uri).mode("append").save()   # or mode("overwrite")

Reads are bounded: each partition from its start offset to its high watermark
(see :mod:`cdcwire.spark.reader.message_ranges` for when that is taken). Messages are
decoded on the executors. Rows are :data:`~.rows.schema.SOURCE_READ_EVENT_SCHEMA`: events,
topic, partition, offset and the message's ``timestamp`` (a Python data source has one
schema for batch and streaming reads, and the stream has the timestamp, as Spark's own
Kafka source has); ``cdcwire.spark.read``, which pins ``ranges``, gives
:data:`~.rows.schema.READ_EVENT_SCHEMA`, as ``cdcwire.spark.decode`` does.

Writes go through a write job (:meth:`cdcwire.contract.transport.Transport.begin_write`): on
``file://`` each task stages, ``commit()`` publishes once every task succeeded and
``abort()`` discards, so a failed write leaves nothing; ``mode("overwrite")``
replaces the topics' partition files. ``kafka://`` delivers as tasks write (at
least once) and refuses ``mode("overwrite")``, as Spark's own Kafka sink does.

A DataFrame laid out by :func:`cdcwire.spark.prepare` is written exactly (one task
per topic-partition, in order). Any other event DataFrame is dispatched task by
task in input order, which keeps the ordering promises only when each
topic-partition's events come from one input partition (``df.coalesce(1)``); a
Python data source cannot ask Spark for a distribution, so when two tasks fed one
topic-partition the write is refused naming it, in ``commit()`` before anything
is published (``file://``). A delivering sink cannot wait for ``commit()``: there
a task of any input partition but the first refuses such a DataFrame before it
writes (the first cannot know it is not alone). Such a task also cannot know every
topic before it routes its first resolved event (it sees its own input only,
once), so topic rules are refused there when the protocol broadcasts resolved
events: the error points to ``cdcwire.spark.write``, which plans all topics first.
``cdcwire.spark.write`` does the full job and returns a summary.
``writeStream.format("cdcwire")`` is refused for the same reason (it would need that
distribution for every micro-batch): ``cdcwire.spark.write_stream`` does that job.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql import SparkSession
from pyspark.sql.datasource import DataSource

from ..foundation.errors import CdcwireError, SinkURIError
from .reader.source_options import gives_messages, is_permissive
from .rows.schema import (
    MESSAGE_ROW_SCHEMA,
    PERMISSIVE_READ_EVENT_SCHEMA,
    PERMISSIVE_SOURCE_READ_EVENT_SCHEMA,
    READ_EVENT_SCHEMA,
    SOURCE_READ_EVENT_SCHEMA,
)
from .runtime.sink_cache import cached_sink

if TYPE_CHECKING:
    from .reader.batch_reader import MessageEventsReader
    from .writer.format_writer import EventsWriter

# The readers and the writer are imported where Spark asks for them: the Python process that
# plans a read (a fresh one per read) imports this module to unpickle the data source, and needs
# the batch reader only, not the stream reader, the writer, or the other sources' pandas.


class CdcwireDataSource(DataSource):
    """``format("cdcwire")``: see the module doc."""

    @classmethod
    def name(cls) -> str:
        return "cdcwire"

    def schema(self):
        """Batch and streaming reads alike (Spark asks before it knows which); reads that pin
        ``ranges`` (``cdcwire.spark.read``) keep the read schema without ``timestamp``."""
        permissive = is_permissive(dict(self.options))
        if gives_messages(dict(self.options)):
            return MESSAGE_ROW_SCHEMA
        if self.options.get("ranges") is not None:
            return PERMISSIVE_READ_EVENT_SCHEMA if permissive else READ_EVENT_SCHEMA
        return PERMISSIVE_SOURCE_READ_EVENT_SCHEMA if permissive else SOURCE_READ_EVENT_SCHEMA

    def reader(self, schema) -> MessageEventsReader:
        if not self.options.get("source-uri"):
            raise SinkURIError('the cdcwire source needs .option("source-uri", URI)', "source-uri")
        from .reader.batch_reader import MessageEventsReader

        return MessageEventsReader(dict(self.options), stamped="timestamp" in schema.fieldNames())

    def streamReader(self, schema):
        """``spark.readStream.format("cdcwire")``: see :mod:`cdcwire.spark.reader.stream_source`."""
        if not self.options.get("source-uri"):
            raise SinkURIError('the cdcwire stream source needs .option("source-uri", URI)', "source-uri")
        if "timestamp" not in schema.fieldNames():
            raise CdcwireError(
                "a stream of format('cdcwire') has a timestamp column; its schema is"
                " cdcwire.spark.rows.schema.SOURCE_READ_EVENT_SCHEMA (no ranges option, no other schema)"
            )
        cached_sink(self.options["source-uri"])  # a bad URI fails here, before the query starts
        from .reader.stream_source import MessageEventsStreamReader

        return MessageEventsStreamReader(self.options)

    def streamWriter(self, schema, overwrite: bool):
        raise CdcwireError(
            "writeStream.format('cdcwire') is not supported: a Python data source cannot ask Spark to"
            " shuffle each micro-batch by topic-partition and order it by commit ts, which a write"
            " needs; use cdcwire.spark.write_stream(df, uri, checkpoint)"
        )

    def writer(self, schema, overwrite: bool) -> EventsWriter:
        from .writer.format_writer import EventsWriter, refuse_unplanned_topics

        uri = self.options.get("sink-uri")
        if not uri:
            raise SinkURIError('the cdcwire sink needs .option("sink-uri", URI)', "sink-uri")
        sink = cached_sink(uri)  # a bad URI fails here, before any task runs
        if "_cdc_topic" not in schema.names:
            refuse_unplanned_topics(sink)
        # Spark itself refuses mode("errorifexists") and mode("ignore") for Python data sources;
        # mode("overwrite") arrives here, and a delivering transport refuses it (pointing at append).
        return EventsWriter(uri, sink.needs_transport().begin_write(sink.config, uri, overwrite=overwrite))


_REGISTERED: set[int] = set()


def register_data_sources(spark: SparkSession) -> None:
    """Register ``cdcwire``, ``cdcwire-events`` and ``cdcwire-storage`` with this session (once)."""
    if id(spark) in _REGISTERED:
        return
    from .reader.jsonl_source import EventLinesDataSource
    from .reader.storage_source import StorageLayoutDataSource

    spark.dataSource.register(CdcwireDataSource)
    spark.dataSource.register(EventLinesDataSource)
    spark.dataSource.register(StorageLayoutDataSource)
    _REGISTERED.add(id(spark))
