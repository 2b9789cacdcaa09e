"""canal-json encode and decode rates beside plain json.dumps / json.loads of the same documents.

    /work/venv/bin/python benchmarks/canal_json_rates.py [--events N] [--repeat R]

The baseline serialises (and parses) the very dicts the messages hold, measured in
the same run, so the ratio says what the codec costs on top of the JSON work
itself: building values as text, sqlType promotion, checks, typing on the way back.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Callable

from cdcwire import Column, ColumnFlag, ColumnType, Message, RowChangedEvent
from cdcwire.sinks.sink import protocol_config
from cdcwire.values.value_kinds import to_float32
from cdcwire.sinks.sink import open_sink

T, F = ColumnType, ColumnFlag
KEY = F.HANDLE_KEY | F.PRIMARY_KEY


def make_events(n: int, seed: int = 7) -> list[RowChangedEvent]:
    """An orders-like table of 12 columns: ints (some unsigned), text, decimal, times, floats, bytes."""
    rnd = random.Random(seed)
    events = []
    for i in range(n):
        def row(version: int) -> tuple[Column, ...]:
            return (
                Column("id", T.BIGINT, KEY, i, "bigint(20)"),
                Column("customer_id", T.INT, F.UNSIGNED, rnd.randrange(1 << 32), "int(10) unsigned"),
                Column("status", T.TINYINT, F(0), rnd.randrange(-128, 128), "tinyint(4)"),
                Column("qty", T.SMALLINT, F.UNSIGNED, rnd.randrange(1 << 16), "smallint(5) unsigned"),
                Column("sku", T.VARCHAR, F(0), f"SKU-{rnd.randrange(10**6):06d}-{version}", "varchar(32)"),
                Column("note", T.BLOB, F.NULLABLE, None if rnd.random() < 0.3 else "naïve note " * 3, "text"),
                Column("price", T.DECIMAL, F(0), f"{rnd.randrange(10**6)}.{rnd.randrange(100):02d}", "decimal(10,2)"),
                Column("weight", T.FLOAT, F(0), to_float32(rnd.uniform(0, 100)), "float"),
                Column("score", T.DOUBLE, F(0), rnd.uniform(-1e6, 1e6), "double"),
                Column("created_at", T.DATETIME, F.BINARY, "2026-11-22 10:11:12", "datetime"),
                Column("state", T.ENUM, F(0), rnd.randrange(1, 4), "enum('new','paid','sent')"),
                Column("digest", T.VARCHAR, F.BINARY, rnd.randbytes(16), "varbinary(16)"),
            )
        kind = rnd.choice(("insert", "insert", "update", "delete"))
        ts = (1_795_000_000_000 + i) << 18
        if kind == "insert":
            events.append(RowChangedEvent(ts, "shop", "orders", row(1), None))
        elif kind == "update":
            events.append(RowChangedEvent(ts, "shop", "orders", row(2), row(1)))
        else:
            events.append(RowChangedEvent(ts, "shop", "orders", None, row(1)))
    return events


def best_rate(n: int, repeat: int, run: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return n / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    events = make_events(args.events)
    rows = []
    for params, label in (({}, "plain"), ({"enable-tidb-extension": "true"}, "extension"),
                          ({"content-compatible": "true"}, "content-compatible")):
        config = protocol_config("canal-json", **params)
        values = [p.value for p in open_sink(config).codec.encoder(config, "t", 0).encode(events)]
        messages = [Message("t", 0, None, v) for v in values]
        docs = [json.loads(v) for v in values]

        def encode() -> None:
            for _ in open_sink(config).codec.encoder(config, "t", 0).encode(events):
                pass

        def decode() -> None:
            decoder = open_sink(config).codec.decoder(config)
            for m in messages:
                decoder.decode(m)

        def dumps() -> None:
            for d in docs:
                json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode()

        def loads() -> None:
            for v in values:
                json.loads(v)

        enc, base_enc = best_rate(len(events), args.repeat, encode), best_rate(len(events), args.repeat, dumps)
        dec, base_dec = best_rate(len(events), args.repeat, decode), best_rate(len(events), args.repeat, loads)
        rows.append((label, enc, base_enc, dec, base_dec))

    mean_bytes = sum(map(len, values)) / len(values)
    print(f"canal-json, {args.events} row events of 12 columns (~{mean_bytes:.0f} bytes a message), best of {args.repeat}")
    print(f"{'mode':<20}{'encode ev/s':>14}{'json.dumps':>14}{'ratio':>8}{'decode ev/s':>14}{'json.loads':>14}{'ratio':>8}")
    for label, enc, base_enc, dec, base_dec in rows:
        print(f"{label:<20}{enc:>14,.0f}{base_enc:>14,.0f}{enc / base_enc:>8.2f}"
              f"{dec:>14,.0f}{base_dec:>14,.0f}{dec / base_dec:>8.2f}")
    print("ratio = codec rate / plain json rate on the same documents (1.00 = as fast as bare JSON)")


if __name__ == "__main__":
    main()
