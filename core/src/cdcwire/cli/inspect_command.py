"""``cdcwire inspect URI``: decode the messages of a sink and print one event per line."""

from __future__ import annotations

import argparse
import json

from ..sink import open_sink
from ..codec_calls import decoder_for
from ..errors import DecodeError
from ..event_json import event_to_dict


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("inspect", help="decode a sink's messages and print them as JSON, one event per line")
    p.add_argument("uri", help="the sink URI the messages were written with")
    p.add_argument("--partition", type=int, action="append", help="only these partitions (repeatable)")
    p.add_argument("--topic", help="another topic than the URI's (e.g. one made by a topic rule)")
    return p


def run(args: argparse.Namespace) -> int:
    sink = open_sink(args.uri)
    decoder = decoder_for(sink)
    reader = sink.needs_transport().reader(sink.config)
    topic = args.topic or sink.topic
    try:
        for partition in args.partition or reader.partitions(topic):
            for message in reader.read(topic, partition):
                try:
                    events = decoder.decode(message)
                except DecodeError as exc:
                    raise exc.at_message(message.location()) from None
                for event in events:
                    d = {"topic": topic, "partition": partition, "offset": message.offset}
                    d.update(event_to_dict(event))
                    print(json.dumps(d, ensure_ascii=False))
    finally:
        reader.close()
    return 0
