"""A codec's two Spark tiers held against each other: the kit for a plugin that ships a JVM codec.

The Python decoder is the reference. A Java decoder must read every message it reads into the
same rows, and leave to the Python decoder (pending) every message it is not sure of, so that
every error a reader sees is the Python decoder's. These helpers read one sink on each tier and
show which messages the Java pass read itself; a plugin's tests assert with them, as the built-in
protocols' do (``tests/test_spark_*_java_decoding.py``)::

    python, java = read_on_both_tiers(spark, uri, permissive=True)
    assert java == python
    assert not any(pending_of(spark, uri))  # Java read every message itself: the test is not vacuous
    assert messages_read_otherwise(python, java) == []  # which messages differ, where many do

A refusal must be the same on both tiers (the Python decoder's, carried out of its task)::

    python_error, java_error = refusals_on_both_tiers(spark, lambda: cs.read(spark, uri).collect())
    assert (type(java_error), str(java_error), java_error.where) == (type(python_error), ...)

``sink_of_events`` writes a test's events as the Python codec encodes them, ``sink_of_messages``
its messages (values, or (key, value) pairs) as they are.
A Java encoder is held to its Python encoder the same way, byte for byte: the whole output
(every partition file's keys and values, in order) and the write summaries' counts::

    python, java = writes_on_both_tiers(events, tmp, query)
    assert java == python and java.reconciles
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence, TypeVar, Union

from pyspark.sql import DataFrame, SparkSession

from .. import spark as cs
from ..api.functions import encode, write
from ..foundation.errors import CdcwireError
from ..model.events import Event
from ..model.message import Message
from ..sinks.sink import open_sink
from ..spark.pipeline import WriteSummary
from ..spark.reader.jvm_decoding import DECODING_SETTING, PENDING, java_pass
from ..spark.writer.jvm_encoding import ENCODING_SETTING
from ..transports.file.framing import read_frames
from ..transports.file.paths import SUFFIX

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
    Python decoder. (The pass gives a row per event of a message Java read, several for a message
    that packs a batch, and one pending row for a message it left.)"""
    messages = (spark.read.format("cdcwire").option("source-uri", uri).option("topics", "*")
                .option("output", "messages").load())
    passed = java_pass(messages, open_sink(uri), permissive).select("topic", "partition", "offset", PENDING)
    by_message = {(r["topic"], r["partition"], r["offset"]): r[PENDING] for r in passed.collect()}
    return [by_message[place] for place in sorted(by_message)]


def refusals_on_both_tiers(spark: SparkSession, run: Callable[[], object]) -> list[CdcwireError]:
    """The cdcwire error ``run()`` (a read that must fail) fails with on each tier, Python's first:
    the error a Spark task carried to the driver, raised as itself. A run that does not fail is
    an ``AssertionError`` naming its tier."""
    errors = []
    for tier in TIERS:
        try:
            on_tier(spark, tier, run)
        except Exception as failed:  # noqa: BLE001 - the job's failure, carrying the task's error
            try:
                cs.raise_carried(failed)
            except CdcwireError as carried:
                errors.append(carried)
                continue
            raise
        raise AssertionError(f"the read did not fail on the {tier} tier")
    return errors


def messages_read_otherwise(python: list, java: list) -> list[tuple]:
    """The places (topic, partition, offset) whose rows the two tiers' reads differ in, in order:
    what a failing differential test names (a read of mutated messages has thousands of rows)."""
    def by_place(rows: list) -> dict[tuple, list]:
        grouped: dict[tuple, list] = {}
        for row in rows:
            grouped.setdefault((row.topic, row.partition, row.offset), []).append(row)
        return grouped

    p, j = by_place(python), by_place(java)
    return [place for place in sorted(p.keys() | j.keys()) if p.get(place) != j.get(place)]


def sink_of_events(directory: Union[str, Path], events: Sequence[Event], query: str, topic: str = "t") -> str:
    """A ``file://`` sink of these events as the Python codec encodes them (``query`` its sink
    query), in ``topic`` under ``directory``. Its URI."""
    uri = f"file://{directory}/{topic}?{query}"
    write(uri, encode(uri, events))
    return uri


