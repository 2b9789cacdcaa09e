"""Craft against open-protocol decoding a realistic stream: events per second.

``benchmarks/craft_vs_open.py`` times the spec's benchmark row, one shape whose old image
equals its new one. This decodes ``cdcwire.workload.Workload(N, seed)`` instead: four
tables (one with every column type), inserts, updates of a few columns, deletes, DDL and
resolved events, encoded by each codec with max-batch-size 16 for one partition.

Two figures per codec (trust only ratios from one run): a fresh decoder's single pass,
the best of alternating rounds (its term dictionaries, group shapes and generated
functions built on the way; compiled code objects are shared within the process, so
only the first round pays for compile() itself); and a warm decoder's pass, timed in
slices of about 200 events that both decoders take in turn, the best round of each
slice counting (so that a burst of load elsewhere spoils one slice, not a whole pass).

    .venv/bin/python benchmarks/craft_vs_open_workload.py [--events 20000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import time
from typing import Any, Callable

from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.model.message import Message
from cdcwire.workload import Workload
from cdcwire.sinks.sink import open_sink

PROTOCOLS = ("craft", "open-protocol")


def encoded(protocol: str, events: list) -> tuple[Callable[[], Any], list[Message]]:
    """A decoder factory and the messages of ``events``, checked to decode back to what is carried."""
    config = parse_sink_uri(f"file:///tmp/cdcwire-bench/t?protocol={protocol}&max-batch-size=16")
    encoder = open_sink(config).codec.encoder(config, config.topic, 0)
    messages = [Message(config.topic, 0, p.key, p.value, i) for i, p in enumerate(encoder.encode(events))]
    decoder = open_sink(config).codec.decoder(config)
    back = [e for m in messages for e in decoder.decode(m)]
    carried = [open_sink(config).codec.carrier(config)(e) for e in events]
    if back != [e for e in carried if e is not None]:
        raise SystemExit(f"{protocol}: decode(encode(events)) differs from what the codec says it carries")
    return (lambda: open_sink(config).codec.decoder(config)), messages


def one_pass(decoder: Any, messages: list[Message]) -> float:
    decode = decoder.decode
    start = time.perf_counter()
    for m in messages:
        decode(m)
    return time.perf_counter() - start


def slices(messages: list[Message], decoder: Any, events: int = 200) -> list[slice]:
    """Consecutive runs of messages holding about ``events`` events each."""
    out = []
    start = held = 0
    for i, m in enumerate(messages):
        held += len(decoder.decode(m))
        if held >= events:
            out.append(slice(start, i + 1))
            start, held = i + 1, 0
    return out + [slice(start, len(messages))] if start < len(messages) else out


def warm_seconds(subjects: dict[str, tuple[Any, list[Message]]], rounds: int) -> dict[str, float]:
    """Warm decoders over the same events, slice by slice in turn; the sum of each slice's best.

    The codecs batch alike (max-batch-size 16, DDL and resolved alone), so their n-th
    messages hold the same events."""
    parts = {p: slices(messages, decoder) for p, (decoder, messages) in subjects.items()}
    if len({tuple((s.start, s.stop) for s in v) for v in parts.values()}) != 1:
        raise SystemExit("the codecs batched the events differently: their slices would not compare")
    total = dict.fromkeys(subjects, 0.0)
    for k in range(len(parts[PROTOCOLS[0]])):
        best = dict.fromkeys(subjects, float("inf"))
        for _ in range(rounds):
            for p, (decoder, messages) in subjects.items():
                best[p] = min(best[p], one_pass(decoder, messages[parts[p][k]]))
        for p in subjects:
            total[p] += best[p]
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    events = list(Workload(args.events, seed=args.seed))
    subjects = {p: encoded(p, events) for p in PROTOCOLS}
    best = {(p, "fresh"): float("inf") for p in PROTOCOLS}
    for _ in range(args.rounds):
        for p, (make, messages) in subjects.items():
            best[(p, "fresh")] = min(best[(p, "fresh")], one_pass(make(), messages))
    warm = {p: (make(), messages) for p, (make, messages) in subjects.items()}
    for p, seconds in warm_seconds(warm, args.rounds).items():
        best[(p, "warm")] = seconds
    print(f"{args.events} workload events (seed {args.seed}), max-batch-size 16, {args.rounds} rounds")
    print(f"{'decoder':8} {'craft ev/s':>11} {'open ev/s':>10} {'time ratio craft/open':>22}")
    for how in ("fresh", "warm"):
        craft, open_ = best[("craft", how)], best[("open-protocol", how)]
        print(f"{how:8} {args.events / craft:11.0f} {args.events / open_:10.0f} {craft / open_:22.2f}")


if __name__ == "__main__":
    main()
