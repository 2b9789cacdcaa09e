"""Which messages a read takes: one bounded range per topic-partition, planned once.

A read goes from a start offset (the earliest held by default) to the high
watermark each partition had when the read was planned. ``cdcwire.spark.read``
plans when it is called and hands the ranges to the data source as an option, so
every action over its DataFrame reads the same messages while producers go on
appending: counting it twice gives one number, and a write with topic rules,
which reads its input once to plan topics and once to route, sees the same tables
both times. ``spark.read.format("cdcwire")`` without that option plans whenever
Spark plans a query over it. Every transport has watermarks
(:meth:`cdcwire.contract.transport.MessageReader.watermarks`), so every range has an end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Optional, Union

from pyspark.sql.datasource import InputPartition

from ...transports.data_loss import checked_offset
from ...foundation.errors import CdcwireError
from ...sinks.sink import Sink
from ...uris.topic_selection import select_topics
from ...contract.transport import lacks_offsets
from ..runtime.sink_cache import cached_sink


@dataclass(frozen=True)
class MessageRange(InputPartition):
    """Offsets [start, end) of one topic-partition; ``start`` None: the earliest held.

    ``decode_from`` (a stream of a stateful codec, see :mod:`.stream_source`): the messages from
    there up to ``start`` are decoded first, for the table schemas they bring, and their events
    dropped, so the range's rows are typed as one decoder reading from there would type them."""

    topic: str
    partition: int
    start: Optional[int]
    end: Optional[int]
    decode_from: Optional[int] = None


def plan_message_ranges(
    source: Union[str, Sink],
    topics: str = "",
    start_offset: Optional[int] = None,
    offsets: str = "",
    *,
    ends: Optional[dict[str, int]] = None,
    fail_on_data_loss: bool = True,
    accept: str = "set failOnDataLoss=false",
) -> list[MessageRange]:
    """One range per topic-partition: from the given start (or the low watermark now) to the high
    watermark now (or the end ``ends`` gives it).

    ``topics``: names and patterns, "a,b,tidb_*" ("*": every topic the source holds), or "" for
    the URI's topic (see :mod:`cdcwire.uris.topic_selection`);
    ``offsets``: JSON ``{"topic/partition": offset}`` overriding ``start_offset`` (-2: the
    earliest, -1: the latest, as in Spark's Kafka options); ``ends``: ``{"topic/partition":
    offset}`` (-1: the latest). A start outside the partition's range now is data loss
    (:func:`cdcwire.transports.data_loss.checked_offset`): an error, or with ``fail_on_data_loss`` False
    a warning and the earliest; ``accept`` says in the error how to accept it.
    ``source``: the sink the driver resolved for its job, or a URI (resolved once per process).
    """
    sink = source if isinstance(source, Sink) else cached_sink(source)
    reader = sink.needs_transport().reader(sink.config)
    starts = json.loads(offsets) if offsets else {}
    ends = ends or {}
    try:
        names = select_topics(topics, sink.topic, reader.topics)
        ranges = []
        for topic in names:
            for p in reader.partitions(topic):
                key = f"{topic}/{p}"
                start = starts.get(key, start_offset)
                low, high = reader.watermarks(topic, p)
                begin = low if start is None or int(start) == -2 else high if int(start) == -1 else int(start)
                begin = checked_offset(topic, p, begin, low, high, fail=fail_on_data_loss, accept=accept)
                end = ends.get(key, -1)
                end = high if end == -1 else min(end, high)
                if end < begin:
                    raise CdcwireError(
                        f"option endingOffsets: {key} ends at {end}, before its start {begin}"
                    )
                ranges.append(MessageRange(topic, p, begin, end))
        unknown = sorted(set(ends) - {f"{r.topic}/{r.partition}" for r in ranges})
        if unknown:
            raise CdcwireError(
                f"option endingOffsets names {', '.join(unknown[:5])}, which the read does not take (its partitions:"
                f" {', '.join(f'{r.topic}/{r.partition}' for r in ranges[:10]) or 'none'})"
            )
        return ranges
    finally:
        reader.close()


def whole_partitions(ranges: list[MessageRange]) -> list[MessageRange]:
    """Ranges for a protocol whose decoding is stateful (``Codec.stateful_decoding``: a row
    needs its table's schema from an earlier message of its partition): each run of adjacent
    ranges of one topic-partition joined into one, so one decoder reads it in order, as a
    Python read does. Pieces decoded apart would each miss the schemas the ones before them
    brought. Ranges that do not meet are kept apart (a gap is not read)."""
    whole: list[MessageRange] = []
    for r in ranges:
        last = whole[-1] if whole else None
        if (last is not None and (last.topic, last.partition) == (r.topic, r.partition)
                and last.end is not None and last.end == r.start):
            whole[-1] = MessageRange(r.topic, r.partition, last.start, r.end)
        else:
            whole.append(r)
    return whole


def ranges_to_json(ranges: list[MessageRange]) -> str:
    """The data source option that pins a read to ``ranges``."""
    return json.dumps([[r.topic, r.partition, r.start, r.end] for r in ranges])


def ranges_from_json(text: str) -> list[MessageRange]:
    return [MessageRange(topic, partition, start, end) for topic, partition, start, end in json.loads(text)]


def offsets_at_times(uri: str, topics: str, times: Union[int, dict[str, int]]) -> dict[str, int]:
    """``{"topic/partition": offset}`` of every partition a read takes: its first message whose
    time is at or after ``times`` (one ms for all, or per ``"topic/partition"``, every one named),
    or its end when none is that late yet.

    Through the transport's :class:`~cdcwire.contract.transport.OffsetsCapability` (Kafka's time index);
    a transport without it (``file://``, whose records keep no time) is an error naming it.
    """
    what = "option startingTimestamp" if isinstance(times, int) else "option startingOffsetsByTimestamp"
    sink = cached_sink(uri)
    transport = sink.needs_transport()
    lookup = transport.offsets(sink.config)
    if lookup is None:
        raise CdcwireError(lacks_offsets(sink.config.scheme, what))
    reader = transport.reader(sink.config)
    try:
        with lookup:
            keys = [(t, p) for t in select_topics(topics, sink.topic, reader.topics) for p in reader.partitions(t)]
            names = [f"{t}/{p}" for t, p in keys]
            if isinstance(times, int):
                wanted = dict.fromkeys(names, times)
            else:
                unknown = sorted(set(times) - set(names))
                missing = sorted(set(names) - set(times))
                if unknown or missing:
                    problem = f"names {', '.join(unknown[:5])}, which the read does not take" if unknown else (
                        f"gives no time for {', '.join(missing[:5])}: give every partition one"
                    )
                    raise CdcwireError(f"{what} {problem} (its partitions: {', '.join(names[:10]) or 'none'})")
                wanted = dict(times)
            found: dict[str, int] = {}
            for ms in sorted(set(wanted.values())):
                at = [key for key, name in zip(keys, names) if wanted[name] == ms]
                for (topic, partition), offset in lookup.at_time(at, ms).items():
                    found[f"{topic}/{partition}"] = reader.watermarks(topic, partition)[1] if offset is None else offset
            return found
    finally:
        reader.close()
