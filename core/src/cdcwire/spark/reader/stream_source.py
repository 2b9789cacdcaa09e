"""``spark.readStream.format("cdcwire")``: a sink's messages as a stream of events.

    spark.readStream.format("cdcwire").option("source-uri", uri).load()
        # options: topics ("a,b", "tidb_*", "*"; default the URI's topic), startingOffsets
        # (earliest, the default; latest; or {"topic": {"0": 23, "1": -2}}, -2 earliest,
        # -1 latest; or startingTimestamp / startingOffsetsByTimestamp, ms since the epoch, as
        # Spark's Kafka source, on a transport with message times), maxOffsetsPerTrigger
        # (messages per micro-batch, spread over the partitions by their backlog; default no cap),
        # kafka.* (librdkafka consumer settings, kafka:// only), mode (FAILFAST, PERMISSIVE) and
        # tables (a table filter), as for spark.read.format("cdcwire"), failOnDataLoss (true,
        # the default: a checkpointed offset outside its partition's range now fails the query)

The offset is ``{"topic/partition": next offset}``, keys sorted: what the query's
checkpoint records. A micro-batch is one :class:`~.message_ranges.MessageRange` per
topic-partition that has messages in it, from its offset in the start to its offset in
the end, so :meth:`MessageEventsStreamReader.partitions` is a pure function of the two
offsets and a query restarted from its checkpoint re-plans an uncommitted batch exactly:
nothing committed is read again, nothing is skipped. A partition that appears (and,
under a topic pattern, a topic) is taken from its earliest offset at the next trigger:
an offset that lacks it means "the earliest held".

A protocol whose decoding is stateful (``Codec.stateful_decoding``: simple, whose rows need
their table's schema from an earlier BOOTSTRAP or DDL of the partition) gets one more key in
the offset, ``"schemasFrom": {"topic/partition": offset}``: where the query started reading each
partition. Each micro-batch's decoder first reads the ``schemaLookbackMessages`` messages before
its start (never before the query's start; :attr:`MessageRange.decode_from`), their events
dropped, so a batch without a BOOTSTRAP of its tables types its rows as one decoder reading the
whole query would: a micro-batch is not a fresh start. The work per batch stays bounded; a
table whose last BOOTSTRAP or DDL lies further back fails the batch naming its rows (raise the
option, or have TiCDC send bootstraps more often), and ``all`` reads from the query's start, at
a cost that grows with the query's age. A checkpoint from before this key reads as before
(each batch decodes alone).

Ranges are decoded on the executors by :func:`~.range_decoding.decode_messages`, as
batch reads are, and each row gets its message's ``timestamp`` (the Kafka record's;
null for ``file://``, whose framing keeps none): :data:`~.schema.SOURCE_READ_EVENT_SCHEMA`.
A ``file://`` partition being appended to is followed: an incomplete last record is
not written yet (see :mod:`cdcwire.transports.file.framing`).

``writeStream.format("cdcwire")`` is refused: a Python data source cannot ask Spark for
the shuffle that orders each topic-partition's events; ``cdcwire.spark.write_stream``
does the job.
"""

from __future__ import annotations

import logging
from typing import Iterator, Mapping, Optional

import pyarrow as pa
from pyspark.sql.datasource import DataSourceStreamReader
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)

from ...transports.data_loss import checked_offset
from ...foundation.errors import CdcwireError
from ...dispatch.table_filter import TableFilter
from ...uris.topic_selection import select_topics
from ...contract.transport import MessageReader
from ..runtime.job_errors import carried_to_driver
from .message_ranges import MessageRange, offsets_at_times
from .range_decoding import decode_stamped_range
from .source_options import (
    EARLIEST,
    LATEST,
    STREAM_OPTIONS,
    data_loss_fails,
    is_permissive,
    place_key,
    refuse_unknown,
    starting_offsets,
    starting_times,
    with_client_settings,
)
from ..runtime.sink_cache import cached_sink

log = logging.getLogger("cdcwire.spark")

Offsets = dict[str, int]

#: The offset's key of where a stateful codec's decoding starts per partition (see the module doc):
#: not a "topic/partition", which always has a slash.
SCHEMAS_FROM = "schemasFrom"


def place_of(key: str) -> tuple[str, int]:
    topic, _, partition = key.rpartition("/")
    return topic, int(partition)