def sink_of_messages(directory: Union[str, Path], messages: Sequence[Union[bytes, tuple]], query: str,
                     topic: str = "t") -> str:
    """A ``file://`` sink of these messages as they are, in one partition of ``topic`` under
    ``directory``: each a value (no key) or a (key, value) pair. Its URI, with ``query``."""
    uri = f"file://{directory}/{topic}?{query}"
    write(uri, [Message(topic, 0, *(m if isinstance(m, tuple) else (None, m))) for m in messages])
    return uri


def write_on_python_tier(events: DataFrame, uri: str) -> WriteSummary:
    """``cs.write(events, uri)`` with the session's encoding on the Python tier (the reference),
    the setting put back after."""
    spark = events.sparkSession
    spark.conf.set(ENCODING_SETTING, "python")
    try:
        return cs.write(events, uri)
    finally:
        spark.conf.unset(ENCODING_SETTING)


def messages_in_files(directory: Union[str, Path], wall_clock: Optional[bytes] = None) -> dict[str, list[tuple]]:
    """Each partition file's messages under a ``file://`` sink's ``directory``, (key, value) in
    order, by the file's path below it: two writes' whole output, to compare byte for byte.

    ``wall_clock``: a regular expression over the values whose matches carry the time of encoding
    (canal-json's ``"ts":\\d+``), their digits zeroed, since two writes never share a clock."""
    def blanked(value):
        if wall_clock is None or value is None:
            return value
        return re.sub(wall_clock, lambda m: re.sub(rb"\d", b"0", m.group()), value)

    root = Path(directory)
    out = {}
    for path in sorted(root.rglob(f"*{SUFFIX}")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue  # cdcwire's own bookkeeping
        with open(path, "rb") as f:
            out[str(path.relative_to(root))] = [(key, blanked(value)) for _, key, value in read_frames(f, path.name)]
    return out


@dataclass(frozen=True)
class TierWrite:
    """One tier's ``file://`` write: its whole output and its summary's counts; the two tiers'
    are equal when the Java encoder gives the Python encoder's messages, byte for byte."""

    messages: dict
    counts: tuple  # events in, events encoded, messages, bytes
    reconciles: bool


def write_errors_on_both_tiers(events: DataFrame, directory: Union[str, Path], query: str) -> list[str]:
    """The error text a ``file://`` write of ``events`` that must fail fails with on each tier,
    Python's first (the error a Spark task carried to the driver, raised as itself), each tier's
    directory blanked so that the two compare. A write that does not fail is an ``AssertionError``."""
    errors = []
    for sub, write in (("py", write_on_python_tier), ("jvm", cs.write)):
        try:
            write(events, f"file://{directory}/{sub}/t?{query}")
        except Exception as failed:  # noqa: BLE001 - the job's failure, carrying the task's error
            try:
                cs.raise_carried(failed)
            except CdcwireError as carried:
                errors.append(str(carried).replace(f"/{sub}/t?", "/?"))
                continue
            raise
        raise AssertionError(f"the write did not fail on the {'Python' if sub == 'py' else 'JVM'} tier")
    return errors


def writes_on_both_tiers(events: DataFrame, directory: Union[str, Path], query: str,
                         wall_clock: Optional[bytes] = None) -> tuple[TierWrite, TierWrite]:
    """(the Python tier's write, the JVM tier's write) of ``events`` to ``file://`` sinks with
    ``query`` under ``directory`` (topic ``t`` in ``py`` and ``jvm``); ``wall_clock`` as in
    :func:`messages_in_files`."""
    def written(summary: WriteSummary, sub: str) -> TierWrite:
        counts = (summary.events_in, summary.events_encoded, summary.messages, summary.bytes)
        messages = messages_in_files(Path(directory) / sub, wall_clock)
        found = sum(len(m) for m in messages.values())
        if found != summary.messages:  # the files read are not the write's: a comparison would say nothing
            raise AssertionError(f"{found} messages in the files under {directory}/{sub}; the write made {summary.messages}")
        return TierWrite(messages, counts, summary.reconciles)

    # each tier's sink one level down: a topic-rule's topics (avro's, a table each) sit beside the sink's path
    python = written(write_on_python_tier(events, f"file://{directory}/py/t?{query}"), "py")
    java = written(cs.write(events, f"file://{directory}/jvm/t?{query}"), "jvm")
    return python, java
