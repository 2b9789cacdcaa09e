"""The ``file://`` message source in the JVM: a JVM-tier read of a partition file without a
Python worker.

Why: on the JVM decoding tier (:mod:`.jvm_decoding`) the messages were still read by the
``cdcwire`` data source in a Python worker and handed over as Arrow, for Java to decode; the
framing is simple enough for Java to read itself. The driver plans the same ranges as the data
source (one Spark partition per range, whole partitions for a stateful codec) and, per range,
asks the Python reader where its walk begins (:meth:`~cdcwire.transports.file.transport.FileReader.read_begin`:
the file, its committed size, the checked offset index entry); ``io.cdcwire.spark.FramedFiles``
reads the records from there into message rows (``FramedFiles.java``), and keeps the partition's
offset index as the Python reader keeps it (:mod:`cdcwire.transports.file.offset_index`).

Java reads only intact records. At the first irregular one (a CRC that fails, a length past the
end, a bad magic...) it gives a *rest* row instead (:data:`REST_END` set: the rest of the range,
from its ``offset``), which the decoding tier's Python pass reads with the Python reader
(:func:`rest_of_range`) and decodes in that row's place: every error, skipped stretch and
permissive row is the Python reader's, worded where it always was. Kafka's messages are read in
the JVM by :mod:`.kafka_source` (same rows, same rest rows); :mod:`.message_source` picks who reads.
"""

from __future__ import annotations

import json
from typing import Iterator, Optional

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import LongType, StructField, StructType

from ...foundation.errors import CdcwireError
from ...model.message import Message
from ...sinks.sink import Sink
from ..jvm.jar import FRAMED_FILES, java_class
from ..rows.schema import MESSAGE_ROW_SCHEMA
from ..runtime.job_errors import carried_to_driver
from .message_ranges import MessageRange, whole_partitions

#: Set on a rest row: the end of the range whose records from the row's ``offset`` are the Python reader's.
REST_END = "_cdc_rest_end"
#: The rows ``FramedFiles`` gives: messages, and rest rows.
FRAMED_SCHEMA = StructType([*MESSAGE_ROW_SCHEMA.fields, StructField(REST_END, LongType())])


def file_messages(spark: SparkSession, sink: Sink, ranges: list[MessageRange]) -> DataFrame:
    """The messages of a ``file://`` sink's ``ranges`` (:data:`FRAMED_SCHEMA`), read in the JVM: one
    Spark partition per range, in the order the Python data source gives them."""
    if sink.codec.stateful_decoding:
        ranges = whole_partitions(ranges)
    planned = spark.sparkContext._jvm.java.util.ArrayList()
    for r in ranges:
        planned.add(json.dumps(_planned(sink, r)))
    jrdd = spark.sparkContext._jsc.parallelize(planned, max(1, len(ranges)))
    rows = jrdd.mapPartitions(java_class(spark, FRAMED_FILES)()).rdd()
    jschema = spark._jsparkSession.parseDataType(FRAMED_SCHEMA.json())
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows, jschema, False), spark)


def _planned(sink: Sink, r: MessageRange) -> dict:
    """What ``FramedFiles`` reads for a range: where the Python reader's walk begins. A partition
    the driver cannot open is the Python reader's whole (``python``): it raises its own error, in
    the task, as the data source did."""
    start = r.start or 0
    end = r.end if r.end is not None else 1 << 62
    plan = {"topic": r.topic, "partition": r.partition, "start": start, "end": end}
    reader = sink.needs_transport().reader(sink.config)
    try:
        begin = reader.read_begin(r.topic, r.partition, start)
    except CdcwireError:
        return {**plan, "python": True, "size": 0, "offset": start, "byte": 0}
    finally:
        reader.close()
    if begin is None:  # a partition of the count that nothing was written to: no messages
        return {**plan, "python": False, "size": 0, "offset": 0, "byte": 0}
    path, size, (offset, byte), index = begin
    return {**plan, "python": False, "path": str(path), "size": size, "offset": offset, "byte": byte,
            "index": index.handed_over()}


def rest_of_range(sink: Sink, topic: str, partition: int, start: int, end: int) -> Iterator[Message]:
    """The messages of a rest row (in a Python worker): the Python reader's, from ``start`` to
    ``end``, its errors raised as the data source raises them."""
    reader = sink.needs_transport().reader(sink.config)
    try:
        with carried_to_driver("reading messages from a source"):  # as the data source says it
            yield from reader.read(topic, partition, start, end)
    finally:
        reader.close()


def rest_ends(column) -> Optional[list]:
    """A batch's :data:`REST_END` values, or None when it holds no rest row."""
    if column.null_count == len(column):
        return None
    return column.to_pylist()
