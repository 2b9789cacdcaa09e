"""Partition rules: ``default``/``table``, ``ts``, ``index-value``/``rowid``, ``columns``.

The hash is the reference's "position-inertia" hash: each write CRC-32s the
concatenation of its parts (schema + table, then column name + value text) and
XORs it into the running value, so column order does not matter; the partition
is the hash mod the partition count. ``zlib.crc32(b, zlib.crc32(a))`` is the
CRC-32 of ``a + b`` without building the concatenation.
"""

from __future__ import annotations

import zlib
from typing import Callable, Sequence

from ..foundation.errors import DispatchError
from ..model.events import RowChangedEvent
from ..model.value_text import hash_text

#: (row, partition_num) -> partition
Partitioner = Callable[[RowChangedEvent, int], int]
#: The partition rules the reference knows (lower case); a rules file's other names mean ``default``.
PARTITION_RULES = ("default", "table", "ts", "index-value", "rowid", "columns")


def _table_crc(row: RowChangedEvent) -> int:
    return zlib.crc32(row.table.encode(), zlib.crc32(row.schema.encode()))


def by_table(row: RowChangedEvent, partition_num: int) -> int:
    return _table_crc(row) % partition_num


def by_ts(row: RowChangedEvent, partition_num: int) -> int:
    return row.commit_ts % partition_num


def by_index_value(row: RowChangedEvent, partition_num: int) -> int:
    h = _table_crc(row)
    for col in row.image:
        if col.is_handle_key:
            h ^= zlib.crc32(hash_text(col), zlib.crc32(col.name.encode()))
    return h % partition_num


def by_columns(names: Sequence[str]) -> Partitioner:
    """Hash the named columns (matched case-insensitively); a missing column is an error."""
    wanted = [n.lower() for n in names]
    if not wanted:
        raise DispatchError("partition rule 'columns' needs at least one column name")

    def partition(row: RowChangedEvent, partition_num: int) -> int:
        h = _table_crc(row)
        by_name = {c.name.lower(): c for c in row.image}
        for name in wanted:
            col = by_name.get(name)
            if col is None:
                raise DispatchError(
                    f"partition rule 'columns' names column {name!r}, which table"
                    f" {row.schema}.{row.table} does not have (columns: {', '.join(by_name)})"
                )
            h ^= zlib.crc32(hash_text(col), zlib.crc32(col.name.encode()))
        return h % partition_num

    return partition


def partitioner(rule: str, columns: Sequence[str] = ()) -> Partitioner:
    rule = rule.lower()
    if rule in ("default", "table"):
        return by_table
    if rule == "ts":
        return by_ts
    if rule in ("index-value", "rowid"):
        return by_index_value
    if rule == "columns":
        return by_columns(columns)
    raise DispatchError(f"unknown partition rule {rule!r}; rules: {', '.join(PARTITION_RULES)}")
