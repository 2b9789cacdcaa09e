"""The ``kafka://`` message source in the JVM: a JVM-tier read of a Kafka partition without a
Python worker.

Why: as for ``file://`` (:mod:`.file_source`), the JVM decoding tier's messages were read by the
``cdcwire`` data source in a Python worker (confluent_kafka) and handed over as Arrow; no Kafka
client jar is on Spark's classpath, but a bounded read of one partition from a PLAINTEXT broker
needs only Fetch (v4: read_committed, no sessions) and magic-2 record batches, whose codecs
(gzip, snappy, LZ4, zstd) PySpark's own jars inflate. The driver plans the same ranges as the data
source and, per range, what the Python reader would read now (its low and high watermarks, the
same cut of the range's end) and the partition's leader (found on the driver, a metadata
request per range; a task does not look for it again); ``io.cdcwire.spark.KafkaRecords`` fetches the records into the message rows
``FramedFiles`` gives (``KafkaWire.java``, ``KafkaRecordBatches.java``).

Java serves only what it is sure of. A source with SASL or TLS, or consumer settings of its own
(``consumer-settings``), is read by the Python data source (:func:`kafka_refusal`, said once); a
range whose start is below the low watermark, or whose leader the driver cannot find, is the
Python reader's whole (it warns, counts the skipped offsets or raises, as ever); and at anything
irregular in a task (an error code, an irregular batch, aborted transactions in the answer, no
progress) Java gives a rest row from that offset (:data:`~.file_source.REST_END`), read by the
Python reader in the decoding tier's Python pass: every error and skip is the Python reader's.
"""

from __future__ import annotations

import json
from typing import Optional

from pyspark.sql import DataFrame, SparkSession

from ...sinks.sink import Sink
from ..jvm.jar import KAFKA_RECORDS, java_class
from .file_source import FRAMED_SCHEMA
from .message_ranges import MessageRange, whole_partitions


def kafka_refusal(sink: Sink) -> Optional[str]:
    """Why Java does not read this Kafka source (the Python data source does), or None when it does."""
    from ...transports.kafka.settings import KafkaSettings

    settings = KafkaSettings.of(sink.config)
    protocol = settings.security.get("security.protocol")
    if protocol != "PLAINTEXT":
        return f"Java reads PLAINTEXT Kafka brokers only, not {protocol}"
    if settings.consumer:
        return "Java does not read with consumer-settings: the Python consumer applies them"
    return None


def kafka_messages(spark: SparkSession, sink: Sink, ranges: list[MessageRange]) -> DataFrame:
    """The messages of ``ranges`` (:data:`~.file_source.FRAMED_SCHEMA`), read in the JVM: one
    Spark partition per range, in the order the Python data source gives them."""
    if sink.codec.stateful_decoding:
        ranges = whole_partitions(ranges)
    planned = spark.sparkContext._jvm.java.util.ArrayList()
    reader = sink.needs_transport().reader(sink.config)
    try:
        for r in ranges:
            planned.add(json.dumps(_planned(reader, r)))
    finally:
        reader.close()
    jrdd = spark.sparkContext._jsc.parallelize(planned, max(1, len(ranges)))
    rows = jrdd.mapPartitions(java_class(spark, KAFKA_RECORDS)()).rdd()
    jschema = spark._jsparkSession.parseDataType(FRAMED_SCHEMA.json())
    return DataFrame(spark._jsparkSession.internalCreateDataFrame(rows, jschema, False), spark)


def _planned(reader, r: MessageRange) -> dict:
    """What ``KafkaRecords`` reads for a range: the offsets the Python reader would read now
    (``KafkaReader.read``), from the partition's leader. A start below the low watermark or a
    partition without a leader is the Python reader's whole (``python``): it warns or raises."""
    settings = reader.settings
    low, high = reader.watermarks(r.topic, r.partition)
    stop = high if r.end is None else min(r.end, high)
    start = low if r.start is None else r.start
    plan = {
        "topic": r.topic, "partition": r.partition, "start": start, "stop": stop,
        "end": r.end if r.end is not None else stop, "python": False, "client": settings.client_id,
        "timeout": max(int(settings.dial_timeout * 1000), settings.request_timeout_ms),
    }
    if start >= stop:
        return plan  # nothing to read, as the Python reader reads nothing
    leader = None if start < low else reader.leader(r.topic, r.partition)
    if leader is None:
        return {**plan, "python": True}
    return {**plan, "host": leader[0], "port": leader[1]}
