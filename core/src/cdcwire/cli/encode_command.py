"""``cdcwire encode --sink-uri URI INPUT.jsonl``: dispatch, encode and write; print a summary."""

from __future__ import annotations

import argparse
import sys
from typing import BinaryIO, Iterator

from ..api.functions import dispatch, encode_partition, transport_partition_count
from ..foundation.errors import EventJSONError
from ..model.event_json import read_jsonl
from ..api.message_writing import WrittenMessages, write_payloads
from ..sinks.sink import open_sink
from .uri_argument import FROM_ENV_OR_FILE, uri_argument


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("encode", help="encode event JSON Lines to a sink (no Spark)")
    p.add_argument("input", help="event JSON Lines file ('-' for stdin)")
    p.add_argument("--sink-uri", required=True, type=uri_argument,
                   help="e.g. file:///tmp/out/orders?protocol=open-protocol" + FROM_ENV_OR_FILE)
    return p


def run(args: argparse.Namespace) -> int:
    sink = open_sink(args.sink_uri)
    if args.input == "-":
        events = list(read_jsonl(_utf8_lines(sys.stdin.buffer)))
    else:
        with open(args.input, "rb") as f:
            events = list(read_jsonl(_utf8_lines(f)))
    groups = dispatch(sink, events, transport_partition_count(sink))
    written: dict[tuple[str, int], WrittenMessages] = {}
    with sink.needs_transport().writer(sink.config) as writer:
        for (topic, partition) in sorted(groups):
            payloads = encode_partition(sink, topic, partition, groups[(topic, partition)])
            written[(topic, partition)] = write_payloads(writer, topic, partition, payloads)
    print(f"sink: {sink.config.redacted_uri}")
    messages = sum(w.messages for w in written.values())
    print(f"events in: {len(events)}  messages: {messages}  bytes: {sum(w.bytes for w in written.values())}")
    print(f"{'topic':<24} {'partition':>9} {'events':>8} {'messages':>9} {'bytes':>10}")
    for (topic, partition), w in sorted(written.items()):
        print(f"{topic:<24} {partition:>9} {w.events:>8} {w.messages:>9} {w.bytes:>10}")
    return 0


def _utf8_lines(f: BinaryIO) -> Iterator[str]:
    """The lines of ``f`` as text; a line that is not UTF-8 is an error naming its number."""
    for number, raw in enumerate(f, 1):
        try:
            yield raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EventJSONError(f"not UTF-8 text ({exc.reason} at byte {exc.start} of the line)", number) from None
