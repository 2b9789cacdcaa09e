"""The JVM encoding tier: message bytes made in the JVM, after the sort, by the Java tier.

Where :func:`encoding_tier` picks it, each routed, sorted copy gets its message value
(``_cdc_value``, binary) from the protocol's Java encoder over Spark's internal rows
(``io.cdcwire.spark.MessageEncoding`` running the codec's plugin's ``MessageEncoder``,
configured by its glue: :mod:`cdcwire.spark.jvm.plugged`), and the images of an encoded copy are nulled,
so that the conversion to Arrow for the encoding stage carries flat bytes. A copy Java leaves
null (DDL events, rows its checks are not sure of, a message over max-message-bytes) keeps
its images; the encoding stage encodes it in Python, in its place among the others
(:func:`cdcwire.spark.writer.encoding.encode_routed`).

A format that packs several events into one message declares a ``BatchEncoder`` instead
(``io.cdcwire.spark.BatchEncoding`` runs it): each message Java made sits on the row of its last
event, with its key (:data:`KEY_COLUMN`) and the number of events it carries
(:data:`EVENTS_COLUMN`); the other events it carries have a count of 0, and a row left to Python a
null count. Java leaves a whole batch to Python, never part of one, so that the messages close
where the Python encoder closes them. A message of no event (simple's BOOTSTRAP) rides on the first
row of the next message, in :data:`BEFORE_COLUMN`, written before that row's message. An encoder that
hands its state over as it leaves events to Python (plugin API 1.18, simple's) puts it on the first row
left to Python, in :data:`STATE_COLUMN`: the Python encoder adopts it before that row.
"""

from __future__ import annotations

from typing import Optional

from pyspark.sql import DataFrame

from ...sinks.sink import Sink
from ..rows.record_checks import java_check_tables
from ..runtime.tiers import say_once, tier_setting
from ..jvm.jar import BATCH_ENCODING, FRAMED_STAGING, MESSAGE_ENCODING, jar_lacking, java_class
from ..jvm.plugged import declared, encoder_class, encoder_config
from ..jvm.plugged import encoder_refusal as java_refusal

#: The marker column of the messages Java staged itself (:mod:`.jvm_staging`): null on every other row.
STAGED_COLUMN = "_cdc_staged"
#: The session setting that picks the encoding tier: ``auto`` (the Java tier where it serves)
#: or ``python`` (always the Python codecs).
ENCODING_SETTING = "spark.cdcwire.encoding"
VALUE_COLUMN = "_cdc_value"
#: A batching format's message key and event count (see the module doc).
KEY_COLUMN = "_cdc_message_key"
EVENTS_COLUMN = "_cdc_message_events"
#: The messages of no event a batching format sends before a row's (plugin API 1.17): a list of
#: ``{key, value}``, null on every other row.
BEFORE_COLUMN = "_cdc_messages_before"
#: The state a batching Java encoder hands to the Python encoder as it leaves it the rest (plugin API
#: 1.18): a text, on the first row left to Python, null on every other row.
STATE_COLUMN = "_cdc_encoder_state"

def encoding_tier(sink: Sink, df: DataFrame, routing: str) -> tuple[str, str]:
    """The tier that encodes a write routed by the ``routing`` tier, ``"jvm"`` (the Java tier
    makes the message bytes, :func:`jvm_encoded_partitions`) or ``"python"`` (the codec's encoder in
    the encoding stage), and why: the one place it is chosen. The Python tier stays the
    reference and serves whatever the Java tier does not."""
    spark = df.sparkSession
    tier, why = _choice(sink, spark, tier_setting(spark, ENCODING_SETTING, "encoding"), routing)
    say_once("encodes", "Java" if tier == "jvm" else "Python", why)
    return tier, why


def _choice(sink: Sink, spark, setting: str, routing: str) -> tuple[str, str]:
    if setting == "python":
        return "python", f"{ENCODING_SETTING}=python"
    if routing != "jvm":
        return "python", "the Python tier routes this write (the Java encoders take the JVM tier's rows)"
    refusal = java_refusal(sink)
    if refusal is not None:
        return "python", refusal
    lacking = jar_lacking(spark, encoder_class(declared(sink)))
    if lacking is not None:
        return "python", lacking
    return "jvm", f"{sink.codec.name} has a Java encoder for the sink's settings"


def jvm_encoded_partitions(
    laid: DataFrame, sink: Sink, clock: Optional[int] = None, staging_area: Optional[str] = None
) -> DataFrame:
    """``laid`` (the JVM routing tier's copies, shuffled and sorted) with :data:`VALUE_COLUMN`,
    images nulled where it is set, made over Spark's internal rows by ``MessageEncoding`` and the codec's ``MessageEncoder``
    (no conversion of the nested images to external rows, one pass in the order written).
    ``clock``: the messages' clock (canal-json's ``ts``, ms), the wall clock per row by default.
    ``staging_area``: a write job's (:meth:`WriteJob.staging_area`), where the same task then
    stages the messages Java made itself (see :mod:`.jvm_staging`): their rows become markers.

    The rows go through the RDD of ``laid``'s plan and back into a DataFrame of the same
    partitions (``internalCreateDataFrame``, public in Spark's bytecode): the encoding stage
    that follows keeps them, one Spark partition per topic-partition, in their order."""
    spark = laid.sparkSession
    jdf = laid._jdf
    jvm = declared(sink)
    config = encoder_config(sink, java_check_tables())
    clock = -1 if clock is None else clock
    if jvm.encoder is not None:
        partitions = java_class(spark, MESSAGE_ENCODING)
        encode = partitions(jvm.encoder, config, jdf.schema(), clock)
        schema = partitions.output(jdf.schema(), VALUE_COLUMN)
    else:  # a BatchEncoder: messages on their last event's row (see the module doc)
        partitions = java_class(spark, BATCH_ENCODING)
        encode = partitions(jvm.batch_encoder, config, jdf.schema(), clock)
        schema = partitions.output(jdf.schema(), VALUE_COLUMN, KEY_COLUMN, EVENTS_COLUMN, BEFORE_COLUMN, STATE_COLUMN)
    rows = jdf.queryExecution().toRdd().toJavaRDD().mapPartitions(encode)
    if staging_area is not None:  # in the same tasks, on the rows as they come (no DataFrame between)
        staging = java_class(spark, FRAMED_STAGING)
        rows = rows.mapPartitions(staging(schema, staging_area, VALUE_COLUMN, KEY_COLUMN, EVENTS_COLUMN, BEFORE_COLUMN))
        schema = staging.output(schema, STAGED_COLUMN)
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows.rdd(), schema, False), spark)
