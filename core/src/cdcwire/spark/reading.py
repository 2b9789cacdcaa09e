"""Event DataFrames in: event JSON Lines or Parquet files, and messages of a sink decoded back."""

from __future__ import annotations

import json
import os
from typing import Mapping, Optional, Sequence, Union

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from ..api import config_of
from ..errors import CdcwireError
from ..sink_uri import SinkConfig
from .data_source import register_data_sources
from .schema import EVENT_COLUMNS, EVENT_SCHEMA


def is_source_uri(text: str) -> bool:
    return "://" in text or text.startswith("file:")


def read_events(spark: SparkSession, path: str, permissive: bool = False) -> DataFrame:
    """Events from event JSON Lines (``.jsonl``/``.json`` file, directory or glob) or Parquet
    written from an event DataFrame. ``permissive`` keeps malformed lines as ``_malformed`` rows
    (for a dead-letter path); otherwise the first one fails the job with its file and line."""
    register_data_sources(spark)
    if _is_parquet(path):
        df = spark.read.parquet(path)
        missing = [c for c in EVENT_COLUMNS if c not in df.columns]
        if missing:
            raise CdcwireError(f"{path} is not an event DataFrame in Parquet: it lacks {', '.join(missing)}")
        return df.select(*(F.col(f"`{f.name}`").cast(f.dataType).alias(f.name) for f in EVENT_SCHEMA.fields))
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
    source_uri: Union[str, SinkConfig],
    topics: Optional[Union[str, Sequence[str]]] = None,
    start_offset: Optional[int] = None,
    offsets: Optional[Mapping[str, int]] = None,
) -> DataFrame:
    """The events of a sink's messages, decoded on the executors, with topic, partition and offset.

    Bounded: each partition from ``start_offset`` (default the earliest; ``offsets`` per
    ``"topic/partition"``) to its high watermark when the read is planned. ``topics``: the
    URI's topic by default, a list, or ``"*"`` for every topic the source holds.
    """
    register_data_sources(spark)
    uri = source_uri.uri if isinstance(source_uri, SinkConfig) else source_uri
    config_of(uri)  # a bad URI fails here, on the driver
    reader = spark.read.format("cdcwire").option("source-uri", uri)
    if topics is not None:
        reader = reader.option("topics", topics if isinstance(topics, str) else ",".join(topics))
    if start_offset is not None:
        reader = reader.option("start-offset", str(start_offset))
    if offsets:
        reader = reader.option("offsets", json.dumps(dict(offsets)))
    return reader.load()


def events_only(df: DataFrame) -> DataFrame:
    """Just the event columns (drops topic, partition, offset): ready to write to another sink."""
    return df.select(*(F.col(f"`{c}`") for c in EVENT_COLUMNS))


def without_broadcast_copies(df: DataFrame) -> DataFrame:
    """Events read back, with the copies of each DDL and resolved event (one per partition it was
    broadcast to) reduced to one, so that writing them again broadcasts each event once."""
    events = events_only(df)
    rows = events.where(F.col("kind").isin("insert", "update", "delete"))
    others = events.where(F.col("kind").isin("ddl", "resolved")).dropDuplicates(
        ["kind", "commit_ts", "schema", "table", "ddl_type", "query"]
    )
    return rows.unionByName(others)
