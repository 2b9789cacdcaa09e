"""The OLTP workload the codec benchmarks share: one typical 10-column table, mixed DML.

Each codec benchmark used to build its own events (different tables, different mixes),
so their figures could not be set side by side. This module is the one workload they
import (the scripts run as ``python benchmarks/X.py``, so ``benchmarks/`` is on
``sys.path``)::

    from oltp_workload import oltp_events
    events = oltp_events(20000)

The table is what an order-taking service writes most (``shop.orders``)::

    id          bigint(20)      primary key (HANDLE_KEY | PRIMARY_KEY)
    customer_id int(11)
    status      tinyint(4)
    sku         varchar(32)
    note        varchar(255)    NULL (about a third of the rows)
    amount      decimal(10,2)
    score       double
    created_at  datetime
    updated_at  timestamp       the commit time, to the second
    quantity    smallint(6)

The stream is 60% inserts, 25% updates (status, amount, quantity, note and updated_at of
a live row change; the old image is the row as it was) and 15% deletes (of a live row),
one row change per transaction, commit ts strictly increasing TSOs. The same ``n`` and
``seed`` give the same events.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

from cdcwire import Column, ColumnFlag as F, ColumnType as T, RowChangedEvent

SCHEMA, TABLE = "shop", "orders"
KEY = F.HANDLE_KEY | F.PRIMARY_KEY
#: Physical part of the first commit ts (ms since the epoch).
START_MS = int(datetime(2026, 11, 22, 8, tzinfo=timezone.utc).timestamp()) * 1000
#: The share of each kind of row change, in the order they are drawn.
MIX = (("insert", 0.60), ("update", 0.25), ("delete", 0.15))

STATUS_TEXTS = ("new", "paid", "packed", "sent", "delivered", "returned")


def _clock(ms: int) -> str:
    """``YYYY-MM-DD HH:MM:SS`` (UTC) of a time in ms since the epoch."""
    moment = datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def _amount(rnd: random.Random) -> str:
    return f"{rnd.randrange(100_000)}.{rnd.randrange(100):02d}"


def _note(rnd: random.Random) -> str | None:
    if rnd.random() < 0.35:
        return None
    return f"{rnd.choice(STATUS_TEXTS)}: leave at door {rnd.randrange(1, 200)}, ring twice"


def _row(rnd: random.Random, key: int, now_ms: int) -> tuple[Column, ...]:
    """A new row, created now."""
    created = _clock(now_ms - rnd.randrange(0, 30_000))
    return (
        Column("id", T.BIGINT, KEY, key, "bigint(20)"),
        Column("customer_id", T.INT, F(0), rnd.randrange(1, 2_000_000), "int(11)"),
        Column("status", T.TINYINT, F(0), 0, "tinyint(4)"),
        Column("sku", T.VARCHAR, F(0), f"SKU-{rnd.randrange(10**6):06d}", "varchar(32)"),
        Column("note", T.VARCHAR, F.NULLABLE, _note(rnd), "varchar(255)"),
        Column("amount", T.DECIMAL, F(0), _amount(rnd), "decimal(10,2)"),
        Column("score", T.DOUBLE, F(0), rnd.uniform(-1000.0, 1000.0), "double"),
        Column("created_at", T.DATETIME, F.BINARY, created, "datetime"),
        Column("updated_at", T.TIMESTAMP, F.BINARY, _clock(now_ms), "timestamp"),
        Column("quantity", T.SMALLINT, F(0), rnd.randrange(1, 500), "smallint(6)"),
    )


def _updated(rnd: random.Random, old: tuple[Column, ...], now_ms: int) -> tuple[Column, ...]:
    """The row after an update: status moves on, amount, quantity and note may change."""
    key, customer, status, sku, note, amount, score, created, _, quantity = old
    return (
        key, customer,
        Column("status", T.TINYINT, F(0), min(status.value + 1, 5), "tinyint(4)"),  # type: ignore[operator]
        sku,
        Column("note", T.VARCHAR, F.NULLABLE, _note(rnd), "varchar(255)") if rnd.random() < 0.3 else note,
        Column("amount", T.DECIMAL, F(0), _amount(rnd), "decimal(10,2)") if rnd.random() < 0.5 else amount,
        score, created,
        Column("updated_at", T.TIMESTAMP, F.BINARY, _clock(now_ms), "timestamp"),
        Column("quantity", T.SMALLINT, F(0), rnd.randrange(1, 500), "smallint(6)")
        if rnd.random() < 0.4 else quantity,
    )


def oltp_events(n: int = 20000, seed: int = 11) -> list[RowChangedEvent]:
    """``n`` row changes of ``shop.orders``: 60% inserts, 25% updates, 15% deletes."""
    rnd = random.Random(seed)
    live: dict[int, tuple[Column, ...]] = {}
    keys: list[int] = []  # the live keys, for a uniform pick (a dict has no random access)
    next_key = 1
    now_ms, logical = START_MS, 0
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    events: list[RowChangedEvent] = []
    for _ in range(n):
        step = rnd.randrange(0, 4)  # a few ms between commits, sometimes the same ms
        now_ms, logical = (now_ms + step, 0) if step else (now_ms, logical + 1)
        ts = (now_ms << 18) + logical
        kind = rnd.choices(kinds, weights)[0] if keys else "insert"
        if kind == "insert":
            row = _row(rnd, next_key, now_ms)
            live[next_key] = row
            keys.append(next_key)
            next_key += 1
            events.append(RowChangedEvent(ts, SCHEMA, TABLE, row, None))
            continue
        i = rnd.randrange(len(keys))
        key = keys[i]
        old = live[key]
        if kind == "update":
            new = _updated(rnd, old, now_ms)
            live[key] = new
            events.append(RowChangedEvent(ts, SCHEMA, TABLE, new, old))
        else:
            keys[i] = keys[-1]
            keys.pop()
            del live[key]
            events.append(RowChangedEvent(ts, SCHEMA, TABLE, None, old))
    return events


if __name__ == "__main__":
    sample = oltp_events()
    counts = {k: sum(1 for e in sample if e.kind == k) for k, _ in MIX}
    print(f"{len(sample)} events: {counts}")
    print(sample[0])
