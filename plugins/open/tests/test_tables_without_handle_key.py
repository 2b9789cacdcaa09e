"""A table with no handle-key column under the options that keep only handle-key columns.

Such a row cannot be cut to its handle key: the image would be empty and a
consumer could not tell which row changed. The reference refuses it
(ErrOpenProtocolCodecInvalidData); cdcwire raises an EncodeError naming the
table and the option instead of sending ``{"u":{}}`` or ``{"d":{}}``.
"""

from __future__ import annotations

import json

import pytest

import cdcwire
from cdcwire import Column, ColumnFlag, ColumnType, EncodeError, RowChangedEvent
from cdcwire.model.message import Payload
from cdcwire.sinks.sink import open_sink

F = ColumnFlag
T = ColumnType
URI = "file:///tmp/cdcwire-open/t?protocol=open-protocol"
LARGE = {"large-message-handle-option": "handle-key-only", "max-message-bytes": 200}


def encode(event: RowChangedEvent, **params: object) -> list[Payload]:
    config = cdcwire.parse_sink_uri(URI + "".join(f"&{k}={v}" for k, v in params.items()))
    return list(open_sink(config).codec.encoder(config, "t", 0).encode([event]))


def keyless(text: str) -> tuple[Column, ...]:
    """A row of a table without primary key or not-null unique index: no column is a handle key."""
    return (Column("n", T.INT, F.NULLABLE, 1), Column("note", T.VARCHAR, F.NULLABLE, text))


BIG_INSERT = RowChangedEvent(5, "shop", "log", keyless("x" * 500))
BIG_UPDATE = RowChangedEvent(6, "shop", "log", keyless("y" * 500), keyless("x" * 500))
BIG_DELETE = RowChangedEvent(7, "shop", "log", None, keyless("x" * 500))
SMALL_DELETE = RowChangedEvent(8, "shop", "log", None, keyless("x"))


@pytest.mark.parametrize(
    ("event", "kind"), [(BIG_INSERT, "insert"), (BIG_UPDATE, "update"), (BIG_DELETE, "delete")]
)
def test_large_row_of_a_keyless_table_under_handle_key_only_is_an_encode_error(event, kind) -> None:
    with pytest.raises(EncodeError) as info:
        encode(event, **LARGE)
    message = str(info.value)
    assert f"{kind} of shop.log" in message
    assert "large-message-handle-option=handle-key-only" in message
    assert "no handle-key column" in message


def test_small_row_of_a_keyless_table_under_handle_key_only_is_sent_whole() -> None:
    [payload] = encode(RowChangedEvent(5, "shop", "log", keyless("x")), **LARGE)
    assert list(json.loads(payload.value[8:])["u"]) == ["n", "note"]


def test_delete_only_output_handle_key_columns_refuses_a_delete_of_a_keyless_table() -> None:
    expected = r"delete of shop\.log .*delete-only-output-handle-key-columns=true"
    with pytest.raises(EncodeError, match=expected):
        encode(SMALL_DELETE, **{"delete-only-output-handle-key-columns": "true"})


def test_enable_old_value_false_refuses_a_delete_of_a_keyless_table() -> None:
    with pytest.raises(EncodeError, match=r"delete of shop\.log .*enable-old-value=false"):
        encode(SMALL_DELETE, **{"enable-old-value": "false"})


def test_delete_of_a_keyless_table_carries_every_column_by_default() -> None:
    [payload] = encode(SMALL_DELETE)
    assert list(json.loads(payload.value[8:])["d"]) == ["n", "note"]