class StreamOptions:
    """The options of a streaming read, checked on the driver before the query starts."""

    def __init__(self, options: Mapping[str, str]) -> None:
        # Spark hands Python data sources their option names lower-cased.
        opts = {str(k).lower(): v for k, v in options.items()}
        self.uri = opts.get("source-uri") or ""
        if not self.uri:
            raise CdcwireError('the cdcwire stream source needs .option("source-uri", URI)')
        batch_only = [name for name in ("start-offset", "offsets", "ranges") if name in opts]
        if batch_only:
            raise CdcwireError(
                f"option {batch_only[0]!r} is for batch reads; a stream starts where startingOffsets says"
                ' (earliest, latest or {"topic": {"0": 23, "1": -2}})'
            )
        refuse_unknown(opts, STREAM_OPTIONS, "spark.readStream.format('cdcwire')")
        self.uri = with_client_settings(self.uri, opts)  # kafka.*: to the consumer, on the driver and the tasks
        self.fail_on_data_loss = data_loss_fails(opts)
        self.topics = opts.get("topics", "") or ""
        self.permissive = is_permissive(opts)
        self.tables = opts.get("tables", "") or ""
        if self.tables:
            TableFilter.of(self.tables)  # a bad pattern fails on the driver
        self.starting = starting_offsets(opts.get("startingoffsets", "earliest"))
        #: startingTimestamp / startingOffsetsByTimestamp, resolved to offsets by initialOffset.
        self.times = starting_times(opts)
        self.max_offsets = max_offsets(opts.get("maxoffsetspertrigger"))
        self.schema_lookback = schema_lookback(opts.get("schemalookbackmessages"))


#: How many messages before a micro-batch's start a stateful codec's decoder reads first, by default.
SCHEMA_LOOKBACK = 100_000


def schema_lookback(text: Optional[str]) -> Optional[int]:
    """``schemaLookbackMessages``: a positive number (default :data:`SCHEMA_LOOKBACK`), or ``all``
    (None: from the query's start, exact whatever the bootstrap interval, at a cost that grows
    with the query's age)."""
    if text is not None and str(text).strip().lower() == "all":
        return None
    n = message_count(text, "schemaLookbackMessages", " or 'all'")
    return SCHEMA_LOOKBACK if n is None else n


def max_offsets(text: Optional[str]) -> Optional[int]:
    return message_count(text, "maxOffsetsPerTrigger")


def message_count(text: Optional[str], option: str, or_else: str = "") -> Optional[int]:
    """A stream option's positive number of messages; None when it is not given."""
    if text is None or str(text).strip() == "":
        return None
    try:
        n = int(str(text).strip())
    except ValueError:
        n = 0
    if n <= 0:
        raise CdcwireError(f"option {option} must be a positive number of messages{or_else}; got {text!r}")
    return n


