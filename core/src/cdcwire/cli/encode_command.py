"""``cdcwire encode --sink-uri URI INPUT.jsonl``: dispatch, encode and write; print a summary."""

from __future__ import annotations

import argparse
import sys
from collections import Counter

from ..api import config_of, dispatch, encode_partition, transport_partition_count
from ..event_json import read_jsonl
from ..message import Message


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("encode", help="encode event JSON Lines to a sink (no Spark)")
    p.add_argument("input", help="event JSON Lines file ('-' for stdin)")
    p.add_argument("--sink-uri", required=True, help="e.g. file:///tmp/out/orders?protocol=open-protocol")
    return p


def run(args: argparse.Namespace) -> int:
    config = config_of(args.sink_uri)
    if args.input == "-":
        events = list(read_jsonl(sys.stdin))
    else:
        with open(args.input, encoding="utf-8") as f:
            events = list(read_jsonl(f))
    groups = dispatch(config, events, transport_partition_count(config))
    msgs: Counter[tuple[str, int]] = Counter()
    sizes: Counter[tuple[str, int]] = Counter()
    carried: Counter[tuple[str, int]] = Counter()
    with config.transport.writer(config) as writer:
        for (topic, partition) in sorted(groups):
            for p in encode_partition(config, topic, partition, groups[(topic, partition)]):
                writer.write(Message(topic, partition, p.key, p.value))
                msgs[(topic, partition)] += 1
                sizes[(topic, partition)] += len(p.key or b"") + len(p.value or b"")
                carried[(topic, partition)] += p.events
    print(f"sink: {config.redacted_uri}")
    print(f"events in: {len(events)}  messages: {sum(msgs.values())}  bytes: {sum(sizes.values())}")
    print(f"{'topic':<24} {'partition':>9} {'events':>8} {'messages':>9} {'bytes':>10}")
    for key in sorted(groups):
        topic, partition = key
        print(f"{topic:<24} {partition:>9} {carried[key]:>8} {msgs[key]:>9} {sizes[key]:>10}")
    return 0
