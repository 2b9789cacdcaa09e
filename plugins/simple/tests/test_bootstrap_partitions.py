"""A table's BOOTSTRAP reaches every partition of its topic when the table's first row is
dispatched, as TiCDC's bootstrap worker sends it (``send-bootstrap-to-all-partition``, default
true; false: partition 0 only): a reader of any one partition has the schema before the rows."""

from __future__ import annotations

import json
from collections import defaultdict

import cdcwire
from cdcwire.plugin_api import RowChangedEvent
from simple_cases import user_columns

URI = "file:///tmp/simple-tests/t?protocol=simple&partition-num=3&partition=index-value"


def user(id_: int, ts: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "simple", "user", user_columns(id_, f"n{id_}", id_, 1.0), None)


def other(ts: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "simple", "other", user_columns(1, "o", 1, 1.0), None)


EVENTS = [user(i, 100 + i) for i in range(1, 9)] + [other(200)]


def by_partition(messages) -> dict[int, list[tuple[str, str]]]:
    """(type, table) of each message, per partition, in order."""
    out: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for m in messages:
        body = json.loads(m.value)
        table = body["tableSchema"]["table"] if body["type"] == "BOOTSTRAP" else body["table"]
        out[m.partition].append((body["type"], table))
    return out


def test_a_tables_first_row_brings_its_bootstrap_to_every_partition_before_any_row() -> None:
    parts = by_partition(cdcwire.encode(URI, EVENTS))
    assert sorted(parts) == [0, 1, 2]
    for partition, messages in parts.items():
        # one BOOTSTRAP per table, each before the table's rows there: "other" has one row in all,
        # its BOOTSTRAP is in every partition all the same
        assert [m for m in messages if m[0] == "BOOTSTRAP"] == [("BOOTSTRAP", "user"), ("BOOTSTRAP", "other")]
        assert messages[0] == ("BOOTSTRAP", "user")
        if ("INSERT", "other") in messages:
            assert messages.index(("BOOTSTRAP", "other")) < messages.index(("INSERT", "other"))
    assert sum(m == ("INSERT", "user") for ms in parts.values() for m in ms) == 8


def test_without_send_bootstrap_to_all_partition_the_first_row_brings_it_to_partition_0() -> None:
    uri = URI + "&send-bootstrap-to-all-partition=false"
    for id_ in range(1, 9):  # a row that goes elsewhere than partition 0
        parts = by_partition(cdcwire.encode(uri, [user(id_, 100)]))
        row_partition = next(p for p, ms in parts.items() if ("INSERT", "user") in ms)
        if row_partition != 0:
            break
    assert row_partition != 0
    assert sorted(parts) == [0, row_partition]
    assert parts[0] == [("BOOTSTRAP", "user")]
    assert parts[row_partition] == [("BOOTSTRAP", "user"), ("INSERT", "user")]


def test_a_reader_of_one_partition_alone_decodes_all_its_rows() -> None:
    messages = cdcwire.encode(URI, EVENTS)
    decoded = []
    for partition in (0, 1, 2):
        alone = [m for m in messages if m.partition == partition]
        rows = cdcwire.decode(URI, alone)
        assert len(rows) == sum(json.loads(m.value)["type"] == "INSERT" for m in alone)
        decoded += [(r.table, r.commit_ts) for r in rows]
    assert sorted(decoded) == sorted((e.table, e.commit_ts) for e in EVENTS)
