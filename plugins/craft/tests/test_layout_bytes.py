"""Messages checked byte for byte against the layout of the spec and REFERENCE.md.

Each expected message is derived step by step from the tables:

    uvarint(version=1) | headers | bodies | term dictionary | size tables | reversed uvarint(len(size tables))

headers: commit ts (delta uvarint chunk), type (uvarint chunk: 1 row, 2 DDL, 3 resolved),
partition id (delta varint chunk, -1 = none), schema term ids, table term ids (delta varint
chunks, -1 = NULL). varint = zigzag: 0 -> 0, -1 -> 1, 1 -> 2, 2 -> 4, n -> 2n.
Size tables: meta [header bytes, dictionary bytes], body sizes, then per row its group sizes;
each table is uvarint(count) + delta varint chunk.
"""

from __future__ import annotations

from cdcwire import Column, ColumnFlag, ColumnType, DDLEvent, DDLType, ResolvedEvent, RowChangedEvent
from cdcwire_craft.encoder import CraftEncoder


def encode_one(event) -> bytes:
    (payload,) = CraftEncoder().encode([event])
    assert payload.key is None
    assert payload.events == 1
    return payload.value


def test_resolved_event_bytes() -> None:
    version = bytes([1])
    headers = bytes(
        [
            0xAC, 0x02,  # commit ts 300 as uvarint: 300 = 0b10_0101100 -> 0x2C|0x80, 0x02
            3,  # type: resolved
            1,  # partition id -1 -> zigzag 1
            1,  # schema: NULL term id -1 -> 1
            1,  # table: NULL term id -1 -> 1
        ]
    )
    assert len(headers) == 6
    body = b""  # a resolved event has an empty body
    dictionary = b""  # no terms: the dictionary takes no bytes
    size_tables = bytes(
        [
            2, 6 * 2, 2 * 6 - 1,  # meta table: 2 entries; header size 6 (zz 12); dictionary 0: delta -6 (zz 11)
            1, 0,  # body sizes: 1 entry, 0 bytes
        ]
    )
    trailer = bytes([len(size_tables)])  # 5 < 128: one byte either way round
    expected = version + headers + body + dictionary + size_tables + trailer
    assert expected == bytes.fromhex("01 ac 02 03 01 01 01 02 0c 0b 01 00 05")
    assert encode_one(ResolvedEvent(300)) == expected


def test_ddl_event_bytes() -> None:
    query = b"DROP TABLE t"
    version = bytes([1])
    headers = bytes(
        [
            5,  # commit ts 5
            2,  # type: DDL
            1,  # partition id -1 (DDL carries none) -> zigzag 1
            0,  # schema "test" is term 0 -> zigzag 0
            2,  # table "t" is term 1 -> zigzag 2
        ]
    )
    body = bytes([int(DDLType.DROP_TABLE), len(query)]) + query  # uvarint(4), uvarint(12), query
    assert len(body) == 14
    dictionary = bytes([2, 4, 1]) + b"test" + b"t"  # count 2, lengths 4 and 1, then the bytes
    size_tables = bytes(
        [
            2, 5 * 2, (8 - 5) * 2,  # meta: header 5 bytes (zz 10), dictionary 8 bytes: delta +3 (zz 6)
            1, 14 * 2,  # body sizes: one body of 14 bytes (zz 28 = 0x1c)
        ]
    )
    trailer = bytes([len(size_tables)])
    expected = version + headers + body + dictionary + size_tables + trailer
    assert expected.hex(" ") == "01 05 02 01 00 02 04 0c " + query.hex(" ") + " 02 04 01 74 65 73 74 74 02 0a 06 01 1c 05"
    assert encode_one(DDLEvent(5, "test", "t", "DROP TABLE t", DDLType.DROP_TABLE)) == expected


