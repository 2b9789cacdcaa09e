"""The JVM decoding tier: messages read into event rows in the JVM, by the Java tier.

Where :func:`decoding_tier` picks it, a DataFrame of messages (key, value, topic, partition,
offset: a sink's ranges read with ``output=messages``, or the frame ``cdcwire.spark.decode``
is given) becomes events in two passes that keep every message in its place:

1. **Java** (``io.cdcwire.spark.MessageDecoding`` running the codec's plugin's
   ``MessageDecoder``, configured by its glue: :mod:`cdcwire.spark.jvm.plugged`) reads each message it is sure of into its
   event rows (one, or one per event of a message that packs a batch), over Spark's internal rows, and marks the others pending (``_cdc_pending``),
   keeping their key and value.
2. **Python** reads the pending ones, and only those cross into a Python worker: an Arrow
   UDF is handed the pending flag and the message columns (null for the rest) and returns,
   per pending message, its events or its ``_malformed`` row as the Python tier decodes it
   (:func:`cdcwire.spark.reader.range_decoding.decode_messages`), or its error. A codec
   whose decoding is stateful (``Codec.stateful_decoding``: simple) gets one decoder per
   partition, as the Python tier has: it reads that partition's pending messages in order,
   across the UDF's batches, and its ``finish`` ends the partition (:func:`_stateful_python_pass`).
   Its Java decoder, also one per partition, only ever reads a message the Python decoder,
   holding the state of the same messages before it, reads the same: it learns less, never more.

3. **Java** again (``io.cdcwire.spark.DecodedInPlace``) gives each message's events in its
   place: its own row where Java read it, else the Python decoder's rows. A read gives
the same rows on either tier (``tests/test_spark_java_decoding.py`` compares them); the
nested events never cross into Python, which is the point: handing them over cost more than
Spark's whole JSON read.
"""

from __future__ import annotations

from typing import Callable, Iterator, Optional, Tuple

import numpy as np

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import ArrayType, BinaryType, BooleanType, LongType, StructField, StructType

from ...foundation.errors import CdcwireError
from ...api.codec_calls import decoder_for
from ...model.message import Message
from ...sinks.sink import Sink, open_sink
from ...uris.sink_uri import SinkConfig
from ..jvm.jar import DECODED_IN_PLACE, MESSAGE_DECODING, PYTHON_WHEN_PENDING, jar_lacking, java_class
from ..jvm.plugged import decoder_config, declared
from ..jvm.plugged import decoder_refusal as java_refusal
from ..rows.schema import (
    ARROW_PERMISSIVE_READ_EVENT_SCHEMA,
    ARROW_READ_EVENT_SCHEMA,
    PERMISSIVE_READ_EVENT_SCHEMA,
    READ_EVENT_SCHEMA,
)
from ..rows.record_checks import java_check_tables
from ..runtime.job_errors import carried_to_driver
from ..runtime.tiers import say_once, tier_setting
from .file_source import REST_END, rest_ends, rest_of_range
from .message_decoding import check_placed
from .range_decoding import decode_messages, event_batches, finished

#: The session setting that picks the decoding tier: ``auto`` (the Java tier where it serves)
#: or ``python`` (always the Python codecs).
DECODING_SETTING = "spark.cdcwire.decoding"
PENDING, KEY, VALUE, PYTHON_ROWS = "_cdc_pending", "_cdc_key", "_cdc_value", "_cdc_python"
#: A message's place: null in the first pass where the frame's is (the message is pending and
#: the Python pass refuses it, as the Python tier does), never null in what a read gives.
_PLACE = frozenset({"topic", "partition", "offset"})


def decoding_tier(sink: Sink, spark: SparkSession, tables: str = "") -> tuple[str, str]:
    """The tier that decodes a read of the sink's messages, ``"jvm"`` (:func:`jvm_decoded`) or
    ``"python"`` (the codec's decoder in the reading data source), and why: the one place it
    is chosen. ``tables``: a table filter, which the Python tier applies as it decodes."""
    tier, why = _choice(sink, spark, tier_setting(spark, DECODING_SETTING, "decoding"), tables)
    say_once("decodes", "Java" if tier == "jvm" else "Python", why)
    return tier, why


