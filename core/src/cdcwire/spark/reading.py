"""Event DataFrames in: event JSON Lines or Parquet files, and messages of a sink decoded back."""

from __future__ import annotations

import json
import os
from typing import Mapping, Optional, Sequence, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ..sinks.sink import SinkLike, open_sink
from ..foundation.errors import CdcwireError
from ..transports.storage.layout import read_checkpoint
from ..transports.storage.location import StorageLocation, is_storage_uri
from .format import register_data_sources
from .runtime.job_errors import cdcwire_errors_raised
from .reader.message_ranges import plan_message_ranges
from .reader.pinned_read import read_ranges, table_filter_option
from .reader.message_decoding import decode_stage
from .reader.jvm_decoding import decoding_tier, jvm_decoded
from .rows.schema import EVENT_COLUMNS, EVENT_SCHEMA, OPTIONAL_COLUMNS, PERMISSIVE_READ_EVENT_SCHEMA, READ_EVENT_SCHEMA


def is_source_uri(text: str) -> bool:
    return "://" in text or text.startswith("file:")


def read_events(spark: SparkSession, path: str, permissive: bool = False) -> DataFrame:
    """Events from event JSON Lines (``.jsonl``/``.json`` file, directory or glob) or Parquet
    written from an event DataFrame. ``permissive`` keeps malformed lines as ``_malformed`` rows
    (for a dead-letter path); otherwise the first one fails the job with its file and line."""
    register_data_sources(spark)
    if _is_parquet(path):
        df = spark.read.parquet(path)
        missing = [c for c in EVENT_COLUMNS if c not in df.columns and c not in OPTIONAL_COLUMNS]
        if missing:
            raise CdcwireError(f"{path} is not an event DataFrame in Parquet: it lacks {', '.join(missing)}")
        return df.select(*(
            (F.col(f"`{f.name}`") if f.name in df.columns else F.lit(OPTIONAL_COLUMNS[f.name])).cast(f.dataType).alias(f.name)
            for f in EVENT_SCHEMA.fields
        ))
    with cdcwire_errors_raised():  # the data source is planned in a Python worker, now
        return (
            spark.read.format("cdcwire-events")
            .option("mode", "PERMISSIVE" if permissive else "FAILFAST")
            .load(path)
        )


def _is_parquet(path: str) -> bool:
    if path.endswith(".parquet"):
        return True
    return os.path.isdir(path) and any(name.endswith(".parquet") for name in os.listdir(path))


def read(
    spark: SparkSession,
    source_uri: SinkLike,
    topics: Optional[Union[str, Sequence[str]]] = None,
    start_offset: Optional[int] = None,
    offsets: Optional[Mapping[str, int]] = None,
    permissive: bool = False,
    tables: Optional[Union[str, Sequence[str]]] = None,
    fail_on_data_loss: bool = True,
) -> DataFrame:
    """The events of a sink's messages, decoded on the executors, with topic, partition and offset.

    Bounded: each partition from ``start_offset`` (default the earliest; ``offsets`` per
    ``"topic/partition"``) to its high watermark now. The ranges are pinned here, once: every
    action over the DataFrame reads the same messages, however many producers add meanwhile
    (see :mod:`cdcwire.spark.reader.message_ranges`).
    ``topics``: the URI's topic by default; names and patterns, as a list or ``"a,b"``
    (``"tidb_app_*"``; ``"*"`` for every topic the source holds), see :mod:`cdcwire.uris.topic_selection`.
    ``permissive``: an undecodable message becomes a ``_malformed`` row (source
    ``topic/partition/offset``) for ``write(..., dead_letter=DIR)``, instead of failing the read.
    ``tables``: keep only the row and DDL events of these tables, in TiDB's table-filter syntax
    (``"app.*,!app.tmp_*"``, :mod:`cdcwire.dispatch.table_filter`), filtered on the executors as they
    are decoded; resolved events and malformed rows are always kept.
    ``fail_on_data_loss`` (default True): a start offset a partition no longer holds, or past its
    end, is a :class:`~cdcwire.transports.data_loss.DataLossError`; False: a warning, and its earliest.
    """
    register_data_sources(spark)
    if is_storage_uri(source_uri):
        return _read_storage_layout(spark, str(source_uri), table_filter_option(tables), topics, start_offset, offsets,
                                    permissive)
    table_filter = table_filter_option(tables)
    sink = open_sink(source_uri)  # a bad URI fails here, on the driver: the job's one resolution
    topic_list = "" if topics is None else topics if isinstance(topics, str) else ",".join(topics)
    ranges = plan_message_ranges(
        sink, topic_list, start_offset, json.dumps(dict(offsets)) if offsets else "", fail_on_data_loss=fail_on_data_loss,
        accept="pass fail_on_data_loss=False (cdcwire materialize --fail-on-data-loss false)",
    )
    return read_ranges(spark, sink.config.uri, ranges, permissive, table_filter)