def test_one_column_insert_bytes() -> None:
    key_flags = ColumnFlag.HANDLE_KEY | ColumnFlag.PRIMARY_KEY  # 0x02 | 0x08 = 10
    event = RowChangedEvent(7, "s", "t", (Column("id", ColumnType.INT, key_flags, 1),), None)
    version = bytes([1])
    headers = bytes(
        [
            7,  # commit ts 7
            1,  # type: row
            1,  # partition id -1: not a partitioned table
            0,  # schema "s": term 0
            2,  # table "t": term 1 -> zigzag 2
        ]
    )
    group = bytes(
        [
            1,  # kind: new values
            1,  # one column
            4,  # names: term id of "id" is 2 (after schema and table) -> zigzag 4
            3,  # types: INT = 3
            10,  # flags: HandleKey | PrimaryKey
            2,  # value lengths: 1 byte -> zigzag 2
            2,  # value: signed INT 1 as a varint -> zigzag 2
        ]
    )
    body = group  # an insert has only the new-values group
    dictionary = bytes([3, 1, 1, 2]) + b"s" + b"t" + b"id"  # three terms in first-seen order
    size_tables = bytes(
        [
            2, 5 * 2, (8 - 5) * 2,  # meta: header 5, dictionary 8
            1, 7 * 2,  # body sizes: one body of 7 bytes
            1, 7 * 2,  # row 0: one group of 7 bytes
        ]
    )
    trailer = bytes([len(size_tables)])
    expected = version + headers + body + dictionary + size_tables + trailer
    assert expected.hex(" ") == "01 07 01 01 00 02 01 01 04 03 0a 02 02 03 01 01 02 73 74 69 64 02 0a 06 01 0e 01 0e 07"
    assert encode_one(event) == expected


def test_update_puts_the_new_group_before_the_old_and_shares_name_terms() -> None:
    new = (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, 1),)
    old = (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, 0),)
    value = encode_one(RowChangedEvent(7, "s", "t", new, old))
    new_group = bytes([1, 1, 4, 3, 2, 2, 2])  # kind new, 1 column, name term 2, INT, HandleKey, len 1, value 1
    old_group = bytes([2, 1, 4, 3, 2, 2, 0])  # kind old, same name term, value 0
    assert new_group + old_group in value
    size_tables = bytes([2, 10, 6, 1, 28, 2, 14, 0])  # body 14 = two groups of 7 (second delta 0)
    assert value.endswith(size_tables + bytes([len(size_tables)]))


def test_delete_carries_only_the_old_group() -> None:
    old = (Column("id", ColumnType.INT, ColumnFlag.HANDLE_KEY, 1),)
    value = encode_one(RowChangedEvent(7, "s", "t", None, old))
    assert bytes([2, 1, 4, 3, 2, 2, 2]) in value
    assert bytes([1, 1, 4, 3, 2, 2, 2]) not in value


def test_partitioned_table_carries_its_physical_table_id() -> None:
    event = RowChangedEvent(7, "s", "t", (Column("id", ColumnType.INT, ColumnFlag(0), 1),), None, table_id=100)
    value = encode_one(event)
    # after the version: ts 7, type row, partition 100 -> zigzag 200 = 0xc8 -> uvarint c8 01
    assert value[1:5] == bytes([7, 1, 0xC8, 0x01])


def test_size_tables_longer_than_127_bytes_get_a_two_byte_reversed_trailer() -> None:
    rows = [
        RowChangedEvent(ts, "s", "t", (Column("v", ColumnType.VARCHAR, ColumnFlag(0), "x" * 100),), None)
        for ts in range(1, 65)
    ]
    (payload,) = CraftEncoder(max_batch_size=64).encode(rows)
    value = payload.value
    # 64 rows: body table 1 + 64*2 bytes and 64 group tables of 3 bytes each: well past 127
    assert value[-1] & 0x80  # least significant group last, with "more" set
    assert not value[-2] & 0x80  # most significant group first
    tables_len = (value[-2] << 7) | (value[-1] & 0x7F)
    assert tables_len > 127
