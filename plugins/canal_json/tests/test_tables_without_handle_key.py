"""A table with no handle-key column under the options that keep only handle-key columns.

Cut to its handle key, such a row would be ``"data":[{}]``: a message that does not
say which row changed. cdcwire refuses it with an EncodeError naming the table and
the option (the reference's open-protocol encoder refuses the same rows).
"""

from __future__ import annotations

import pytest

from cdcwire import Column, ColumnFlag, ColumnType, EncodeError, RowChangedEvent

from canal_cases import canal_config, encode_one


def keyless(text: str) -> tuple[Column, ...]:
    """A row of a table without primary key or not-null unique index: no column is a handle key."""
    return (Column("n", ColumnType.INT, ColumnFlag.NULLABLE, 1, "int(11)"),
            Column("note", ColumnType.VARCHAR, ColumnFlag.NULLABLE, text, "varchar(4000)"))


def big(kind: str) -> RowChangedEvent:
    if kind == "insert":
        return RowChangedEvent(9 << 18, "shop", "log", keyless("x" * 2000), None)
    if kind == "update":
        return RowChangedEvent(9 << 18, "shop", "log", keyless("y" * 2000), keyless("x" * 2000))
    return RowChangedEvent(9 << 18, "shop", "log", None, keyless("x" * 2000))


@pytest.mark.parametrize("kind", ["insert", "update", "delete"])
def test_large_row_of_a_keyless_table_under_handle_key_only_is_an_encode_error(kind):
    config = canal_config(enable_tidb_extension=True, large_message_handle_option="handle-key-only",
                          max_message_bytes=1024)
    with pytest.raises(EncodeError) as info:
        encode_one(config, big(kind))
    message = str(info.value)
    assert f"{kind} of shop.log" in message
    assert "large-message-handle-option=handle-key-only" in message
    assert "no handle-key column" in message


def test_delete_only_output_handle_key_columns_refuses_a_delete_of_a_keyless_table():
    config = canal_config(delete_only_output_handle_key_columns=True)
    delete = RowChangedEvent(9 << 18, "shop", "log", None, keyless("x"))
    expected = r"delete of shop\.log .*delete-only-output-handle-key-columns=true"
    with pytest.raises(EncodeError, match=expected):
        encode_one(config, delete)


def test_delete_of_a_keyless_table_carries_every_column_by_default():
    doc = encode_one(canal_config(), RowChangedEvent(9 << 18, "shop", "log", None, keyless("x")))
    assert doc["data"] == [{"n": "1", "note": "x"}]
