"""The Python encoder continues from the state simple's Java encoder hands it when it leaves a
partition midway (plugin API 1.18, ``SimpleBatchEncoder.handOver``): each table's version, the shape
its schema was derived from, when it was last sent and its rows since."""

from __future__ import annotations

import json

from cdcwire.plugin_api import RowChangedEvent
from simple_cases import Clock, encoder, user_columns


def row(ts: int) -> RowChangedEvent:
    return RowChangedEvent(ts, "simple", "user", user_columns(ts, "n", 1, 1.0), None, table_id=7)


def handed(rows_since: int, sent_ms: int) -> str:
    """The state Java hands over after the rows it took of ``simple.user`` (first at ts 1)."""
    shape = [[c.name, c.type.name, int(c.flags), c.mysql_type] for c in user_columns(0, "n", 1, 1.0)]
    return json.dumps([{"schema": "simple", "table": "user", "table_id": 7, "version": 1, "sent_ms": sent_ms,
                        "rows_since": rows_since, "shape": shape}])


def test_an_encoder_that_adopts_the_state_writes_what_one_that_took_every_row_writes() -> None:
    clock = Clock(1_000)
    whole = list(encoder("send-bootstrap-in-msg-count=3", clock).encode([row(i) for i in range(1, 9)]))
    continuing = encoder("send-bootstrap-in-msg-count=3", clock)
    continuing.adopt_handed_state(handed(rows_since=1, sent_ms=1_000))  # Java took rows 1-5: BOOTSTRAPs before 1 and 4
    tail = list(continuing.encode([row(i) for i in range(6, 9)]))
    assert [p.value for p in tail] == [p.value for p in whole[-len(tail):]]
    assert json.loads(tail[1].value)["type"] == "BOOTSTRAP"  # due before row 7, under version 1


def test_a_table_a_ddl_created_and_no_row_gave_has_no_columns_until_its_first_row() -> None:
    enc = encoder("", Clock(0))
    enc.adopt_handed_state(json.dumps([{"schema": "simple", "table": "user", "table_id": 0, "version": 5,
                                        "sent_ms": None, "rows_since": 0, "shape": None}]))
    boot, insert = enc.encode([row(3)])
    assert json.loads(boot.value)["tableSchema"]["version"] == 6  # one past the DDL's version
    assert json.loads(insert.value)["schemaVersion"] == 6