def _choice(sink: Sink, spark: SparkSession, setting: str, tables: str) -> tuple[str, str]:
    if setting == "python":
        return "python", f"{DECODING_SETTING}=python"
    refusal = java_refusal(sink)
    if refusal is not None:
        return "python", refusal
    if tables:
        return "python", "a table filter is applied by the Python tier as it decodes"
    lacking = jar_lacking(spark, declared(sink).decoder)
    if lacking is not None:
        return "python", lacking
    return "jvm", f"{sink.codec.name} has a Java decoder for the sink's settings"


def jvm_decoded(messages: DataFrame, sink: Sink, permissive: bool, rereadable: bool = False) -> DataFrame:
    """The events of ``messages`` (key, value, topic, partition, offset), as the Python tier
    decodes them: the read schema (``_malformed`` too when ``permissive``), one message after
    another in the frame's order.

    ``rereadable``: ``messages`` gives the same rows each time a partition is computed (the JVM's
    ``file://`` source), so a task runs the Python pass only once it meets a pending message
    (``io.cdcwire.spark.PythonWhenPending``): a read Java decodes whole starts no Python worker.
    A frame of the user's is read once (it may not give the same rows twice)."""
    spark = messages.sparkSession
    read_schema = PERMISSIVE_READ_EVENT_SCHEMA if permissive else READ_EVENT_SCHEMA
    if sink.codec.stateful_decoding:
        python = F.arrow_udf(_stateful_python_pass(sink.config, permissive), ArrayType(read_schema))
    else:
        python = F.arrow_udf(_python_pass(sink.config, permissive), ArrayType(read_schema))
    first = java_pass(messages, sink, permissive)
    both = first.select("*", python(
        F.col(PENDING), F.col("topic"), F.col("partition"), F.col("offset"), F.col(KEY), F.col(VALUE), F.col(REST_END)
    ).alias(PYTHON_ROWS))
    jdf = both._jdf
    jread = spark._jsparkSession.parseDataType(read_schema.json())
    if rereadable:
        jfirst = first._jdf
        rows = java_class(spark, PYTHON_WHEN_PENDING)(
            jfirst.queryExecution().toRdd(), jdf.queryExecution().toRdd(), jfirst.schema(), jdf.schema(), jread)
        return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows, jread, False), spark)
    in_place = java_class(spark, DECODED_IN_PLACE)(jdf.schema(), jread)
    rows = jdf.queryExecution().toRdd().toJavaRDD().mapPartitions(in_place).rdd()
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows, jread, False), spark)


def java_pass(messages: DataFrame, sink: Sink, permissive: bool) -> DataFrame:
    """The first pass alone: a row per event Java read (the read schema's columns set; several
    for a message that packs a batch), else one per message with :data:`PENDING` true and its
    :data:`KEY` and :data:`VALUE`; a rest row of the JVM's ``file://`` source
    (:mod:`.file_source`) comes out pending with its :data:`~.file_source.REST_END`."""
    spark = messages.sparkSession
    read_schema = PERMISSIVE_READ_EVENT_SCHEMA if permissive else READ_EVENT_SCHEMA
    passes = StructType([
        *(StructField(f.name, f.dataType, True) if f.name in _PLACE else f for f in read_schema.fields),
        StructField(PENDING, BooleanType(), False),
        StructField(KEY, BinaryType()),
        StructField(VALUE, BinaryType()),
        StructField(REST_END, LongType()),
    ])
    jdf = messages._jdf
    jpasses = spark._jsparkSession.parseDataType(passes.json())
    decoding = java_class(spark, MESSAGE_DECODING)(declared(sink).decoder, decoder_config(sink, java_check_tables()), jdf.schema(), jpasses)
    rows = jdf.queryExecution().toRdd().toJavaRDD().mapPartitions(decoding).rdd()
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows, jpasses, False), spark)


