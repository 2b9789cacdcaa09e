"""``cdcwire inspect URI``: decode the messages of a sink and print one event per line.

By default the output is event JSON Lines, the format ``cdcwire encode`` reads: each
event once, a DDL or resolved event that was broadcast to several partitions printed
at its first copy only. ``--raw`` prints every copy with its topic, partition and offset.
"""

from __future__ import annotations

import argparse
import json
import sys

from ..poll_decoding import PollDecoder
from ..event_json import event_to_dict, to_json
from ..events import RowChangedEvent
from ..sink import open_sink
from ..topic_selection import select_topics
from .uri_argument import FROM_ENV_OR_FILE, uri_argument


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("inspect", help="decode a sink's messages and print them as event JSON, one per line")
    p.add_argument("uri", type=uri_argument, help="the sink URI the messages were written with" + FROM_ENV_OR_FILE)
    p.add_argument("--partition", type=int, action="append", help="only these partitions (repeatable)")
    p.add_argument(
        "--topic",
        help="other topics than the URI's: names and patterns, 'a,b' or 'tidb_app_*' ('*': every topic the sink holds)",
    )
    p.add_argument(
        "--raw", action="store_true",
        help="every copy of every event with topic, partition and offset (broadcast copies included)",
    )
    p.add_argument("--tables", help="only these tables' row and DDL events: 'app.*,!app.tmp_*' (TiDB table filter)")
    p.add_argument(
        "--skip-undecodable", action="store_true",
        help="log an undecodable message (its place and reason) and go on, instead of stopping; counted at the end",
    )
    return p


def run(args: argparse.Namespace) -> int:
    sink = open_sink(args.uri)
    decode = PollDecoder(sink, skip_undecodable=args.skip_undecodable, tables=args.tables)
    reader = sink.needs_transport().reader(sink.config)
    seen_broadcast: set[str] = set()
    try:
        topics = select_topics(args.topic, sink.topic, reader.topics)
        for topic in topics:
            for partition in args.partition or reader.partitions(topic):
                for message in reader.read(topic, partition):
                    for event in decode(message):
                        if args.raw:
                            d = {"topic": topic, "partition": partition, "offset": message.offset}
                            d.update(event_to_dict(event))
                            print(json.dumps(d, ensure_ascii=False))
                            continue
                        text = to_json(event)
                        if not isinstance(event, RowChangedEvent):  # DDL and resolved: broadcast copies
                            if text in seen_broadcast:
                                continue
                            seen_broadcast.add(text)
                        print(text)
    finally:
        reader.close()
    if decode.skipped:
        print(f"cdcwire inspect: skipped {decode.skipped} undecodable message(s)", file=sys.stderr)
    return 0
