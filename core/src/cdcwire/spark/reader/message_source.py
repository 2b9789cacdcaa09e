"""Who reads a sink's messages for the JVM decoding tier, and the read itself: Java for
``file://`` partition files (:mod:`.file_source`) and PLAINTEXT Kafka (:mod:`.kafka_source`), the
same message rows and rest rows from either; else the Python data source.

Why a module of its own: the choice and the dispatch know both JVM sources, and each source
knows only its own medium (the Kafka source reads the file source's row schema, so the file
source must not know the Kafka one).
"""

from __future__ import annotations

from pyspark.sql import DataFrame, SparkSession

from ...sinks.sink import Sink
from ..jvm.jar import FRAMED_FILES, jar_lacking
from ..runtime.tiers import say_once, tier_setting
from .file_source import file_messages
from .kafka_source import kafka_messages, kafka_refusal
from .message_ranges import MessageRange

#: The session setting that picks who reads messages for the JVM decoding tier:
#: ``auto`` (Java, where it serves) or ``python`` (the ``cdcwire`` data source), for ``file://`` and Kafka alike.
READING_SETTING = "spark.cdcwire.reading"


def reading_tier(sink: Sink, spark: SparkSession) -> tuple[str, str]:
    """``"jvm"`` when Java reads the sink's messages for the JVM decoding tier, else ``"python"``; and why."""
    setting = tier_setting(spark, READING_SETTING, "reading")
    if setting == "python":
        tier, why = "python", f"{READING_SETTING}=python"
    elif sink.config.scheme not in ("file", "kafka"):
        tier, why = "python", f"Java reads file:// and kafka:// messages only, not {sink.config.scheme}://"
    elif sink.config.scheme == "kafka" and kafka_refusal(sink):
        tier, why = "python", kafka_refusal(sink)
    else:
        lacking = jar_lacking(spark, FRAMED_FILES)
        where = "file:// partition files" if sink.config.scheme == "file" else "Kafka's record batches"
        tier, why = ("python", lacking) if lacking else ("jvm", f"{where} are read in the JVM")
    say_once("reads messages", "Java" if tier == "jvm" else "Python", why)
    return tier, why


def framed_messages(spark: SparkSession, sink: Sink, ranges: list[MessageRange]) -> DataFrame:
    """The messages of ``ranges`` (:data:`~.file_source.FRAMED_SCHEMA`), read in the JVM: one Spark
    partition per range, in the order the Python data source gives them."""
    if sink.config.scheme == "kafka":
        return kafka_messages(spark, sink, ranges)
    return file_messages(spark, sink, ranges)
