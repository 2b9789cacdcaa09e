"""The open-protocol spec's example event stream, end to end through cdcwire.encode.

The spec's table test.t1(id int primary key, val varchar(16)) on a 2-partition
topic, rows dispatched by key (partition=index-value). Keys and values are
compared with the spec's logs as parsed JSON, with two documented updates:

* VARCHAR values are plain text ("aa"), not the base64 of the spec's old-release
  logs ("YWE="): REFERENCE.md and the spec's own column type table say so.
* The logs leave out "f" (flags); cdcwire writes it always, as the reference
  does. It is checked on its own and then removed before comparing.

The logs were taken with old values off (log 11, an update, has no "p"; logs 9
and 10, deletes, carry only the key), so the stream goes through
``enable-old-value=false``; a second test shows the same stream with the
default (old values on). Partitions are computed here, independently of
cdcwire's dispatcher, with the position-inertia hash of REFERENCE.md: the
spec's partition numbers come from an older hash.
"""

from __future__ import annotations

import json
import struct
import zlib
from collections import defaultdict
from typing import Any, Optional

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent

BASE_URI = "file:///tmp/x/t?protocol=open-protocol&partition-num=2&partition=index-value"
SPEC_URI = BASE_URI + "&enable-old-value=false"

CREATE_TS = 415508856908021766
TXN1_TS = 415508878783938562
TXN2_TS = 415508881418485761
RESOLVED_TS = 415508881038376963
KEY_FLAGS = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY
VAL_FLAGS = ColumnFlag.NULLABLE


def t1(id_: int, val: str) -> tuple[Column, ...]:
    return (
        Column("id", ColumnType.INT, KEY_FLAGS, id_, "int(11)"),
        Column("val", ColumnType.VARCHAR, VAL_FLAGS, val, "varchar(16)"),
    )


CREATE = DDLEvent(CREATE_TS, "test", "t1", "CREATE TABLE test.t1(id int primary key, val varchar(16))", DDLType.CREATE_TABLE)

STREAM = [
    CREATE,
    ResolvedEvent(CREATE_TS),
    # BEGIN; insert 1 'aa'; insert 2 'aa'; update 2 -> 'bb'; insert 3 'cc'; COMMIT
    RowChangedEvent(TXN1_TS, "test", "t1", t1(1, "aa")),
    RowChangedEvent(TXN1_TS, "test", "t1", t1(2, "bb")),  # both changes of row 2 in one event (log 6)
    RowChangedEvent(TXN1_TS, "test", "t1", t1(3, "cc")),
    RowChangedEvent(TXN1_TS, "test", "t1", t1(3, "cc")),  # log 8: a repeat of log 7
    # BEGIN; delete 1; update 3 -> 'dd'; update id 2 -> 4, 'ee'; COMMIT
    RowChangedEvent(TXN2_TS, "test", "t1", None, t1(1, "aa")),
    RowChangedEvent(TXN2_TS, "test", "t1", t1(3, "dd"), t1(3, "cc")),
    RowChangedEvent(TXN2_TS, "test", "t1", t1(4, "ee"), t1(2, "bb")),  # split into delete 2 + insert 4
    ResolvedEvent(RESOLVED_TS),
]

ROW_KEY = lambda ts: {"ts": ts, "scm": "test", "tbl": "t1", "t": 1}  # noqa: E731
DDL_KEY = {"ts": CREATE_TS, "scm": "test", "tbl": "t1", "t": 2}
DDL_VALUE = {"q": "CREATE TABLE test.t1(id int primary key, val varchar(16))", "t": 3}


def id_col(v: int) -> dict:
    return {"t": 3, "h": True, "v": v}


def val_col(v: str) -> dict:
    return {"t": 15, "v": v}


def partition_of(id_: int) -> int:
    """REFERENCE.md's index-value hash: crc32(schema+table) XOR crc32(name+value text), mod 2."""
    return (zlib.crc32(b"test" + b"t1") ^ zlib.crc32(b"id" + str(id_).encode())) % 2


def unpack(message: cdcwire.Message) -> list[tuple[dict, Optional[dict]]]:
    """(key JSON, value JSON or None for an empty value) per event, read straight off the frame."""
    key, value = message.key, message.value
    assert struct.unpack_from(">Q", key, 0)[0] == 1
    out = []
    kpos, vpos = 8, 0
    while kpos < len(key):
        (kn,) = struct.unpack_from(">Q", key, kpos)
        (vn,) = struct.unpack_from(">Q", value, vpos)
        k = json.loads(key[kpos + 8 : kpos + 8 + kn])
        v = json.loads(value[vpos + 8 : vpos + 8 + vn]) if vn else None
        out.append((k, v))
        kpos += 8 + kn
        vpos += 8 + vn
    assert vpos == len(value)
    return out