def spread(backlog: Mapping[str, int], cap: int) -> dict[str, int]:
    """How many messages each partition gives to a micro-batch of at most ``cap``: all when the
    backlog fits, else shares in proportion to each backlog, the remainder one by one in key
    order (deterministic; every batch makes progress)."""
    total = sum(backlog.values())
    if total <= cap:
        return dict(backlog)
    take = {k: cap * n // total for k, n in backlog.items()}
    left = cap - sum(take.values())
    while left > 0:
        for k in sorted(backlog):
            if left and take[k] < backlog[k]:
                take[k] += 1
                left -= 1
    return take


class MessageEventsStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """See the module doc. Spark makes one on the driver for offsets and planning (it keeps its
    message reader open between triggers) and pickles one to the tasks, which only ``read``."""

    def __init__(self, options: Mapping[str, str]) -> None:
        self.options = StreamOptions(options)
        #: the codec's decoder keeps table schemas across messages: the offset says where it starts
        self.stateful = cached_sink(self.options.uri).codec.stateful_decoding
        self._source: Optional[MessageReader] = None
        self._target: Optional[Offsets] = None  # Trigger.AvailableNow: where to stop
        self._latest: Optional[Offsets] = None

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_source"] = None  # a connection does not travel to the tasks
        return state

    # -- the driver: offsets ------------------------------------------------------------------

    def _reader(self) -> MessageReader:
        if self._source is None:
            sink = cached_sink(self.options.uri)
            self._source = sink.needs_transport().reader(sink.config)
        return self._source

    def _watermarks(self) -> dict[str, tuple[int, int]]:
        """(low, high) of every partition of the selected topics now."""
        reader = self._reader()
        sink = cached_sink(self.options.uri)
        marks: dict[str, tuple[int, int]] = {}
        for topic in select_topics(self.options.topics, sink.topic, reader.topics):
            for partition in reader.partitions(topic):
                marks[place_key(topic, partition)] = reader.watermarks(topic, partition)
        return marks

    def initialOffset(self) -> dict:
        marks = self._watermarks()
        starting = self.options.starting
        if self.options.times is not None:
            starting = offsets_at_times(self.options.uri, self.options.topics, self.options.times)
        if starting == "earliest":
            return self._with_schemas_from(_sorted({k: low for k, (low, _) in marks.items()}))
        if starting == "latest":
            return self._with_schemas_from(_sorted({k: high for k, (_, high) in marks.items()}))
        assert isinstance(starting, dict)
        unknown = sorted(set(starting) - set(marks))
        if unknown:
            raise CdcwireError(
                f"option startingOffsets names {', '.join(unknown[:5])}, which the stream does not read"
                f" (its partitions: {', '.join(sorted(marks)[:10]) or 'none'})"
            )
        missing = sorted(set(marks) - set(starting))
        if missing:
            raise CdcwireError(
                f"option startingOffsets gives no offset for {', '.join(missing[:5])}"
                f"{' ...' if len(missing) > 5 else ''}: give every partition one (-2 earliest, -1 latest)"
            )
        offsets: Offsets = {}
        for key, (low, high) in marks.items():
            asked = starting[key]
            offset = low if asked == EARLIEST else high if asked == LATEST else asked
            offsets[key] = self._checked(key, offset, low, high)
        return self._with_schemas_from(_sorted(offsets))

    def _with_schemas_from(self, offsets: dict) -> dict:
        """The query's first offsets, with (for a stateful codec) where its decoding starts: there."""
        if self.stateful:
            offsets[SCHEMAS_FROM] = dict(offsets)
        return offsets

    def getDefaultReadLimit(self) -> ReadLimit:
        n = self.options.max_offsets
        return ReadAllAvailable() if n is None else ReadMaxRows(n)

    def prepareForTriggerAvailableNow(self) -> None:
        self._target = {k: high for k, (_, high) in self._watermarks().items()}

    def latestOffset(self, start: dict, limit: ReadLimit) -> dict:
        """The end of the next micro-batch: every selected partition up to its high watermark now
        (under Trigger.AvailableNow: as it was when the query started), at most ``limit``
        messages in all. A partition ``start`` lacks is new: it starts at its earliest."""
        marks = self._watermarks()
        if self._target is not None:
            target = self._target
            marks = {k: (low, min(high, target[k])) for k, (low, high) in marks.items() if k in target}
        self._latest = _sorted({k: high for k, (_, high) in marks.items()})
        schemas_from = start.get(SCHEMAS_FROM)
        start = {k: v for k, v in start.items() if k != SCHEMAS_FROM}
        begins = {
            k: self._checked(k, int(start[k]), low, high) if k in start else low for k, (low, high) in marks.items()
        }
        backlog = {k: max(0, marks[k][1] - begin) for k, begin in begins.items()}
        if isinstance(limit, ReadMaxRows):
            backlog = spread({k: n for k, n in backlog.items() if n}, limit.max_rows)
        end: Offsets = {k: int(v) for k, v in start.items()}  # partitions no longer selected stay
        for key, begin in begins.items():
            if key in start or backlog.get(key):
                end[key] = begin + backlog.get(key, 0)
        end = _sorted(end)
        if schemas_from is not None:
            # a partition new to the query is decoded from where it is first read; one whose
            # earliest messages are gone (retention) from its earliest held
            low_now = {k: low for k, (low, _) in marks.items()}
            kept = {k: max(int(v), low_now.get(k, 0)) for k, v in schemas_from.items()}
            end[SCHEMAS_FROM] = _sorted({**{k: low_now.get(k, 0) for k in end if k not in kept}, **kept})
        return end

    def _checked(self, key: str, offset: int, low: int, high: int) -> int:
        """``offset`` when the partition holds it; else data loss (see :mod:`cdcwire.transports.data_loss`)."""
        topic, partition = place_of(key)
        return checked_offset(
            topic, partition, offset, low, high, fail=self.options.fail_on_data_loss,
            accept='set .option("failOnDataLoss", "false")',
        )

    def reportLatestOffset(self) -> Optional[dict]:
        return self._latest

    def partitions(self, start: dict, end: dict) -> list[MessageRange]:
        """One range per topic-partition with messages between the two offsets (a pure function of
        them); a partition ``start`` lacks is read from the earliest offset held, and so is one
        whose end is below its start (its offsets restarted and the loss was accepted:
        ``failOnDataLoss=false``)."""
        ranges = []
        schemas_from = end.get(SCHEMAS_FROM) or {}
        for key in sorted(end):
            if key == SCHEMAS_FROM:
                continue
            first = start.get(key)
            last = int(end[key])
            if first is not None and int(first) > last:
                first = None  # reset by latestOffset: read the new offsets from the earliest
            if (first is None and last > 0) or (first is not None and int(first) < last):
                topic, partition = place_of(key)
                begin = None if first is None else int(first)
                decode_from = schemas_from.get(key)
                if decode_from is not None and (begin is None or int(decode_from) > begin):
                    decode_from = None  # offsets restarted below it: nothing to decode first
                lookback = self.options.schema_lookback
                if decode_from is not None and lookback is not None:
                    decode_from = max(int(decode_from), begin - lookback)  # bounded work per batch
                ranges.append(MessageRange(topic, partition, begin, last,
                                           None if decode_from is None else int(decode_from)))
        return ranges

    def commit(self, end: dict) -> None:
        """Nothing to do: the query's checkpoint keeps the offsets; the source keeps every message."""

    def stop(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            source.close()

    # -- the tasks --------------------------------------------------------------------------

    def read(self, partition: MessageRange) -> Iterator[pa.RecordBatch]:  # type: ignore[override]
        with carried_to_driver("reading messages of a stream"):  # see job_errors
            yield from decode_stamped_range(
                self.options.uri, partition, self.options.permissive, self.options.tables
            )


def _sorted(offsets: Mapping[str, int]) -> dict:
    """Offsets with their keys in order: Spark compares offsets as JSON text."""
    return {k: int(offsets[k]) for k in sorted(offsets)}