def _read_storage_layout(spark: SparkSession, uri: str, tables: str, *unsupported: object) -> DataFrame:
    """A TiCDC storage-sink layout (``s3://``, ``local://``): its events up to its checkpoint, read
    now and pinned, so every action over the DataFrame reads the same events (see
    :mod:`cdcwire.spark.reader.storage_source`); ``tables``: other tables' files are not read."""
    if any(u not in (None, False) for u in unsupported):
        raise CdcwireError(
            "a storage-sink location is read whole, up to its checkpoint: topics, start_offset, offsets"
            " and permissive do not apply to it"
        )
    checkpoint = read_checkpoint(StorageLocation.parse(uri).storage)
    reader = spark.read.format("cdcwire-storage").option("source-uri", uri).option("checkpoint", str(checkpoint))
    with cdcwire_errors_raised():  # the data source is planned in a Python worker, now
        return (reader.option("tables", tables) if tables else reader).load()


def decode(
    df: DataFrame, protocol: SinkLike, permissive: bool = False, tables: Optional[Union[str, Sequence[str]]] = None
) -> DataFrame:
    """The events of a DataFrame of messages, decoded on the executors, with topic, partition and
    offset: for messages read by other means, such as Spark's own Kafka source
    (``spark.read.format("kafka")`` on a cluster that has its connector), whose ``key``,
    ``value``, ``topic``, ``partition`` and ``offset`` columns this takes as they come.

    ``protocol``: a protocol name or a sink URI (for the protocol's parameters, such as
    ``enable-tidb-extension``). ``value`` is required (binary or string); a missing ``key``
    is null, a missing ``topic`` the URI's topic (a protocol name: ""), a missing
    ``partition`` 0 and a missing ``offset`` the row's position in the input. Errors and
    ``_malformed`` rows name ``topic/partition/offset`` as :func:`read` does; ``permissive``
    and ``tables`` as there.
    """
    sink = open_sink(protocol)
    table_filter = table_filter_option(tables)  # a bad protocol or URI fails here, on the driver
    if "value" not in df.columns:
        raise CdcwireError(f"decode needs a 'value' column of messages; the DataFrame has {', '.join(df.columns)}")
    has = set(df.columns)
    messages = df.select(
        (F.col("key").cast("binary") if "key" in has else F.lit(None).cast("binary")).alias("key"),
        F.col("value").cast("binary").alias("value"),
        (F.col("topic").cast("string") if "topic" in has else F.lit(sink.topic or "")).alias("topic"),
        (F.col("partition").cast("int") if "partition" in has else F.lit(0)).alias("partition"),
        (F.col("offset").cast("long") if "offset" in has else F.monotonically_increasing_id()).alias("offset"),
    )
    if decoding_tier(sink, df.sparkSession, table_filter)[0] == "jvm":
        return jvm_decoded(messages, sink, permissive)
    schema = PERMISSIVE_READ_EVENT_SCHEMA if permissive else READ_EVENT_SCHEMA
    return messages.mapInArrow(decode_stage(sink.config, permissive, table_filter), schema)


def events_only(df: DataFrame) -> DataFrame:
    """Just the event columns (drops topic, partition, offset): ready to write to another sink.
    ``_malformed`` stays when the frame has it: the dead-letter path needs it."""
    extra = ["_malformed"] if "_malformed" in df.columns else []
    return df.select(*(F.col(f"`{c}`") for c in [*EVENT_COLUMNS, *extra]))


def without_broadcast_copies(df: DataFrame) -> DataFrame:
    """Events read back, with the copies of each DDL and resolved event (one per partition it was
    broadcast to) reduced to one, so that writing them again broadcasts each event once.
    Malformed rows (kind null) are kept as they are."""
    events = events_only(df)
    kind = F.col("kind")
    rows = events.where(kind.isin("insert", "update", "delete") | kind.isNull())
    others = events.where(kind.isin("ddl", "resolved")).dropDuplicates(
        ["kind", "commit_ts", "schema", "table", "ddl_type", "query"]
    )
    return rows.unionByName(others)
