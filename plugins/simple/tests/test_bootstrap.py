"""BOOTSTRAP messages on encode: before a table's first row, and re-sent as TiCDC's bootstrap
worker re-sends them (after a count of rows or an interval; both > 0 to re-send at all)."""

from __future__ import annotations

import json

import pytest

from cdcwire.plugin_api import RowChangedEvent, SinkURIError
from cdcwire.sinks.sink import open_sink
from simple_cases import Clock, encoder, user_columns


def row(ts: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "simple", "user", user_columns(ts, "n", 1, 1.0), None)


def kinds(payloads) -> str:
    """B for a BOOTSTRAP, I for an INSERT."""
    return "".join(json.loads(p.value)["type"][0] for p in payloads)


def test_a_bootstrap_is_resent_after_send_bootstrap_in_msg_count_rows() -> None:
    enc = encoder("send-bootstrap-in-msg-count=3")
    assert kinds(enc.encode([row(i) for i in range(1, 8)])) == "BI" "I" "I" "BI" "I" "I" "BI"


def test_a_bootstrap_is_resent_when_the_interval_has_passed() -> None:
    clock = Clock(0)
    enc = encoder("send-bootstrap-interval-in-sec=5", clock)
    assert kinds(enc.encode([row(1), row(2)])) == "BII"
    clock.ms = 4_999
    assert kinds(enc.encode([row(3)])) == "I"
    clock.ms = 5_000
    assert kinds(enc.encode([row(4), row(5)])) == "BII"


@pytest.mark.parametrize(
    "query", ["send-bootstrap-interval-in-sec=0&send-bootstrap-in-msg-count=1", "send-bootstrap-in-msg-count=0"]
)
def test_with_resending_off_only_a_tables_first_row_brings_its_schema(query: str) -> None:
    enc = encoder(query)
    assert kinds(enc.encode([row(i) for i in range(1, 5)])) == "BIIII"


def test_without_send_bootstrap_to_all_partition_only_partition_0_resends() -> None:
    query = "send-bootstrap-in-msg-count=1&send-bootstrap-to-all-partition=false"
    assert kinds(encoder(query, partition=0).encode([row(1), row(2)])) == "BIBI"
    assert kinds(encoder(query, partition=1).encode([row(1), row(2)])) == "BII"


def test_send_all_bootstrap_at_start_is_accepted() -> None:
    assert kinds(encoder("send-all-bootstrap-at-start=true").encode([row(1)])) == "BI"


def test_a_negative_bootstrap_count_is_refused_naming_the_parameter() -> None:
    with pytest.raises(SinkURIError, match="send-bootstrap-in-msg-count"):
        open_sink("file:///tmp/x/t?protocol=simple&send-bootstrap-in-msg-count=-1")


def test_each_table_has_its_own_bootstrap() -> None:
    other = RowChangedEvent(3, "simple", "other", user_columns(1, "n", 1, 1.0), None)
    enc = encoder()
    payloads = list(enc.encode([row(1), other, row(2)]))
    assert kinds(payloads) == "BIBII"
    assert [json.loads(p.value)["tableSchema"]["table"] for p in payloads if p.events == 0] == ["user", "other"]
