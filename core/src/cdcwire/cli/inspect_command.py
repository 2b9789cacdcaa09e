"""``cdcwire inspect SOURCE_URI``: decode the messages of a sink and print one event per line.

By default the output is event JSON Lines, the format ``cdcwire encode`` reads: each
event once, a DDL or resolved event that was broadcast to several partitions printed
at its first copy only. ``--placed`` prints every copy with its topic, partition and offset
(and, from Kafka, the record's timestamp and headers). ``--from``/``--to`` read an offset
range of each partition. ``--list`` prints the source's topics and partitions instead
(``kcat -L``): low and high watermarks and a guess of the protocol of each partition's
first message, for which the URI needs no ``protocol``. A TiCDC storage-sink layout (``local://``,
``s3://``) is read as files: its events, or with ``--list`` its tables, versions, files and
checkpoint (:mod:`cdcwire.cli.layout_inspect`).
"""

from __future__ import annotations

import argparse
import sys

from ..foundation.errors import CdcwireError
from ..model.event_json import to_json
from ..model.events import Event, RowChangedEvent
from ..api.following import StartAt
from ..api.poll_decoding import PollDecoder
from ..sinks.sink import open_sink
from ..uris.topic_selection import select_topics
from ..transports.storage.location import is_storage_uri
from .layout_inspect import inspect_layout, list_layout
from .raw_lines import raw_line
from .reading_flags import SOURCE_URI, add_skip_damaged, add_topics
from .uri_argument import FROM_ENV_OR_FILE, source_uri_argument


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("inspect", help="decode a sink's messages and print them as event JSON, one per line")
    p.add_argument("uri", metavar=SOURCE_URI, type=source_uri_argument,
                   help="the sink URI the messages were written with" + FROM_ENV_OR_FILE)
    p.add_argument("--partition", type=int, action="append", help="only these partitions (repeatable)")
    add_topics(p, "other topics than the URI's: names and patterns, 'a,b' or 'tidb_app_*' ('*': every topic the sink holds)")
    p.add_argument(
        "--from", dest="start", default="beginning", metavar="beginning|end|OFFSET",
        help="where each partition's read starts: its beginning (default), an offset, or -N: its last N messages",
    )
    p.add_argument("--to", dest="end", type=int, metavar="OFFSET",
                   help="where each partition's read ends: before this offset (default: its end now)")
    p.add_argument(
        "--placed", action="store_true",
        help="every copy of every event (broadcast copies included) with the place of its message: topic, partition"
        " and offset, and the Kafka timestamp and headers (kafka://); decoded events, not the message bytes",
    )
    p.add_argument("--raw", dest="placed", action="store_true", help=argparse.SUPPRESS)  # its older, misleading name
    p.add_argument(
        "-L", "--list", action="store_true",
        help="list the topics and partitions instead (kcat -L): low and high watermarks and the protocols whose"
        " decoder reads each partition's first message; the URI may leave out protocol",
    )
    p.add_argument("--tables", help="only these tables' row and DDL events: 'app.*,!app.tmp_*' (TiDB table filter)")
    p.add_argument(
        "--skip-undecodable", action="store_true",
        help="log an undecodable message (its place and reason) and go on, instead of stopping; counted at the end",
    )
    add_skip_damaged(p, "uri")
    return p


def run(args: argparse.Namespace) -> int:
    if is_storage_uri(args.uri):  # a TiCDC storage-sink layout: files, not topics
        return list_layout(args) if args.list else inspect_layout(args)
    if args.list:
        return _list(args)
    start = StartAt.parse(args.start)
    if start.kind == "timestamp":
        raise CdcwireError(
            f"inspect --from takes an offset, not the time {args.start!r}: to start at a time,"
            f" use cdcwire follow --from {args.start} --exit-at-end"
        )
    sink = open_sink(args.uri)
    decode = PollDecoder(sink, skip_undecodable=args.skip_undecodable, tables=args.tables)
    reader = sink.needs_transport().reader(sink.config)
    seen_broadcast: set[str] = set()
    try:
        topics = select_topics(args.topics, sink.topic, reader.topics)
        for topic in topics:
            for partition in args.partition or reader.partitions(topic):
                begin, end = _range(reader, topic, partition, start, args.end)
                if begin >= end:
                    continue
                for message in reader.read(topic, partition, begin, end):
                    for event in decode(message):
                        if args.placed:
                            print(raw_line(event, topic, partition, message.offset, message.timestamp, message.headers))
                            continue
                        _print(event, seen_broadcast)
        for event in decode.finish():  # what a stateful decoder still holds: given, or refused
            _print(event, seen_broadcast)
    finally:
        reader.close()
    if decode.skipped:
        print(f"cdcwire inspect: skipped {decode.skipped} undecodable message(s)", file=sys.stderr)
    return 0


def _print(event: Event, seen_broadcast: set[str]) -> None:
    text = to_json(event)
    if not isinstance(event, RowChangedEvent):  # DDL and resolved: broadcast copies
        if text in seen_broadcast:
            return
        seen_broadcast.add(text)
    print(text)


def _range(reader, topic: str, partition: int, start: StartAt, end: int | None) -> tuple[int, int]:
    """The offsets ``[begin, end)`` of one partition that ``--from``/``--to`` ask for, within what it holds."""
    low, high = reader.watermarks(topic, partition)
    if start.kind == "end":
        begin = high
    elif start.kind == "offset":
        begin = start.value if start.value >= 0 else high + start.value
    else:
        begin = low
    return max(begin, low), high if end is None else min(end, high)


def _list(args: argparse.Namespace) -> int:
    """``--list``: one line per topic, one per partition under it."""
    from ..api.protocol_guess import protocols_reading, source_sink

    sink = source_sink(args.uri)
    reader = sink.needs_transport().reader(sink.config)
    try:
        topics = select_topics(args.topics or "*", sink.topic, reader.topics)
        print(f"source {sink.config.redacted_uri.split('?')[0]}: {len(topics)} topic(s)")
        for topic in topics:
            partitions = args.partition or reader.partitions(topic)
            print(f"  topic {topic!r} with {len(partitions)} partition(s):")
            for partition in partitions:
                low, high = reader.watermarks(topic, partition)
                if low >= high:
                    guess = "- (empty)"
                else:
                    first = next(iter(reader.read(topic, partition, low, low + 1)))
                    guess = ", ".join(protocols_reading(first)) or "none of the installed"
                print(f"    partition {partition}: low {low}, high {high}, messages {high - low}, protocol {guess}")
    finally:
        reader.close()
    return 0
