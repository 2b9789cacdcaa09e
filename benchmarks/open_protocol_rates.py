"""Encode and decode rates of open-protocol against plain json.dumps / json.loads.

Workload: the spec's example table test.t1(id int primary key, val varchar(16)),
a mix of inserts, updates and deletes. The baseline serialises the same
key and value documents as plain Python dicts with the standard library's C
JSON encoder and decoder, measured in the same run on the same machine, so
the ratios say what the protocol's framing, value rules and checks cost.

    /work/venv/bin/python benchmarks/open_protocol_rates.py [--events N] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Callable

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, Message, RowChangedEvent
from cdcwire.sinks.sink import open_sink

URI = "file:///tmp/cdcwire-bench/t?protocol=open-protocol"
KEY = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
NULLABLE = ColumnFlag.NULLABLE


def workload(n: int) -> list[RowChangedEvent]:
    """n row changes on test.t1: 60% inserts, 30% updates, 10% deletes."""
    def image(i: int, val: str) -> tuple[Column, ...]:
        return (Column("id", ColumnType.INT, KEY, i), Column("val", ColumnType.VARCHAR, NULLABLE, val))

    events = []
    for i in range(n):
        ts = 415508878783938562 + i // 16
        kind = i % 10
        if kind < 6:
            events.append(RowChangedEvent(ts, "test", "t1", image(i, f"v{i % 997:05d}")))
        elif kind < 9:
            events.append(RowChangedEvent(ts, "test", "t1", image(i, "new"), image(i, "old")))
        else:
            events.append(RowChangedEvent(ts, "test", "t1", None, image(i, "gone")))
    return events


def as_dicts(events: list[RowChangedEvent]) -> list[tuple[dict, dict]]:
    """The same key and value documents as plain dicts, for the baseline."""
    def cols(columns) -> dict:
        out = {}
        for c in columns:
            d: dict = {"t": int(c.type)}
            if c.is_handle_key:
                d["h"] = True
            d["f"] = int(c.flags)
            d["v"] = c.value
            out[c.name] = d
        return out

    docs = []
    for e in events:
        key = {"ts": e.commit_ts, "scm": e.schema, "tbl": e.table, "t": 1}
        if e.is_delete:
            value = {"d": cols(e.pre_columns)}
        elif e.is_update:
            value = {"u": cols(e.columns), "p": cols(e.pre_columns)}
        else:
            value = {"u": cols(e.columns)}
        docs.append((key, value))
    return docs


def best_of(repeat: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.events

    config = cdcwire.parse_sink_uri(URI)
    events = workload(n)
    docs = as_dicts(events)

    def encode() -> list:
        return list(open_sink(config).codec.encoder(config, "t", 0).encode(events))

    payloads = encode()
    messages = [Message("t", 0, p.key, p.value, i) for i, p in enumerate(payloads)]

    def decode() -> list:
        decoder = open_sink(config).codec.decoder(config)
        out = []
        for m in messages:
            out.extend(decoder.decode(m))
        return out

    decoded = decode()
    assert decoded == [open_sink(config).codec.carrier(config)(e) for e in events], "round trip failed"

    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

    def baseline_encode() -> list:
        return [(dumps(k).encode(), dumps(v).encode()) for k, v in docs]

    texts = baseline_encode()

    def baseline_decode() -> list:
        return [(json.loads(k), json.loads(v)) for k, v in texts]

    timings = {
        "open-protocol encode": best_of(args.repeat, encode),
        "json.dumps baseline": best_of(args.repeat, baseline_encode),
        "open-protocol decode": best_of(args.repeat, decode),
        "json.loads baseline": best_of(args.repeat, baseline_decode),
    }
    wire_bytes = sum(len(p.key) + len(p.value) for p in payloads)
    print(f"{n} row changes on test.t1(id int pk, val varchar(16)); {len(payloads)} messages, {wire_bytes} bytes; best of {args.repeat}")
    print(f"{'measure':<22} {'seconds':>9} {'events/s':>12}")
    for name, seconds in timings.items():
        print(f"{name:<22} {seconds:>9.4f} {n / seconds:>12,.0f}")
    print()
    print(f"encode: open-protocol runs at {timings['json.dumps baseline'] / timings['open-protocol encode']:.2f}x the json.dumps rate")
    print(f"decode: open-protocol runs at {timings['json.loads baseline'] / timings['open-protocol decode']:.2f}x the json.loads rate")


if __name__ == "__main__":
    main()
