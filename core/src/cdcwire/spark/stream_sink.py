"""``cdcwire.spark.write_stream``: a streaming event DataFrame kept flowing into a sink.

Each micro-batch is written by :func:`cdcwire.spark.write` (``foreachBatch``): dispatched,
ordered within each topic-partition and encoded exactly as a batch write, through the
same stages. A Python data source cannot ask Spark for the shuffle that takes, which is
why ``writeStream.format("cdcwire")`` refuses and points here.

Delivery is at least once, as TiCDC's: Spark records a micro-batch in the checkpoint
only after ``foreachBatch`` returned, so a query killed after a batch was written but
before it was recorded writes that batch again when it restarts (on ``file://`` too:
each batch is all or nothing, but the whole batch may come twice). A consumer drops the
repeats as it drops TiCDC's: by commit ts, up to each resolved ts.

A frame read back from a sink (it has ``topic``, ``partition`` and ``offset``; say,
``spark.readStream.format("cdcwire")``) is transcoded: each batch's broadcast copies of a
DDL or resolved event are collapsed to one before it is written again. Copies that
arrive in different micro-batches are written once per batch: a repeated resolved event
is harmless, a repeated DDL is dropped by consumers as any replay is.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Optional

from pyspark.sql import DataFrame

from ..foundation.errors import CdcwireError
from ..sinks.sink import SinkLike, open_sink
from .pipeline import WriteSummary, write
from .reading import without_broadcast_copies

log = logging.getLogger("cdcwire.spark.stream")

#: Columns a frame read back from a sink has; their presence means "transcode".
_READ_BACK = {"topic", "partition", "offset"}


def write_stream(
    df: DataFrame,
    sink_uri: SinkLike,
    checkpoint: str,
    dead_letter: Optional[str] = None,
    trigger: Optional[dict[str, Any]] = None,
    query_name: Optional[str] = None,
    on_batch: Optional[Callable[[int, WriteSummary], None]] = None,
):
    """Start a streaming query writing every micro-batch of ``df`` to the sink; returns the
    ``StreamingQuery`` (``.awaitTermination()``, ``.stop()``, ``.processAllAvailable()``).

    ``checkpoint``: the query's checkpoint directory (required: it is what a restart
    continues from). ``trigger``: ``DataStreamWriter.trigger`` keywords, e.g.
    ``{"processingTime": "10 seconds"}`` or ``{"availableNow": True}`` (default: each batch
    as soon as the last one is done). ``dead_letter``: as for ``cs.write``; each batch's
    dead letters are kept beside the others. ``on_batch(batch_id, summary)`` is called on
    the driver after each batch is written (the summary is also logged on
    ``cdcwire.spark.stream``). A batch whose write fails stops the query with the write's
    error.
    """
    if not df.isStreaming:
        raise CdcwireError("write_stream takes a streaming DataFrame (spark.readStream...); cs.write writes a batch one")
    if not checkpoint:
        raise CdcwireError("write_stream needs a checkpoint directory: a restarted query continues from it")
    sink = open_sink(sink_uri)  # a bad URI fails here, before the query starts: the query's one resolution
    transcoding = _READ_BACK <= set(df.columns)

    def write_batch(batch: DataFrame, batch_id: int) -> None:
        frame = without_broadcast_copies(batch) if transcoding else batch
        frame.persist()  # planning and writing both read the batch: read its source once
        try:
            summary = write(frame, sink, dead_letter=dead_letter)
        finally:
            frame.unpersist()
        log.info("micro-batch %d: %s", batch_id, " ".join(summary.report().split()[:12]))
        if on_batch is not None:
            on_batch(batch_id, summary)

    writer = df.writeStream.foreachBatch(write_batch).option("checkpointLocation", checkpoint)
    if trigger:
        writer = writer.trigger(**trigger)
    if query_name:
        writer = writer.queryName(query_name)
    return writer.start()
