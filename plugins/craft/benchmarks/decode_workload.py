"""Craft against open-protocol decoding a realistic stream: events per second.

``benchmarks/craft_vs_open.py`` times the spec's benchmark row, one shape whose old image
equals its new one. This decodes ``cdcwire.workload.Workload(N, seed)`` instead: four
tables (one with every column type), inserts, updates of a few columns, deletes, DDL and
resolved events, encoded by each codec with max-batch-size 16 for one partition.

Two figures per codec, the best of alternating rounds (trust only ratios from one run):
a fresh decoder's single pass (its term dictionaries, group shapes and generated
functions built on the way; compiled code objects are shared within the process, so
only the first round pays for compile() itself), and a warm decoder's pass over the
same messages.

    .venv/bin/python plugins/craft/benchmarks/decode_workload.py [--events 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

from cdcwire.api import config_of
from cdcwire.message import Message
from cdcwire.workload import Workload

PROTOCOLS = ("craft", "open-protocol")


def encoded(protocol: str, events: list) -> tuple[Callable[[], Any], list[Message]]:
    """A decoder factory and the messages of ``events``, checked to decode back to what is carried."""
    config = config_of(f"file:///tmp/cdcwire-bench/t?protocol={protocol}&max-batch-size=16")
    encoder = config.codec.encoder(config, config.topic, 0)
    messages = [Message(config.topic, 0, p.key, p.value, i) for i, p in enumerate(encoder.encode(events))]
    decoder = config.codec.decoder(config)
    back = [e for m in messages for e in decoder.decode(m)]
    carried = [config.codec.carried(config, e) for e in events]
    if back != [e for e in carried if e is not None]:
        raise SystemExit(f"{protocol}: decode(encode(events)) differs from what the codec says it carries")
    return (lambda: config.codec.decoder(config)), messages


def one_pass(decoder: Any, messages: list[Message]) -> float:
    decode = decoder.decode
    start = time.perf_counter()
    for m in messages:
        decode(m)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    events = list(Workload(args.events, seed=args.seed))
    subjects = {p: encoded(p, events) for p in PROTOCOLS}
    warm = {p: make() for p, (make, _) in subjects.items()}
    best = {(p, how): float("inf") for p in PROTOCOLS for how in ("fresh", "warm")}
    for _ in range(args.rounds):
        for p, (make, messages) in subjects.items():
            best[(p, "fresh")] = min(best[(p, "fresh")], one_pass(make(), messages))
            best[(p, "warm")] = min(best[(p, "warm")], one_pass(warm[p], messages))
    print(f"{args.events} workload events (seed {args.seed}), max-batch-size 16, best of {args.rounds} rounds")
    print(f"{'decoder':8} {'craft ev/s':>11} {'open ev/s':>10} {'time ratio craft/open':>22}")
    for how in ("fresh", "warm"):
        craft, open_ = best[("craft", how)], best[("open-protocol", how)]
        print(f"{how:8} {args.events / craft:11.0f} {args.events / open_:10.0f} {craft / open_:22.2f}")


if __name__ == "__main__":
    main()