def _python_pass(
    config: SinkConfig, permissive: bool
) -> Callable[[pa.Array, pa.Array, pa.Array, pa.Array, pa.Array, pa.Array], pa.Array]:
    """The Arrow UDF of the second pass (runs on executors): per row, the events of a pending
    message as the Python tier decodes it, null for the others."""
    schema = ARROW_PERMISSIVE_READ_EVENT_SCHEMA if permissive else ARROW_READ_EVENT_SCHEMA
    item = pa.struct(list(schema))

    def run(
        pending: pa.Array, topic: pa.Array, partition: pa.Array, offset: pa.Array, key: pa.Array, value: pa.Array,
        rest_end: pa.Array,
    ) -> pa.Array:
        flags = pending.to_pylist()
        if not any(flags):
            return pa.nulls(len(flags), pa.list_(item))
        with carried_to_driver("decoding messages"):  # a DecodeError reaches the driver as itself
            check_placed(topic, partition, offset)  # Java leaves a message without a place pending
            sink = open_sink(config)
            columns = [c.to_pylist() for c in (topic, partition, key, value, offset)]
            rests = rest_ends(rest_end)
            rows, ends = (None, []) if rests else _together(sink, columns, flags, schema, permissive)
            if rows is None:
                rows, ends = _one_by_one(sink, columns, flags, schema, permissive, rests)
        entries = pa.StructArray.from_arrays(
            [rows.column(i).combine_chunks() for i in range(rows.num_columns)], fields=list(schema)
        )
        return pa.ListArray.from_arrays(
            pa.array(ends, pa.int32()), entries, type=pa.list_(item), mask=pa.array([not f for f in flags])
        )

    return run


def _stateful_python_pass(
    config: SinkConfig, permissive: bool
) -> Callable[[Iterator[Tuple[pa.Array, ...]]], Iterator[pa.Array]]:
    """The second pass for a stateful codec (an iterator UDF: a task's batches in order): one
    decoder reads the partition's pending messages one after another, each with its own place,
    and its ``finish`` ends the partition, as :func:`decode_messages` ends a Python read. Each
    batch's rows are handed on when the next batch comes, so that what ``finish`` gives (placed
    at the last message) can join the last one's rows."""
    schema = ARROW_PERMISSIVE_READ_EVENT_SCHEMA if permissive else ARROW_READ_EVENT_SCHEMA
    item = pa.struct(list(schema))

    def run(  # the hints tell Spark it is an iterator UDF (Tuple: Spark reads typing's)
        batches: Iterator[Tuple[pa.Array, pa.Array, pa.Array, pa.Array, pa.Array, pa.Array, pa.Array]],
    ) -> Iterator[pa.Array]:
        decoder = None
        sink: Optional[Sink] = None
        held: Optional[tuple[list[pa.RecordBatch], list[int], list[bool]]] = None
        last: Optional[Message] = None
        with carried_to_driver("decoding messages"):  # a DecodeError reaches the driver as itself
            for pending, topic, partition, offset, key, value, rest_end in batches:
                if held is not None:
                    yield _listed(*held, schema, item)
                flags = pending.to_pylist()
                if not any(flags):
                    held = ([], [0] * (len(flags) + 1), flags)
                    continue
                check_placed(topic, partition, offset)
                if decoder is None:
                    sink = open_sink(config)
                    decoder = decoder_for(sink)
                columns = [c.to_pylist() for c in (topic, partition, key, value, offset)]
                rests = rest_ends(rest_end) or [None] * len(flags)
                ends, found = [0], []
                for at, is_pending in enumerate(flags):
                    if is_pending:
                        for last in _messages_of(sink, columns, at, rests[at]):
                            found.extend(event_batches(decoder, iter([last]), permissive))
                    ends.append(sum(b.num_rows for b in found))
                held = (found, ends, flags)
            if decoder is not None:
                tail = list(finished(decoder, last, permissive))
                if tail and held is not None and held[2] and held[2][-1]:
                    held[0].extend(tail)
                    held[1][-1] += sum(b.num_rows for b in tail)
                elif tail:
                    raise CdcwireError(
                        f"{config.protocol}'s decoder gave events at the end of a partition whose last message"
                        " Java read: set spark.cdcwire.decoding=python to read it"
                    )
        if held is not None:
            yield _listed(*held, schema, item)

    return run


