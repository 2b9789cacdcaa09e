"""Craft against open-protocol on the reference's craft benchmark workload.

The spec's benchmark table (specs/ticdc-craft.md, "Benchmark") compares sizes and
speeds of one update (case 0) and four identical updates (case 1) on

    test.t(a varchar(255) primary key, b text, c date, d timestamp, e datetime,
           f float, g bigint, h int)

with the row ("varchar1", "string1", "2021-01-02", "2021-01-02 00:00:00",
"2021-01-02 00:00:00", 2.0, 2000, NULL) whose old image equals the new one,
max-batch-size 64. Both codecs run here, in the same process, through their
codec objects (the same encoder and decoder objects cdcwire.encode / decode use).

    /work/venv/bin/python benchmarks/craft_vs_open.py [--seconds 1.0]
"""

from __future__ import annotations

import argparse
import time
import zlib
from dataclasses import dataclass
from typing import Callable

import cdcwire
from cdcwire import Column, ColumnFlag as F, ColumnType as T, Message, RowChangedEvent
from cdcwire.sinks.sink import parse_sink_uri
from cdcwire.sinks.sink import open_sink

COMMIT_TS = 424_316_552_636_940_289  # a realistic TSO


def benchmark_row() -> RowChangedEvent:
    image = (
        Column("a", T.VARCHAR, F.HANDLE_KEY | F.PRIMARY_KEY, "varchar1", "varchar(255)"),
        Column("b", T.BLOB, F.NULLABLE, "string1", "text"),
        Column("c", T.DATE, F.BINARY | F.NULLABLE, "2021-01-02", "date"),
        Column("d", T.TIMESTAMP, F.BINARY | F.NULLABLE, "2021-01-02 00:00:00", "timestamp"),
        Column("e", T.DATETIME, F.BINARY | F.NULLABLE, "2021-01-02 00:00:00", "datetime"),
        Column("f", T.FLOAT, F.NULLABLE, 2.0, "float"),
        Column("g", T.BIGINT, F.NULLABLE, 2000, "bigint(20)"),
        Column("h", T.INT, F.NULLABLE, None, "int(11)"),
    )
    return RowChangedEvent(COMMIT_TS, "test", "t", image, image)


CASES = {"case 0": [benchmark_row()], "case 1": [benchmark_row()] * 4}
PROTOCOLS = ("craft", "open-protocol")


@dataclass(frozen=True, slots=True)
class Figures:
    size: int
    compressed: int
    encode_ns: float
    decode_ns: float


def loop_ns(run: Callable[[], object], seconds: float) -> float:
    """Mean ns of one run over a loop of at least ``seconds``."""
    loops = 0
    start = time.perf_counter_ns()
    deadline = start + int(seconds * 1e9)
    while True:
        for _ in range(20):
            run()
        loops += 20
        now = time.perf_counter_ns()
        if now >= deadline:
            return (now - start) / loops


@dataclass(frozen=True, slots=True)
class Subject:
    """One codec on one case: its wire bytes and the encode / decode runs to time."""

    size: int
    compressed: int
    encode: Callable[[], object]
    decode: Callable[[], object]


def subject(protocol: str, events: list[RowChangedEvent]) -> Subject:
    config = parse_sink_uri(f"file:///tmp/cdcwire-bench/t?protocol={protocol}&max-batch-size=64")
    encoder = open_sink(config).codec.encoder(config, config.topic, 0)
    decoder = open_sink(config).codec.decoder(config)
    payloads = list(encoder.encode(events))
    messages = [Message(config.topic, 0, p.key, p.value, i) for i, p in enumerate(payloads)]
    back = [e for m in messages for e in decoder.decode(m)]
    expected = [open_sink(config).codec.carrier(config)(e) for e in events]
    if back != expected:
        raise SystemExit(f"{protocol}: decode(encode(events)) differs from what the codec says it carries")
    wire = b"".join((m.key or b"") + (m.value or b"") for m in messages)
    return Subject(
        size=len(wire),
        compressed=len(zlib.compress(wire)),
        encode=lambda: list(encoder.encode(events)),
        decode=lambda: [decoder.decode(m) for m in messages],
    )


def measure(events: list[RowChangedEvent], seconds: float, rounds: int = 7) -> dict[str, Figures]:
    """Craft and open-protocol timed in alternating rounds, so both see the same machine
    load; the best round of each counts."""
    subjects = {p: subject(p, events) for p in PROTOCOLS}
    best = {(p, op): float("inf") for p in PROTOCOLS for op in ("encode", "decode")}
    for _ in range(rounds):
        for p, s in subjects.items():
            for op in ("encode", "decode"):
                ns = loop_ns(getattr(s, op), seconds / rounds) / len(events)
                best[(p, op)] = min(best[(p, op)], ns)
    return {
        p: Figures(s.size, s.compressed, best[(p, "encode")], best[(p, "decode")]) for p, s in subjects.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="time per codec, case and direction")
    args = parser.parse_args()
    missing = [p for p in PROTOCOLS if p not in cdcwire.protocols()]
    if missing:
        raise SystemExit(f"install the plugins first: {', '.join(missing)} missing")

    results = {}
    for case, events in CASES.items():
        for p, figures in measure(events, args.seconds).items():
            results[(case, p)] = figures
    print("sizes in bytes (key + value of every message); zlib level 6")
    print(f"{'case':8} {'craft':>6} {'open':>6} {'ratio':>6}   {'craft z':>7} {'open z':>7} {'ratio':>6}")
    for case in CASES:
        c, o = results[(case, "craft")], results[(case, "open-protocol")]
        print(
            f"{case:8} {c.size:6d} {o.size:6d} {c.size / o.size:6.2f}"
            f"   {c.compressed:7d} {o.compressed:7d} {c.compressed / o.compressed:6.2f}"
        )
    print()
    print("speed in ns per event (best of 7 alternating rounds)")
    print(f"{'case':8} {'craft enc':>10} {'open enc':>10} {'ratio':>6}   {'craft dec':>10} {'open dec':>10} {'ratio':>6}")
    for case in CASES:
        c, o = results[(case, "craft")], results[(case, "open-protocol")]
        print(
            f"{case:8} {c.encode_ns:10.0f} {o.encode_ns:10.0f} {c.encode_ns / o.encode_ns:6.2f}"
            f"   {c.decode_ns:10.0f} {o.decode_ns:10.0f} {c.decode_ns / o.decode_ns:6.2f}"
        )


if __name__ == "__main__":
    main()
