"""``spark.read.format("cdcwire")``: the batch reader, one Spark partition per message range.

The driver plans the ranges (or takes the ones ``cdcwire.spark.read`` pinned); executors
decode each range (:mod:`~.range_decoding`). Options: see :mod:`cdcwire.spark.format`.
"""

from __future__ import annotations

from typing import Iterator

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader

from ...dispatch.table_filter import TableFilter
from ..runtime.job_errors import carried_to_driver
from ..runtime.sink_cache import cached_sink
from .message_ranges import MessageRange, plan_message_ranges, ranges_from_json, whole_partitions
from .range_decoding import decode_range, decode_stamped_range, range_messages
from .source_options import (
    BATCH_OPTIONS,
    batch_starts,
    data_loss_fails,
    ending_offsets,
    gives_messages,
    is_permissive,
    lower_cased,
    refuse_unknown,
)


class MessageEventsReader(DataSourceReader):
    def __init__(self, options: dict, stamped: bool = False) -> None:
        refuse_unknown(options, BATCH_OPTIONS, "spark.read.format('cdcwire')")
        self.stamped = stamped  # rows carry their message's timestamp (SOURCE_READ_EVENT_SCHEMA)
        self.uri = options["source-uri"]
        self.topics = options.get("topics", "")
        self.start_offset, self.offsets = batch_starts(options)
        self.ends = ending_offsets(lower_cased(options).get("endingoffsets"))
        self.fail_on_data_loss = data_loss_fails(options)
        self.ranges = options.get("ranges")
        self.permissive = is_permissive(options)
        self.messages = gives_messages(options)
        self.tables = options.get("tables", "")
        if self.tables:
            TableFilter.of(self.tables)  # a bad pattern fails on the driver

    def partitions(self) -> list[MessageRange]:
        if self.ranges is not None:
            ranges = ranges_from_json(self.ranges)
            if cached_sink(self.uri).codec.stateful_decoding:
                ranges = whole_partitions(ranges)
        else:
            ranges = plan_message_ranges(
                self.uri, self.topics, self.start_offset, self.offsets, ends=self.ends,
                fail_on_data_loss=self.fail_on_data_loss,
            )
        return ranges or [MessageRange("", -1, 0, 0)]

    def read(self, partition: MessageRange) -> Iterator[pa.RecordBatch]:
        if partition.partition >= 0:
            with carried_to_driver("reading messages from a source"):  # see job_errors
                if self.messages:
                    yield from range_messages(self.uri, partition)
                    return
                decode = decode_stamped_range if self.stamped else decode_range
                yield from decode(self.uri, partition, self.permissive, self.tables)