def by_partition(uri: str) -> dict[int, list[tuple[dict, Optional[dict]]]]:
    streams: dict[int, list] = defaultdict(list)
    for m in cdcwire.encode(uri, STREAM):
        assert m.topic == "t"
        streams[m.partition].extend(unpack(m))
    return dict(streams)


def without_flags(events: list[tuple[dict, Optional[dict]]]) -> list[tuple[dict, Optional[dict]]]:
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "f"}
        return value

    return [(k, strip(v) if k["t"] == 1 else v) for k, v in events]


def expected_logs(old_values: bool) -> dict[int, list[tuple[dict, Optional[dict]]]]:
    """The spec's logs 1-14, placed in the partition each row's key hashes to."""
    rows = [
        (1, {"u": {"id": id_col(1), "val": val_col("aa")}}, TXN1_TS),  # log 5
        (2, {"u": {"id": id_col(2), "val": val_col("bb")}}, TXN1_TS),  # log 6
        (3, {"u": {"id": id_col(3), "val": val_col("cc")}}, TXN1_TS),  # log 7
        (3, {"u": {"id": id_col(3), "val": val_col("cc")}}, TXN1_TS),  # log 8
        (1, {"d": {"id": id_col(1)}}, TXN2_TS),  # log 9
        (3, {"u": {"id": id_col(3), "val": val_col("dd")}}, TXN2_TS),  # log 11
        (2, {"d": {"id": id_col(2)}}, TXN2_TS),  # log 10
        (4, {"u": {"id": id_col(4), "val": val_col("ee")}}, TXN2_TS),  # log 12
    ]
    if old_values:  # the same stream as today's default writes it
        rows[4] = (1, {"d": {"id": id_col(1), "val": val_col("aa")}}, TXN2_TS)
        rows[5] = (3, {"u": {"id": id_col(3), "val": val_col("dd")}, "p": {"id": id_col(3), "val": val_col("cc")}}, TXN2_TS)
        rows[6] = (2, {"d": {"id": id_col(2), "val": val_col("bb")}}, TXN2_TS)
    logs: dict[int, list] = {}
    for p in (0, 1):
        logs[p] = [(DDL_KEY, DDL_VALUE), ({"ts": CREATE_TS, "t": 3}, None)]  # logs 1-4
        logs[p] += [(ROW_KEY(ts), value) for id_, value, ts in rows if partition_of(id_) == p]
        logs[p] += [({"ts": RESOLVED_TS, "t": 3}, None)]  # logs 13-14
    return logs


def test_the_keys_spread_over_both_partitions() -> None:
    assert {partition_of(i) for i in (1, 2, 3, 4)} == {0, 1}


def test_spec_example_stream_matches_the_spec_logs_partition_by_partition() -> None:
    assert without_flags_all(by_partition(SPEC_URI)) == expected_logs(old_values=False)


def test_spec_example_stream_with_old_values_on_carries_p_and_whole_deletes() -> None:
    assert without_flags_all(by_partition(BASE_URI)) == expected_logs(old_values=True)


def without_flags_all(streams: dict[int, list]) -> dict[int, list]:
    return {p: without_flags(events) for p, events in streams.items()}


@pytest.mark.parametrize("uri", [SPEC_URI, BASE_URI])
def test_every_column_carries_its_flags_as_f(uri: str) -> None:
    for events in by_partition(uri).values():
        for key, value in events:
            if key["t"] != 1:
                continue
            for image in value.values():
                for name, column in image.items():
                    assert column["f"] == int(KEY_FLAGS if name == "id" else VAL_FLAGS)


def test_spec_example_decodes_back_to_the_events_as_carried() -> None:
    config = cdcwire.parse_sink_uri(SPEC_URI)
    messages = cdcwire.encode(config, STREAM)
    decoded = cdcwire.decode(config, [m for m in messages if m.partition == 1])
    rows = [e for e in decoded if isinstance(e, RowChangedEvent)]
    assert all(partition_of(r.image[0].value) == 1 for r in rows)
    assert all(c.mysql_type is None for r in rows for c in r.image)
    assert [e for e in decoded if not isinstance(e, RowChangedEvent)] == [CREATE, ResolvedEvent(CREATE_TS), ResolvedEvent(RESOLVED_TS)]