def _listed(
    batches: list[pa.RecordBatch], ends: list[int], flags: list[bool], schema: pa.Schema, item: pa.DataType
) -> pa.Array:
    """Per message of a batch, its Python rows (``ends`` bound each one's), null where not pending."""
    rows = pa.Table.from_batches(batches, schema) if batches else schema.empty_table()
    entries = pa.StructArray.from_arrays(
        [rows.column(i).combine_chunks() for i in range(rows.num_columns)], fields=list(schema)
    )
    return pa.ListArray.from_arrays(
        pa.array(ends, pa.int32()), entries, type=pa.list_(item), mask=pa.array([not f for f in flags])
    )


def _messages_of(sink: Sink, columns: list[list], at: int, rest_end: Optional[int]) -> Iterator[Message]:
    """The messages of pending row ``at``: its own, or a rest row's (the Python reader's, from its offset)."""
    topics, partitions, keys, values, offsets = columns
    if rest_end is None:
        return iter([Message(topics[at], partitions[at], keys[at], values[at], offsets[at])])
    return rest_of_range(sink, topics[at], partitions[at], offsets[at], rest_end)


def _together(
    sink: Sink, columns: list[list], flags: list[bool], schema: pa.Schema, permissive: bool
) -> tuple[Optional[pa.Table], list[int]]:
    """The pending messages decoded in one go, each given its row number as its offset, which
    tells whose rows are whose; then their own offsets put back. (None, []) when a message is
    refused or malformed: its error or row names its place, so :func:`_one_by_one` decodes them."""
    topics, partitions, keys, values, offsets = columns
    at = [i for i, is_pending in enumerate(flags) if is_pending]
    messages = [Message(topics[i], partitions[i], keys[i], values[i], i) for i in at]
    try:
        batches = list(decode_messages(sink, messages, permissive))
    except CdcwireError:
        return None, []
    rows = pa.Table.from_batches(batches, schema) if batches else schema.empty_table()
    if permissive and rows.column("_malformed").null_count < rows.num_rows:
        return None, []
    whose = np.asarray(rows.column("offset").to_numpy(), dtype=np.int64)
    ends = np.zeros(len(flags) + 1, dtype=np.int64)
    np.cumsum(np.bincount(whose, minlength=len(flags)), out=ends[1:])
    own = pa.array(offsets, pa.int64()).take(pa.array(whose))
    return rows.set_column(schema.get_field_index("offset"), schema.field("offset"), own), ends.tolist()


def _one_by_one(
    sink: Sink, columns: list[list], flags: list[bool], schema: pa.Schema, permissive: bool,
    rests: Optional[list[Optional[int]]] = None,
) -> tuple[pa.Table, list[int]]:
    """The pending messages decoded one at a time, each with its own place: what a refused
    message's error, or a malformed row, must name. A rest row's messages (``rests``: their
    ends, :mod:`.file_source`) are read by the Python reader and decoded together in its place."""
    ends = [0]
    batches: list[pa.RecordBatch] = []
    for at, is_pending in enumerate(flags):
        found = 0
        if is_pending:
            for batch in decode_messages(sink, _messages_of(sink, columns, at, rests and rests[at]), permissive):
                batches.append(batch)
                found += batch.num_rows
        ends.append(ends[-1] + found)
    return (pa.Table.from_batches(batches, schema) if batches else schema.empty_table()), ends
