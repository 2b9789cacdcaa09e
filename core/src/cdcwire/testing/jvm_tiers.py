"""A codec's two Spark tiers held against each other: the kit for a plugin that ships a JVM codec.

The Python decoder is the reference. A Java decoder must read every message it reads into the
same rows, and leave to the Python decoder (pending) every message it is not sure of, so that
every error a reader sees is the Python decoder's. These helpers read one sink on each tier and
show which messages the Java pass read itself; a plugin's tests assert with them, as the built-in
protocols' do (``tests/test_spark_*_java_decoding.py``)::

    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert java == python
    assert not any(pending_of(spark, uri))  # Java read every message itself: the test is not vacuous
"""

from __future__ import annotations

from typing import Callable, TypeVar

from pyspark.sql import DataFrame, SparkSession

from .. import spark as cs
from ..sinks.sink import open_sink
from ..spark.reader.jvm_decoding import DECODING_SETTING, PENDING, java_pass

T = TypeVar("T")

#: The tiers a read may be run on: ``python`` (the reference) and ``auto`` (the JVM where it serves).
TIERS = ("python", "auto")


def on_tier(spark: SparkSession, tier: str, run: Callable[[], T]) -> T:
    """``run()`` with the session's decoding set to ``tier``; the setting put back after."""
    spark.conf.set(DECODING_SETTING, tier)
    try:
        return run()
    finally:
        spark.conf.unset(DECODING_SETTING)


def rows_in_order(df: DataFrame) -> list:
    """A read's rows, collected in their place order (a read's row order is not promised)."""
    return sorted(df.collect(), key=lambda r: (r.topic, r.partition, r.offset, repr(r)))


def read_on_both_tiers(spark: SparkSession, uri: str, **read) -> tuple[list, list]:
    """(the Python tier's rows, the JVM tier's rows) of ``cs.read(spark, uri, topics="*", **read)``."""
    return tuple(on_tier(spark, t, lambda: rows_in_order(cs.read(spark, uri, topics="*", **read))) for t in TIERS)


def pending_of(spark: SparkSession, uri: str, permissive: bool = True) -> list[bool]:
    """Per message of the sink, in (partition, offset) order: whether the Java pass left it to the
    Python decoder (a message Java read whole may give several rows, one per event it packs)."""
    messages = (spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*")
                .option("output", "messages").load())
    passed = java_pass(messages, open_sink(uri), permissive).select("topic", "partition", "offset", PENDING)
    return [r[PENDING] for r in passed.distinct().orderBy("partition", "offset").collect()]
