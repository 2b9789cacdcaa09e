"""The JVM encoding tier: message bytes made in the JVM before the shuffle, by the Java tier's UDFs.

Where :func:`encoding_tier` picks it, each routed copy gets its message value
(``_cdc_value``, binary) from the protocol's Java UDF (canal-json:
:mod:`cdcwire.spark.writer.java_canal_json`), and the images of an encoded copy are nulled,
so that the shuffle, the sort and the conversion to Arrow for the encoding stage carry
flat bytes. A copy the UDF leaves null (DDL and resolved events, rows its checks are not
sure of, a message over max-message-bytes) keeps its images; the encoding stage encodes it
in Python, in its place among the others (:func:`cdcwire.spark.writer.encoding.encode_routed`).
"""

from __future__ import annotations

import logging
from typing import Optional

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from ...errors import CdcwireError
from ...sink import Sink
from ..jvm.jar import CANAL_JSON_PARTITIONS, CANAL_JSON_UDF, jar_and_reason
from .java_canal_json import canal_json_value, java_class, udf_config
from .java_canal_json import refusal as java_refusal
from .routing_counts import COUNTS_COLUMN

#: The session setting that picks the encoding tier: ``auto`` (the Java tier where it serves)
#: or ``python`` (always the Python codecs).
ENCODING_SETTING = "spark.cdcwire.encoding"
VALUE_COLUMN = "_cdc_value"
#: Which Java encoder the tier runs: ``"udf"`` (``CanalJsonUdf``, :func:`jvm_encoded`, before the
#: shuffle) or ``"rows"`` (``CanalJsonPartitions`` over Spark's internal rows after the sort,
#: :func:`jvm_encoded_partitions`). A measured prototype, not a user setting:
#: ``benchmarks/spark_encoding_stages.py`` sets it to compare them in one run.
JAVA_ENCODER = "udf"
#: The columns an encoded copy no longer needs (the sort still reads commit_ts).
_IMAGES = ("columns", "pre_columns")
#: The event fields the UDFs read, in their order (``CanalJsonUdf``), and the routed copy's half.
_UDF_FIELDS = ("kind", "commit_ts", "schema", "table", "columns", "pre_columns", "handle_key_only", "_cdc_half")

log = logging.getLogger("cdcwire.spark")
_SAID: set[str] = set()


def _say_once(tier: str, why: str) -> None:
    """Log, once per process and reason, which tier encodes."""
    line = f"cdcwire.spark: the {tier} tier encodes ({why})"
    if line not in _SAID:
        _SAID.add(line)
        log.info(line)


def encoding_tier(sink: Sink, df: DataFrame, routing: str) -> tuple[str, str]:
    """The tier that encodes a write routed by the ``routing`` tier, ``"jvm"`` (the Java tier's
    UDF makes the message bytes, :func:`jvm_encoded`) or ``"python"`` (the codec's encoder in
    the encoding stage), and why: the one place it is chosen. The Python tier stays the
    reference and serves whatever the Java tier does not."""
    spark = df.sparkSession
    setting = (spark.conf.get(ENCODING_SETTING, "auto") or "auto").strip().lower()
    if setting not in ("auto", "python"):
        raise CdcwireError(f"{ENCODING_SETTING}={setting!r} is not an encoding tier; use 'auto' or 'python'")
    tier, why = _choice(sink, spark, setting, routing)
    _say_once("Java" if tier == "jvm" else "Python", why)
    return tier, why


def _choice(sink: Sink, spark, setting: str, routing: str) -> tuple[str, str]:
    if setting == "python":
        return "python", f"{ENCODING_SETTING}=python"
    if routing != "jvm":
        return "python", "the Python tier routes this write (the Java encoders take the JVM tier's rows)"
    refusal = java_refusal(sink)
    if refusal is not None:
        return "python", refusal
    if java_class(spark, CANAL_JSON_UDF) is None:
        jar, why = jar_and_reason()
        if jar is None:
            return "python", why
        return "python", f"the session's classpath lacks the Java tier's jar: start it with spark.jars={jar}"
    return "jvm", f"{sink.codec.name} has a Java encoder for the sink's settings"


def jvm_encoded(routed: DataFrame, sink: Sink, clock: Optional[Column] = None) -> DataFrame:
    """``routed`` (the JVM routing tier's copies) with :data:`VALUE_COLUMN`, images nulled where
    it is set. ``clock``: canal-json's ``ts`` (ms), the wall clock per row by default."""
    value_of = canal_json_value(routed.sparkSession, sink)
    event = F.struct(*(F.col(f"`{c}`") for c in _UDF_FIELDS))
    clock = F.lit(None).cast("long") if clock is None else clock.cast("long")
    # a count row has no message; the value is a column of its own before it is used twice,
    # so that Spark runs the UDF once a row (it does not collapse a projection that would repeat it)
    with_value = routed.select("*", F.when(F.col(COUNTS_COLUMN).isNull(), value_of(event, clock)).alias(VALUE_COLUMN))
    encoded = F.col(VALUE_COLUMN).isNotNull()
    return with_value.select(
        *(F.when(~encoded, F.col(f"`{c}`")).alias(c) if c in _IMAGES else F.col(f"`{c}`") for c in routed.columns),
        VALUE_COLUMN,
    )


def jvm_encoded_partitions(laid: DataFrame, sink: Sink, clock: Optional[int] = None) -> DataFrame:
    """``laid`` (the JVM routing tier's copies, shuffled and sorted) with :data:`VALUE_COLUMN`,
    images nulled where it is set, made over Spark's internal rows by ``CanalJsonPartitions``
    (no conversion of the nested images to external rows, one pass in the order written).
    ``clock``: canal-json's ``ts`` (ms), the wall clock per row by default.

    The rows go through the RDD of ``laid``'s plan and back into a DataFrame of the same
    partitions (``internalCreateDataFrame``, public in Spark's bytecode): the encoding stage
    that follows keeps them, one Spark partition per topic-partition, in their order."""
    spark = laid.sparkSession
    jvm = spark.sparkContext._jvm
    jdf = laid._jdf
    partitions = java_class(spark, CANAL_JSON_PARTITIONS)
    encode = partitions(udf_config(sink), jdf.schema(), -1 if clock is None else clock)
    rows = jdf.queryExecution().toRdd().toJavaRDD().mapPartitions(encode).rdd()
    schema = partitions.output(jdf.schema(), VALUE_COLUMN)
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows, schema, False), spark)
